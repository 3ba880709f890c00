"""The portfolio's freshness check stats every root at once and still names each stale root."""

from __future__ import annotations

import os
from pathlib import Path

import index_support
from portfolio_support import age, audited_portfolio, cache_at

from mem import index
from mem.files import index_sources
from mem.index import portfolio


def test_one_batch_of_stat_calls_gives_each_roots_own_signature(tmp_path: Path) -> None:
    roots = []
    for number in range(3):
        root = tmp_path / f"root-{number}"
        (root / "memory").mkdir(parents=True)
        (root / "memory" / "notes.md").write_text(f"notes {number}\n")
        roots.append(root)
    # A dangling link is watched (it is there) but cannot be stat'ed; a path can vanish.
    (roots[1] / "memory" / "linked.md").symlink_to(tmp_path / "nowhere.md")
    watched = ["memory", "memory/linked.md", "memory/notes.md", "memory/gone.md"]
    each = [index_sources.watch_signature(str(root), watched) for root in roots]
    paths = [path for root in roots for path in index_sources.watched_files(str(root), watched)]
    assert index_sources.watch_signatures(paths) == b"".join(each)
    assert all(len(one) == len(watched) * index_sources.SIGNATURE_BYTES for one in each)


def _stale_after(tmp_path: Path, change: str) -> set[int] | None:
    brain, roots = audited_portfolio(tmp_path)
    real_brain = str(brain.resolve())
    with cache_at(str(tmp_path / "cache")):
        with index_support.synced(real_brain, index.PORTFOLIO) as (conn, _):
            by_path = {row.path: row.id for row in index.project_rows(conn)}
        age(tmp_path / "cache")
        target = roots[1] / ".agents/memory/lessons.md"
        if change == "edit in place":
            before = target.stat()
            with target.open("r+b") as handle:  # same size, same mtime: only ctime moves
                handle.write(b"#")
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        elif change == "new store":
            (roots[1] / ".bmad/memory/lifecycle.ndjson").write_text("")
        conn = index.connect(portfolio.index_path(real_brain, str(tmp_path / "cache")))
        assert conn is not None
        try:
            stale = portfolio._stale_roots(conn, real_brain)
        finally:
            conn.close()
    if stale:
        assert stale == {by_path[str(roots[1].resolve())]}
    return stale


def test_nothing_changed_is_fresh(tmp_path: Path) -> None:
    assert _stale_after(tmp_path, "nothing") is None


def test_an_edit_that_keeps_size_and_mtime_makes_only_its_root_stale(tmp_path: Path) -> None:
    assert _stale_after(tmp_path, "edit in place")


def test_a_new_store_in_a_watched_folder_makes_only_its_root_stale(tmp_path: Path) -> None:
    assert _stale_after(tmp_path, "new store")
