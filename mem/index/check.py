"""`mem index check|rebuild` and the cache part of `mem status`: the index is only a cache."""

from __future__ import annotations

from collections import Counter
from typing import Any

from mem import index
from mem.errors import MemError
from mem.files import host, index_sources
from mem.index import portfolio, sync

MAX_SHOWN = 20


def state(root: str) -> dict[str, Any]:
    """The project index as it is, without syncing it: missing, stale or fresh."""
    path = index.index_path(root, "project")
    conn = index.connect(path)
    result: dict[str, Any] = {"path": path, "schemaVersion": index.INDEX_VERSION}
    if conn is None:
        return {**result, "state": "missing", "files": 0, "entries": 0, "bytes": 0}
    try:
        work = sync.plan(
            index_sources.stat_sources(root, sync.specs_for(root, "project")), index.file_rows(conn)
        )
        counts = index.counts(conn)
    finally:
        conn.close()
    size = sum(
        info.st_size
        for suffix in ("", "-wal")
        if (info := host.file_info(path + suffix)) is not None
    )
    return {
        **result,
        "state": "fresh" if work.empty else "stale",
        "files": counts["files"],
        "entries": counts["records"],
        "bytes": size,
    }


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
    """Sync as every read does, then compare the index with a fresh build in a temp directory."""
    with sync.synced(root) as (conn, _):
        actual = index.snapshot(conn)
        path = conn.execute("PRAGMA database_list").fetchone()[2]
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
    return {
        "path": path,
        "ok": not found,
        "files": len(expected["files"]),
        "entries": len(expected["records"]),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
    }


def rebuild(root: str) -> dict[str, Any]:
    directory = index.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {index.cache_dir()}")
    path = index.index_path(root, "project", directory)
    with index.write_lock(path):
        index.remove(path)
        report = sync.build_fresh(root, "project", path)
    conn = index.connect(path)
    assert conn is not None, "a freshly built index must open"
    try:
        counts = index.counts(conn)
    finally:
        conn.close()
    return {
        "path": path,
        "files": counts["files"],
        "entries": counts["records"],
        "added": report.added,
    }


# ---- the portfolio index (`--portfolio`)


def portfolio_check(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    """As `check`, for the portfolio index of a brain: every root, compared with a fresh build."""
    with portfolio.synced(brain, progress) as (conn, _):
        actual = portfolio.snapshot(conn)
        path = conn.execute("PRAGMA database_list").fetchone()[2]
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
    return {
        "path": path,
        "ok": not found,
        "files": sum(len(rows) for key, rows in expected.items() if key.endswith(": files")),
        "entries": sum(len(rows) for key, rows in expected.items() if key.endswith(": records")),
        "differences": found[:MAX_SHOWN],
        "differenceCount": len(found),
    }


def portfolio_rebuild(brain: str, progress: portfolio.Progress | None = None) -> dict[str, Any]:
    directory = index.usable_cache_dir()
    if directory is None:
        raise MemError(f"The index cache directory is not writable: {index.cache_dir()}")
    path = portfolio.index_path(brain, directory)
    with index.write_lock(path):
        index.remove(path)
        portfolio.build_fresh(brain, path, progress)
    conn = index.connect(path)
    assert conn is not None, "a freshly built index must open"
    try:
        counts = index.counts(conn)
    finally:
        conn.close()
    return {
        "path": path,
        "files": counts["files"],
        "entries": counts["records"],
        "added": counts["files"],
    }


def portfolio_path(brain: str, progress: portfolio.Progress | None = None) -> str:
    """Where the portfolio index lives, after bringing it up to date."""
    with portfolio.synced(brain, progress) as (conn, _):
        path: str = conn.execute("PRAGMA database_list").fetchone()[2]
    return path
