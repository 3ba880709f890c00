"""A portfolio whose roots all settled is checked in one query, and never answers stale."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from portfolio_support import (
    NOW,
    age_tree,
    audited_portfolio,
    audited_project,
    cache_at,
    register,
    write,
)

from mem import index
from mem.commands import recall
from mem.files import index_sources
from mem.index import portfolio


def _found(brain: Path, query: str) -> set[tuple[str, str]]:
    """(project name, text) of every `recall --scope all` result."""
    request = recall.Request(query, scope="all", portfolio=str(brain), limit="1000")
    answer = recall.recall_portfolio(str(brain), request, NOW)
    return {(entry["projectName"], entry["text"]) for entry in answer.entries}


def _quick(brain: Path, cache: Path) -> tuple[bool, set[int] | None]:
    """(decided, stale roots) as the one-query check gives them, nothing synced."""
    conn = index.connect(portfolio.index_path(str(brain.resolve()), str(cache)))
    assert conn is not None
    try:
        return portfolio._quick_check(conn, str(brain.resolve()))
    finally:
        conn.close()


def _settled_portfolio(tmp_path: Path) -> tuple[Path, list[Path]]:
    brain, roots = audited_portfolio(tmp_path)
    shutil.rmtree(roots[2])  # a registered project that disappeared
    return brain, roots


def test_nothing_changed_is_answered_by_the_quick_check(tmp_path: Path) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        _found(brain, "pgbouncer")
        assert _quick(brain, tmp_path / "cache") == (True, None)


def test_an_edit_after_a_quick_check_is_found(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        assert not _found(brain, "zeppelin")
        assert _quick(brain, tmp_path / "cache") == (True, None)
        write(roots[1] / ".agents/memory/decisions.md", "# Decisions\n\n### Zeppelin\nfly it\n")
        age_tree(roots[1])  # the new file's folder too: then the root settles at this sync
        decided, stale = _quick(brain, tmp_path / "cache")
        assert decided and stale is not None and len(stale) == 1
        assert _found(brain, "zeppelin") == {("project-1", "Zeppelin\nfly it")}
        assert _quick(brain, tmp_path / "cache") == (True, None)


def test_a_missing_project_that_comes_back_is_found(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        before = _found(brain, "pgbouncer")
        assert not any(name == "project-2" for name, _ in before)
        assert _quick(brain, tmp_path / "cache") == (True, None)
        audited_project(roots[2], "project-2")
        age_tree(roots[2])
        assert any(name == "project-2" for name, _ in _found(brain, "pgbouncer"))


def test_a_newly_registered_project_is_found(tmp_path: Path) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        _found(brain, "pgbouncer")
        assert _quick(brain, tmp_path / "cache") == (True, None)
        newcomer = tmp_path / "newcomer"
        write(newcomer / ".bmad/memory/lessons.md", "# Lessons\n\n### Zeppelin\nfly it\n")
        age_tree(newcomer)
        register(brain, newcomer.resolve(), name="newcomer")
        assert _found(brain, "zeppelin") == {("newcomer", "Zeppelin\nfly it")}


def test_an_index_without_the_quick_rows_gains_them_and_stays_exact(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        _found(brain, "pgbouncer")
        # As an index synced before these rows were kept.
        conn = index.connect(portfolio.index_path(str(brain.resolve()), str(cache)))
        assert conn is not None
        with index.transaction(conn):
            conn.execute("DELETE FROM meta WHERE key LIKE 'watched_%'")
        conn.close()
        assert _quick(brain, cache) == (False, None)
        _found(brain, "pgbouncer")
        assert _quick(brain, cache) == (True, None)
        write(roots[0] / ".bmad/memory/decisions.md", "# Decisions\n\n### Zeppelin\nland it\n")
        assert _found(brain, "zeppelin") == {("project-0", "Zeppelin\nland it")}


def test_a_root_too_recent_to_trust_stays_stale_and_the_batch_decides_for_the_others(
    tmp_path: Path,
) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        _found(brain, "pgbouncer")
        # Written just now: its stat cannot vouch for its bytes until it settles, so it is
        # read again at every check until then; the other roots are decided by the batch
        # (not root by root: a second batch after every write).
        (roots[0] / ".bmad/memory/decisions.md").write_text("# Decisions\n\n### Zeppelin\nx\n")
        assert _found(brain, "zeppelin") == {("project-0", "Zeppelin\nx")}
        decided, stale = _quick(brain, tmp_path / "cache")
        assert decided and stale is not None and len(stale) == 1
        write(roots[1] / ".agents/memory/lessons.md", "# Lessons\n\n### Airship\nland it\n", 7)
        decided, stale = _quick(brain, tmp_path / "cache")
        assert decided and stale is not None and len(stale) == 2
        assert _found(brain, "airship") == {("project-1", "Airship\nland it")}


def test_a_source_that_appears_is_watched_by_the_next_quick_check(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        _found(brain, "pgbouncer")
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Zeppelin\nfly it\n")
        age_tree(roots[0])
        assert _found(brain, "zeppelin") == {("project-0", "Zeppelin\nfly it")}
        assert _quick(brain, tmp_path / "cache") == (True, None)
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Dirigible\nland\n")
        decided, stale = _quick(brain, tmp_path / "cache")
        assert decided and stale is not None and len(stale) == 1
        assert _found(brain, "dirigible") == {("project-0", "Dirigible\nland")}


def test_a_recall_leaves_the_quick_rows_to_a_later_one_while_another_writer_holds_the_index(
    tmp_path: Path,
) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        expected = _found(brain, "pgbouncer")
        path = portfolio.index_path(str(brain.resolve()), str(cache))
        writer = index.connect(path)
        assert writer is not None
        with index.transaction(writer):
            writer.execute("DELETE FROM meta WHERE key LIKE 'watched_%'")
        try:
            writer.execute("BEGIN IMMEDIATE")
            assert _found(brain, "pgbouncer") == expected
            assert _quick(brain, cache) == (False, None)
            writer.execute("COMMIT")
        finally:
            writer.close()
        assert _found(brain, "pgbouncer") == expected
        assert _quick(brain, cache) == (True, None)


SIZE = index_sources.SIGNATURE_BYTES
# A layout entry: a root whose paths the batch stats (how many, and which of them changed),
# or a missing project (None: whether its folder is back).
root_entry = st.one_of(
    st.tuples(st.integers(0, 4), st.sets(st.integers(0, 3))),
    st.booleans().map(lambda back: (None, back)),
)


@given(entries=st.lists(root_entry, min_size=1, max_size=40), brain_at=st.integers(0, 39))
def test_halving_the_batch_finds_exactly_the_roots_whose_part_changed(
    entries: list[tuple[int | None, set[int] | bool]], brain_at: int
) -> None:
    layout, kept, now, missing, back_ids = [], b"", b"", [], set()
    expected: set[int] = set()
    brain_changed = False
    brain_id = str(100 + brain_at)
    for position, (count, changes) in enumerate(entries):
        root = 100 + position
        if count is None:
            layout.append(f"{root}:-")
            missing.append(b"/" if changes else b"/nowhere/at/all")
            if changes:
                back_ids.add(root)
            continue
        layout.append(f"{root}:{count}")
        part = bytes([position % 251]) * (count * SIZE)
        changed = bytearray(part)
        for path in changes:
            if path < count:
                changed[path * SIZE] ^= 0xFF
        kept, now = kept + part, now + bytes(changed)
        if bytes(changed) != part:
            if str(root) == brain_id:
                brain_changed = True
            expected.add(root)
    verdict = portfolio._differing_roots(",".join(layout), brain_id, now, kept, missing)
    if brain_changed:
        assert verdict == (True, set())
    else:
        assert verdict == (True, (expected | back_ids) or None)
