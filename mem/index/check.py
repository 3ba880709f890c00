"""`mem index check|rebuild` and the cache part of `mem status`: the index is only a cache."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.text import ndjson
from mem.errors import MemError
from mem.files import archives, index_sources, machine_paths, safe_paths
from mem.index import (
    building,
    connection,
    freshness,
    history,
    location,
    opening,
    portfolio,
    queries,
    snapshots,
    sync,
)
from mem.index.rows import file_rows, project_rows

MAX_SHOWN = 20
# What store_findings reports, by its key.
FINDINGS = ("sharedIds", "damagedLines", "interruptedArchives", "archivedLines")


def state(root: str) -> dict[str, Any]:
    """The project index as it is, without syncing it: missing, damaged, stale or fresh.

    Fresh means what it means to recall: syncing would change no row (a racily clean file
    whose bytes hash as indexed only has its stat data refreshed).
    """
    path = location.index_path(root, "project")
    result: dict[str, Any] = {"path": path, "schemaVersion": location.INDEX_VERSION}
    if location.usable_cache_dir() is None:
        # Not damage: reads answer from a temporary index, and leave whatever is there.
        return {**result, "state": "unwritable", "files": 0, "entries": 0, "bytes": 0}
    try:
        return {**result, **_cached_state(root, path)}
    except opening.FAULTS as error:
        found = {"state": "damaged", "error": opening.describe(error)}
        return {**result, **found, "files": 0, "entries": 0, "bytes": 0}


def _cached_state(root: str, path: str) -> dict[str, Any]:
    conn = connection.connect(path)
    if conn is None:
        # A file at the index's own name that does not open as this version is damage.
        state = "damaged" if machine_paths.file_info(path) is not None else "missing"
        return {"state": state, "files": 0, "entries": 0, "bytes": 0}
    try:
        indexed = file_rows(conn)
        sources = index_sources.stat_sources(root, freshness.specs_for(root, "project"))
        changes = sync.would_change(freshness.plan(sources, indexed), indexed)
        counts = queries.counts(conn)
    finally:
        conn.close()
    size = sum(
        info.st_size
        for suffix in ("", "-wal")
        if (info := machine_paths.file_info(path + suffix)) is not None
    )
    return {
        "state": "stale" if changes else "fresh",
        "files": counts["files"],
        "entries": counts["records"],
        "bytes": size,
    }


def store_findings(root: str) -> dict[str, list[dict[str, Any]]]:
    """What readers skip or cannot tell apart in the NDJSON stores, for `index check` and
    `mem status`: lines that do not parse as a JSON object (deviation D11's "different lines
    sharing an id" too). Reported, never repaired: the stores belong to people."""
    shared: list[dict[str, Any]] = []
    damaged: list[dict[str, Any]] = []
    for spec in freshness.specs_for(root, "project"):
        if not spec.relative.endswith(".ndjson") or spec.kind == freshness.ARCHIVE_KIND:
            continue  # an archive of a store other than the journal is read by nobody
        data = safe_paths.read_plain(root, spec.relative)
        if not data:
            continue
        content = data.decode("utf-8", errors="replace")
        shared += [{"file": spec.relative, **found} for found in ndjson.shared_ids(content)]
        damaged += [
            {"file": spec.relative, "line": number, "reason": reason}
            for number, reason in ndjson.damaged_lines(content)
        ]
    return {"sharedIds": shared, "damagedLines": damaged, **archive_findings(root)}


def archive_findings(root: str) -> dict[str, list[dict[str, Any]]]:
    """Deviation D14: stores that are still the file of one of their archives (a `mem
    archive` stopped between link and unlink), and lines of a live store its archives hold
    (a merge brought them back), which readers count in the archive only."""
    linked: list[dict[str, Any]] = []
    repeated: list[dict[str, Any]] = []
    for name, relative in layout.ARCHIVABLE.items():
        archive = archives.linked_archive(root, relative)
        if archive is not None:
            linked.append({"store": name, "file": relative, "archive": archive})
            continue
        data = safe_paths.read_plain(root, relative)
        lines = archives.archived_lines(root, relative) if data else frozenset()
        if data and lines:
            content = data.decode("utf-8", errors="replace")
            count = sum(1 for _, line in ndjson.distinct_lines(content) if js.trim(line) in lines)
            if count:
                repeated.append({"store": name, "file": relative, "lines": count})
    return {"interruptedArchives": linked, "archivedLines": repeated}


def differences(actual: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Pure: what the index holds that a fresh build would not, and the reverse."""
    found = []
    for table in expected:
        have = Counter(actual.get(table, []))
        want = Counter(expected[table])
        found += [
            f"{table}: unexpected {row!r}" for row in sorted((have - want).elements(), key=repr)
        ]
        found += [f"{table}: missing {row!r}" for row in sorted((want - have).elements(), key=repr)]
    return found


def check(root: str) -> dict[str, Any]:
    """Sync as every read does, run SQLite's own integrity checks, then compare the index
    with a fresh build in a temp directory. A damaged index is reported and rebuilt."""

    path = location.index_path(root, "project")
    commits = _kept_history(path)

    def inspect(open_index: opening.OpenIndex) -> tuple[dict[str, Any], bool, bool]:
        opened = open_index(root, history=commits)
        check_integrity(opened.conn)
        found = snapshots.snapshot(opened.conn)
        if commits:
            found.update(snapshots.commits_snapshot(opened.conn))
        return found, opened.cached, connection.has_bm25(opened.conn)

    before = state(root)
    (actual, cached, bm25), fault = opening.healed(inspect)
    if fault is None and before["state"] == "damaged":
        # Opening already replaced it (a file that is not an index of this version).
        fault = before.get("error", "the file does not open as an index of this version")
    with building.temporary_directory() as scratch:
        fresh_path = location.index_path(root, "project", scratch)
        sync.build_fresh(root, "project", fresh_path, bm25)  # as the index was built
        fresh = connection.connect(fresh_path)
        assert fresh is not None, "a freshly built index must open"
        try:
            expected: dict[str, Any] = snapshots.snapshot(fresh)
            if commits:  # read from HEAD afresh, as the index keeps them (docs/history.md)
                history.sync(fresh, root)
                expected.update(snapshots.commits_snapshot(fresh))
        finally:
            fresh.close()
    found = differences(actual, expected)
    found[:0] = _cache_faults(path, cached, fault)
    findings = store_findings(root)
    return {
        "path": path,
        "cached": cached,
        "ok": not found,
        "files": len(expected["files"]),
        "entries": len(expected["records"]),
        **({"commits": len(expected["commits"])} if commits else {}),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
        "sharedIds": findings["sharedIds"][:MAX_SHOWN],
        "damagedLines": findings["damagedLines"][:MAX_SHOWN],
        "interruptedArchives": findings["interruptedArchives"],
        "archivedLines": findings["archivedLines"],
    }


def rebuild(root: str) -> dict[str, Any]:
    directory = location.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {location.cache_dir()}")
    path = location.index_path(root, "project", directory)
    return _rebuilt(path, lambda: _build(root, path).added)


def _build(root: str, path: str) -> sync.FileChanges:
    with building.write_lock(path):
        bm25 = _kept_bm25(path)
        building.remove(path)
        return sync.build_fresh(root, "project", path, bm25)


def _kept_history(path: str) -> bool:
    """Whether the index at `path` holds the project's commits (a read with history made
    it): then check compares them with a fresh read of the history too."""
    try:
        conn = connection.connect(path)
        if conn is None:
            return False
        try:
            return conn.execute("SELECT 1 FROM history").fetchone() is not None
        finally:
            conn.close()
    except opening.FAULTS:
        return False  # damaged (a directory there, random bytes): the check reports it


def _kept_bm25(path: str) -> bool:
    """Whether the index at `path` keeps bm25's postings: a rebuild keeps them too (else
    the next bm25 read would build it once more)."""
    conn = connection.connect(path)
    if conn is None:
        return False
    try:
        return connection.has_bm25(conn)
    finally:
        conn.close()


# ---- the portfolio index (`--portfolio`)


def portfolio_check(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    """As `check`, for the portfolio index of a brain: every root, compared with a fresh build."""

    def inspect(open_index: opening.OpenIndex) -> tuple[dict[str, Any], bool, list[str], bool]:
        opened = open_index(brain, location.PORTFOLIO)
        check_integrity(opened.conn)
        roots = [row.path for row in project_rows(opened.conn) if row.role == "project"]
        bm25 = connection.has_bm25(opened.conn)
        return portfolio.snapshot(opened.conn), opened.cached, roots, bm25

    path = location.index_path(brain, location.PORTFOLIO)
    (actual, cached, roots, bm25), fault = opening.healed(inspect, progress)
    with building.temporary_directory() as scratch:
        fresh_path = location.index_path(brain, location.PORTFOLIO, scratch)
        portfolio.build_portfolio(brain, fresh_path, bm25=bm25)  # as the index was built
        fresh = connection.connect(fresh_path)
        assert fresh is not None, "a freshly built index must open"
        try:
            expected = portfolio.snapshot(fresh)
        finally:
            fresh.close()
    for key in set(actual) - set(expected):
        expected[key] = []  # a root the fresh build does not have at all
    found = differences(actual, dict(expected))
    found[:0] = _cache_faults(path, cached, fault)
    found_in_roots: dict[str, list[dict[str, Any]]] = {key: [] for key in FINDINGS}
    for root in roots:
        if index_sources.is_folder(root):
            findings = store_findings(root)
            for key in FINDINGS:
                found_in_roots[key] += [{**item, "project": root} for item in findings[key]]
    return {
        "path": path,
        "cached": cached,
        "ok": not found,
        "files": sum(len(rows) for key, rows in expected.items() if key.endswith(": files")),
        "entries": sum(len(rows) for key, rows in expected.items() if key.endswith(": records")),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
        "sharedIds": found_in_roots["sharedIds"][:MAX_SHOWN],
        "damagedLines": found_in_roots["damagedLines"][:MAX_SHOWN],
        "interruptedArchives": found_in_roots["interruptedArchives"][:MAX_SHOWN],
        "archivedLines": found_in_roots["archivedLines"][:MAX_SHOWN],
    }


def portfolio_rebuild(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    directory = location.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {location.cache_dir()}")
    path = location.index_path(brain, location.PORTFOLIO, directory)
    return _rebuilt(path, lambda: _build_portfolio(brain, path, progress))


def _rebuilt(path: str, build: Callable[[], int | None]) -> dict[str, Any]:
    """Build the index at `path` afresh, once more after clearing what stood in the way
    (a directory at its name or its lock's); what it holds then."""
    try:
        return _built_and_counted(path, build)
    except opening.FAULTS:
        opening.discard(path)
    try:
        return _built_and_counted(path, build)
    except opening.FAULTS as error:
        raise MemError(f"The index cannot be built at {path}: {opening.describe(error)}") from None


def _built_and_counted(path: str, build: Callable[[], int | None]) -> dict[str, Any]:
    """`build` returns the rows it added, or None to count the files."""
    added = build()
    conn = connection.connect_built(path)
    try:
        counts = queries.counts(conn)
    finally:
        conn.close()
    return {
        "path": path,
        "files": counts["files"],
        "entries": counts["records"],
        "added": counts["files"] if added is None else added,
    }


def _build_portfolio(brain: str, path: str, progress: portfolio.Progress | None) -> None:
    with building.write_lock(path):
        bm25 = _kept_bm25(path)
        building.remove(path)
        portfolio.build_portfolio(brain, path, progress, bm25)


def cached_path(root: str, role: str, progress: portfolio.Progress | None = None) -> str:
    """Where the index of a root lives, after bringing it up to date (healed if damaged).

    Refused when the cache cannot hold it: the answers then come from a temporary index,
    gone when the command ends, and a path to nothing would only mislead.
    """
    cached, fault = opening.healed(lambda open_index: open_index(root, role).cached, progress)
    path = location.index_path(root, role)
    if not cached:
        raise MemError(
            f"The index cannot be kept at {path}: {_not_kept_reason(fault)}."
            " Every read answers from a temporary index instead."
        )
    return path


def portfolio_path(brain: str, progress: portfolio.Progress | None = None) -> str:
    return cached_path(brain, location.PORTFOLIO, progress)


def _cache_faults(path: str, cached: bool, fault: str | None) -> list[str]:
    """What `index check` reports of the cache itself, before the differences."""
    if not cached:
        return [
            f"index: not kept at {path} ({_not_kept_reason(fault)}); this check, like every"
            " read, used a temporary index"
        ]
    if fault is not None:
        return [f"index: damaged ({fault}); it was discarded and rebuilt"]
    return []


def _not_kept_reason(fault: str | None) -> str:
    """Why a read had to use a temporary index: the error the cache gave twice, or (when
    there was none) a cache directory that cannot be written at all."""
    if fault is not None:
        return fault
    return f"{location.cache_dir()} cannot be written"


def check_integrity(conn: connection.Connection) -> None:
    """Raise sqlite3.DatabaseError when SQLite's own checks find the index damaged."""
    problems = integrity_problems(conn)
    if problems:
        raise sqlite3.DatabaseError("integrity check failed: " + "; ".join(problems[:5]))


_FTS5_TABLE = re.compile(r"CREATE VIRTUAL TABLE .* USING fts5\s*\(", re.IGNORECASE | re.DOTALL)


def integrity_problems(conn: connection.Connection) -> list[str]:
    """What SQLite's own checks find wrong: PRAGMA integrity_check, and each FTS5 table's."""
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
    tables = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).fetchall()
    for name, sql in tables:
        if not _FTS5_TABLE.match(sql or ""):
            continue  # fts5vocab and plain tables have no integrity-check command
        try:
            conn.execute(f'INSERT INTO "{name}" ("{name}") VALUES (\'integrity-check\')')
        except sqlite3.DatabaseError as error:
            problems.append(f"{name}: {error}")
    return problems
