"""A portfolio whose roots all settled is checked in one query, and never answers stale."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from portfolio_support import (
    age_tree,
    audited_portfolio,
    audited_project,
    cache_at,
    found_texts,
    quick_check,
    register,
    write,
)

from mem import index
from mem.files import index_sources
from mem.index import building, portfolio


def _settled_portfolio(tmp_path: Path) -> tuple[Path, list[Path]]:
    brain, roots = audited_portfolio(tmp_path)
    shutil.rmtree(roots[2])  # a registered project that disappeared
    return brain, roots


def test_nothing_changed_is_answered_by_the_quick_check(tmp_path: Path) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)


def test_an_edit_after_a_quick_check_isfound_texts(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        assert not found_texts(brain, "zeppelin")
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)
        write(roots[1] / ".agents/memory/decisions.md", "# Decisions\n\n### Zeppelin\nfly it\n")
        age_tree(roots[1])  # the new file's folder too: then the root settles at this sync
        decided, stale = quick_check(brain, tmp_path / "cache")[0]
        assert decided and stale is not None and len(stale) == 1
        assert found_texts(brain, "zeppelin") == {("project-1", "Zeppelin\nfly it")}
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)


def test_a_missing_project_that_comes_back_isfound_texts(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        before = found_texts(brain, "pgbouncer")
        assert not any(name == "project-2" for name, _ in before)
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)
        audited_project(roots[2], "project-2")
        age_tree(roots[2])
        assert any(name == "project-2" for name, _ in found_texts(brain, "pgbouncer"))


def test_a_newly_registered_project_isfound_texts(tmp_path: Path) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)
        newcomer = tmp_path / "newcomer"
        write(newcomer / ".bmad/memory/lessons.md", "# Lessons\n\n### Zeppelin\nfly it\n")
        age_tree(newcomer)
        register(brain, newcomer.resolve(), name="newcomer")
        assert found_texts(brain, "zeppelin") == {("newcomer", "Zeppelin\nfly it")}


def test_an_index_without_the_quick_rows_gains_them_and_stays_exact(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        found_texts(brain, "pgbouncer")
        # As an index synced before these rows were kept.
        conn = index.connect(portfolio.index_path(str(brain.resolve()), str(cache)))
        assert conn is not None
        with building.transaction(conn):
            conn.execute("DELETE FROM meta WHERE key LIKE 'watched_%'")
        conn.close()
        assert quick_check(brain, cache)[0] == (False, None)
        found_texts(brain, "pgbouncer")
        assert quick_check(brain, cache)[0] == (True, None)
        write(roots[0] / ".bmad/memory/decisions.md", "# Decisions\n\n### Zeppelin\nland it\n")
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nland it")}


def test_a_root_too_recent_to_trust_stays_stale_and_the_batch_decides_for_the_others(
    tmp_path: Path,
) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        # Written just now: its stat cannot vouch for its bytes until it settles, so it is
        # read again at every check until then; the other roots are decided by the batch
        # (not root by root: a second batch after every write).
        (roots[0] / ".bmad/memory/decisions.md").write_text("# Decisions\n\n### Zeppelin\nx\n")
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nx")}
        decided, stale = quick_check(brain, tmp_path / "cache")[0]
        assert decided and stale is not None and len(stale) == 1
        write(roots[1] / ".agents/memory/lessons.md", "# Lessons\n\n### Airship\nland it\n", 7)
        decided, stale = quick_check(brain, tmp_path / "cache")[0]
        assert decided and stale is not None and len(stale) == 2
        assert found_texts(brain, "airship") == {("project-1", "Airship\nland it")}


def test_a_source_that_appears_is_watched_by_the_next_quick_check(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Zeppelin\nfly it\n")
        age_tree(roots[0])
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nfly it")}
        assert quick_check(brain, tmp_path / "cache")[0] == (True, None)
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Dirigible\nland\n")
        decided, stale = quick_check(brain, tmp_path / "cache")[0]
        assert decided and stale is not None and len(stale) == 1
        assert found_texts(brain, "dirigible") == {("project-0", "Dirigible\nland")}


def test_a_recall_leaves_the_quick_rows_to_a_later_one_while_another_writer_holds_the_index(
    tmp_path: Path,
) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        expected = found_texts(brain, "pgbouncer")
        path = portfolio.index_path(str(brain.resolve()), str(cache))
        writer = index.connect(path)
        assert writer is not None
        with building.transaction(writer):
            writer.execute("DELETE FROM meta WHERE key LIKE 'watched_%'")
        try:
            writer.execute("BEGIN IMMEDIATE")
            assert found_texts(brain, "pgbouncer") == expected
            assert quick_check(brain, cache)[0] == (False, None)
            writer.execute("COMMIT")
        finally:
            writer.close()
        assert found_texts(brain, "pgbouncer") == expected
        assert quick_check(brain, cache)[0] == (True, None)


SIZE = index_sources.SIGNATURE_BYTES
# A layout entry: a root whose paths the batch stats (how many, and which of them changed),
# or a missing project (no count: whether its folder is back).
root_entry = st.tuples(
    st.one_of(st.none(), st.integers(0, 4)), st.sets(st.integers(0, 3)), st.booleans()
)


@given(entries=st.lists(root_entry, min_size=1, max_size=40), brain_at=st.integers(0, 39))
def test_halving_the_batch_finds_exactly_the_roots_whose_part_changed(
    entries: list[tuple[int | None, set[int], bool]], brain_at: int
) -> None:
    layout: list[str] = []
    missing: list[bytes] = []
    kept = now = b""
    expected: set[int] = set()
    brain_changed = False
    brain_id = str(100 + brain_at)
    for position, (count, changes, back) in enumerate(entries):
        root = 100 + position
        if count is None:
            layout.append(f"{root}:-")
            missing.append(b"/" if back else b"/nowhere/at/all")
            if back:
                expected.add(root)
            continue
        layout.append(f"{root}:{count}")
        part = bytes([position % 251]) * (count * SIZE)
        changed = bytearray(part)
        for path in changes:
            if path < count:
                changed[path * SIZE] ^= 0xFF
        kept, now = kept + part, now + bytes(changed)
        if bytes(changed) != part:
            brain_changed = brain_changed or str(root) == brain_id
            expected.add(root)
    verdict = portfolio._differing_roots(",".join(layout), brain_id, now, kept, missing)
    if brain_changed:
        assert verdict == (True, set())
    else:
        assert verdict == (True, expected or None)
