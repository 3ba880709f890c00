"""`mem index check|rebuild` and the cache part of `mem status`: the index is only a cache."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from mem import index
from mem.core import ndjson
from mem.errors import MemError
from mem.files import index_sources, machine_paths, safe_paths
from mem.index import healing, portfolio, sync

MAX_SHOWN = 20


def state(root: str) -> dict[str, Any]:
    """The project index as it is, without syncing it: missing, damaged, stale or fresh.

    Fresh means what it means to recall: syncing would change no row (a racily clean file
    whose bytes hash as indexed only has its stat data refreshed).
    """
    path = index.index_path(root, "project")
    result: dict[str, Any] = {"path": path, "schemaVersion": index.INDEX_VERSION}
    try:
        return {**result, **_cached_state(root, path)}
    except healing.FAULTS as error:
        found = {"state": "damaged", "error": healing.describe(error)}
        return {**result, **found, "files": 0, "entries": 0, "bytes": 0}


def _cached_state(root: str, path: str) -> dict[str, Any]:
    conn = index.connect(path)
    if conn is None:
        # A file at the index's own name that does not open as this version is damage.
        state = "damaged" if machine_paths.file_info(path) is not None else "missing"
        return {"state": state, "files": 0, "entries": 0, "bytes": 0}
    try:
        indexed = index.file_rows(conn)
        sources = index_sources.stat_sources(root, sync.specs_for(root, "project"))
        changes = sync.would_change(sync.plan(sources, indexed), indexed)
        counts = index.counts(conn)
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
    for spec in sync.specs_for(root, "project"):
        if not spec.relative.endswith(".ndjson"):
            continue
        data = safe_paths.read_plain(root, spec.relative)
        if not data:
            continue
        content = data.decode("utf-8", errors="replace")
        shared += [{"file": spec.relative, **found} for found in ndjson.shared_ids(content)]
        damaged += [
            {"file": spec.relative, "line": number, "reason": reason}
            for number, reason in ndjson.damaged_lines(content)
        ]
    return {"sharedIds": shared, "damagedLines": damaged}


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

    def inspect(open_index: healing.Opener) -> tuple[dict[str, Any], str]:
        with open_index(root, "project") as synced:
            conn = synced.conn
            healing.check_integrity(conn)
            path: str = conn.execute("PRAGMA database_list").fetchone()[2]
            return index.snapshot(conn), path

    before = state(root)
    (actual, path), fault = healing.healed(inspect)
    if fault is None and before["state"] == "damaged":
        # Opening already replaced it (a file that is not an index of this version).
        fault = before.get("error", "the file does not open as an index of this version")
    with index.temporary_directory() as scratch:
        fresh_path = index.index_path(root, "project", scratch)
        sync.build_fresh(root, "project", fresh_path)
        fresh = index.connect(fresh_path)
        assert fresh is not None, "a freshly built index must open"
        try:
            expected: dict[str, Any] = index.snapshot(fresh)
        finally:
            fresh.close()
    found = differences(actual, expected)
    if fault is not None:
        found.insert(0, f"index: damaged ({fault}); it was discarded and rebuilt")
    findings = store_findings(root)
    return {
        "path": path,
        "ok": not found,
        "files": len(expected["files"]),
        "entries": len(expected["records"]),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
        "sharedIds": findings["sharedIds"][:MAX_SHOWN],
        "damagedLines": findings["damagedLines"][:MAX_SHOWN],
    }


def rebuild(root: str) -> dict[str, Any]:
    directory = index.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {index.cache_dir()}")
    path = index.index_path(root, "project", directory)
    return _rebuilt(path, lambda: _build(root, path).added)


def _build(root: str, path: str) -> sync.Report:
    with index.write_lock(path):
        index.remove(path)
        return sync.build_fresh(root, "project", path)


# ---- the portfolio index (`--portfolio`)


def portfolio_check(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    """As `check`, for the portfolio index of a brain: every root, compared with a fresh build."""

    def inspect(open_index: healing.Opener) -> tuple[dict[str, Any], str, list[str]]:
        with open_index(brain, portfolio.ROLE) as (conn, _):
            healing.check_integrity(conn)
            path: str = conn.execute("PRAGMA database_list").fetchone()[2]
            roots = [row.path for row in index.project_rows(conn) if row.role == "project"]
            return portfolio.snapshot(conn), path, roots

    (actual, path, roots), fault = healing.healed(inspect, portfolio.opener(progress))
    with index.temporary_directory() as scratch:
        fresh_path = portfolio.index_path(brain, scratch)
        portfolio.build_fresh(brain, fresh_path)
        fresh = index.connect(fresh_path)
        assert fresh is not None, "a freshly built index must open"
        try:
            expected = portfolio.snapshot(fresh)
        finally:
            fresh.close()
    for key in set(actual) - set(expected):
        expected[key] = []  # a root the fresh build does not have at all
    found = differences(actual, dict(expected))
    if fault is not None:
        found.insert(0, f"index: damaged ({fault}); it was discarded and rebuilt")
    shared: list[dict[str, Any]] = []
    damaged: list[dict[str, Any]] = []
    for root in roots:
        if index_sources.is_folder(root):
            findings = store_findings(root)
            shared += [{**item, "project": root} for item in findings["sharedIds"]]
            damaged += [{**item, "project": root} for item in findings["damagedLines"]]
    return {
        "path": path,
        "ok": not found,
        "files": sum(len(rows) for key, rows in expected.items() if key.endswith(": files")),
        "entries": sum(len(rows) for key, rows in expected.items() if key.endswith(": records")),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
        "sharedIds": shared[:MAX_SHOWN],
        "damagedLines": damaged[:MAX_SHOWN],
    }


def portfolio_rebuild(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    directory = index.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {index.cache_dir()}")
    path = portfolio.index_path(brain, directory)
    return _rebuilt(path, lambda: _build_portfolio(brain, path, progress))


def _rebuilt(path: str, build: Callable[[], int | None]) -> dict[str, Any]:
    """Build the index at `path` afresh, once more after clearing what stood in the way
    (a directory at its name or its lock's); what it holds then."""
    try:
        return _built_and_counted(path, build)
    except healing.FAULTS:
        healing.discard(path)
    try:
        return _built_and_counted(path, build)
    except healing.FAULTS as error:
        raise MemError(f"The index cannot be built at {path}: {healing.describe(error)}") from None


def _built_and_counted(path: str, build: Callable[[], int | None]) -> dict[str, Any]:
    """`build` returns the rows it added, or None to count the files."""
    added = build()
    conn = index.connect_built(path)
    try:
        counts = index.counts(conn)
    finally:
        conn.close()
    return {
        "path": path,
        "files": counts["files"],
        "entries": counts["records"],
        "added": counts["files"] if added is None else added,
    }


def _build_portfolio(brain: str, path: str, progress: portfolio.Progress | None) -> None:
    with index.write_lock(path):
        index.remove(path)
        portfolio.build_fresh(brain, path, progress)


def portfolio_path(brain: str, progress: portfolio.Progress | None = None) -> str:
    """Where the portfolio index lives, after bringing it up to date (healed if damaged)."""

    def where(conn: index.Connection) -> str:
        path: str = conn.execute("PRAGMA database_list").fetchone()[2]
        return path

    return portfolio.answer(brain, where, progress)
