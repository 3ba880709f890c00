"""Looking inside an index in a test: opened as every reader opens it, in the cache a test picks."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mem import index
from mem.index import connection, opening, portfolio, snapshots


@contextlib.contextmanager
def cache_at(directory: str | Path) -> Iterator[None]:
    """Point MEM_CACHE_DIR elsewhere for a block (hypothesis examples share one test's env)."""
    before = os.environ.get("MEM_CACHE_DIR")
    os.environ["MEM_CACHE_DIR"] = str(directory)
    try:
        yield
    finally:
        if before is None:
            del os.environ["MEM_CACHE_DIR"]
        else:
            os.environ["MEM_CACHE_DIR"] = before


@contextlib.contextmanager
def opened(
    root: Path | str, role: str = index.PROJECT, bm25: bool = False
) -> Iterator[index.Opened]:
    """The root's index in step with its files, as mem.index.answer opens it (a kept
    connection taken and given back), for a `with` block that looks inside it."""
    path = index.index_path(str(root), role, index.usable_cache_dir())
    if role == index.PORTFOLIO:
        conn, changes = portfolio.open_portfolio_index(str(root), path, None, bm25)
        found = index.Opened(conn, changes, {})
    else:
        found = opening.project_index(str(root), role, path, connection.take_kept(path), bm25)
    try:
        yield found
    finally:
        if role == index.PORTFOLIO:
            found.conn.close()
        else:
            connection.release(path, found.conn)


@contextlib.contextmanager
def synced(
    root: Path | str, role: str = index.PROJECT
) -> Iterator[tuple[index.Connection, object]]:
    """opened(), as (connection, what the sync did)."""
    with opened(root, role) as found:
        yield found.conn, found.changes


def changes(root: Path | str, role: str = index.PROJECT) -> Any:
    """What bringing the root's index in step with its files took (None: nothing)."""
    with opened(root, role) as found:
        return found.changes


def snapshot(root: Path | str, role: str = index.PROJECT) -> dict[str, object]:
    """Every row of the root's index, brought in step with its files first."""
    with synced(root, role) as (conn, _):
        return snapshots.snapshot(conn)


def fresh_snapshot(root: Path | str, cache: Path | str, role: str = index.PROJECT) -> object:
    """snapshot() of an index built in `cache` (a folder no index was built in yet)."""
    with cache_at(cache):
        return snapshot(root, role)


def assert_versions_resync_as_fresh(role: str, relative: str, versions: Iterable[bytes]) -> None:
    """Write each version of one file in turn: after each, the index re-synced since the first
    equals one built afresh from that version (an incremental sync leaves what a build makes)."""
    scratch = Path(tempfile.mkdtemp(prefix="mem-resync-"))
    try:
        root = scratch / "project"
        path = root / relative
        path.parent.mkdir(parents=True)
        for step, data in enumerate(versions):
            path.write_bytes(data)
            if step:
                stamp = (1_699_999_999 + step) * 10**9  # far in the past: the stat must notice
                os.utime(path, ns=(stamp, stamp))
            with cache_at(scratch / "incremental"):
                incremental = snapshot(root, role) if step else changes(root, role)
            if step:
                assert incremental == fresh_snapshot(root, scratch / f"fresh-{step}", role)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def all_notes_newest_first(conn: index.Connection, file_ids: list[int]) -> list[int]:
    """Every note of these files newest first, sorted here from all of them by the order
    mem.index.notes_by_recency documents: the later date a heading starts with (undated
    last), the later section, the file earlier in candidate order, then the lower id."""
    marks = ",".join(str(int(file_id)) for file_id in file_ids)
    rows = conn.execute(
        "SELECT r.id, r.ref, r.ordinal, f.rank FROM records AS r JOIN files AS f"
        f" ON f.id = r.file_id WHERE r.kind = 'note' AND r.file_id IN ({marks})"
    ).fetchall()

    def newest(row: tuple[int, str, int, int]) -> tuple[str, int, int, int]:
        record_id, ref, ordinal, rank = row
        date = ref[:10] if _DATE.fullmatch(ref[:10]) else ""
        return date, ordinal, -rank, -record_id  # sorted descending: each key as documented

    return [row[0] for row in sorted(rows, key=newest, reverse=True)]


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
