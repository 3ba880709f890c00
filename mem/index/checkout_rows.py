"""The checkout files a project's evidence names, as `mem audit` would read them now.

The portfolio index keeps them so that one SQL query can list the memories whose
evidence changed or went missing across every project. Each file is read with audit's
own reader (no links, at most 1 MiB) and re-read only when its stat data changed or it
was racily clean when last read.
"""

from __future__ import annotations

import time

from mem.core.rules import memory
from mem.files import checkout_files, index_sources
from mem.index import connection, freshness


def evidence_paths(
    conn: connection.Connection, project_id: int | None = None
) -> dict[int, list[str]]:
    """project id -> the normalised source paths its evidence names, sorted."""
    only = "" if project_id is None else f" AND f.project_id = {int(project_id)}"
    rows = conn.execute(
        "SELECT DISTINCT f.project_id, e.path FROM evidence AS e"
        f" JOIN files AS f ON f.id = e.file_id WHERE e.path IS NOT NULL{only}"
        " ORDER BY f.project_id, e.path"
    )
    found: dict[int, list[str]] = {}
    for project_id, path in rows:
        if memory.normalized_source(path) == path:  # audit calls any other path inconclusive
            found.setdefault(project_id, []).append(path)
    return found


def sync_checkouts(
    conn: connection.Connection, project_id: int, root: str, paths: list[str]
) -> int:
    """Bring a project's `checkout_files` rows in step; the number of files read."""
    stored = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT path, stat, checked_ns FROM checkout_files WHERE project_id = ?",
            (project_id,),
        )
    }
    conn.executemany(
        "DELETE FROM checkout_files WHERE project_id = ? AND path = ?",
        [(project_id, path) for path in sorted(set(stored) - set(paths))],
    )
    read = 0
    for path in paths:
        stat_now = index_sources.link_signature(root, path)
        kept = stored.get(path)
        if kept is not None and kept[0] == stat_now and _settled(stat_now, kept[1]):
            continue
        checked_ns = time.time_ns()
        found = checkout_files.read_checkout_file(root, path)
        read += 1
        conn.execute(
            "INSERT INTO checkout_files"
            " (project_id, path, state, sha256, size, reason, stat, checked_ns)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, path) DO UPDATE SET"
            " state = excluded.state, sha256 = excluded.sha256, size = excluded.size,"
            " reason = excluded.reason, stat = excluded.stat, checked_ns = excluded.checked_ns",
            (
                project_id,
                path,
                found.state,
                found.sha256,
                found.size,
                found.reason,
                stat_now,
                checked_ns,
            ),
        )
    return read


def settled(conn: connection.Connection, project_id: int) -> bool:
    """Whether every checkout file was read long enough after it last changed."""
    rows = conn.execute(
        "SELECT stat, checked_ns FROM checkout_files WHERE project_id = ?", (project_id,)
    )
    return all(_settled(stat_now, checked_ns) for stat_now, checked_ns in rows)


def _settled(stat_now: str, checked_ns: int) -> bool:
    mtime_ns = index_sources.signature_mtime(stat_now)
    return mtime_ns is None or mtime_ns < checked_ns - freshness.RACY_WINDOW_NS


def snapshot(conn: connection.Connection, project_id: int) -> list[tuple[object, ...]]:
    return sorted(
        conn.execute(
            "SELECT path, state, sha256, size, reason FROM checkout_files WHERE project_id = ?",
            (project_id,),
        ).fetchall()
    )
