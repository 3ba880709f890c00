"""An unchanged portfolio is checked with one statement and its stat batch, never stale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from portfolio_support import (
    audited_portfolio,
    audited_project,
    cache_at,
    found_texts,
    meta_row,
    quick_check,
    set_meta_row,
    write,
)

from mem.index import portfolio


def test_an_unchanged_portfolio_is_decided_by_one_statement(tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        found_texts(brain, "pgbouncer")
        verdict, statements = quick_check(brain, cache)
        assert verdict == (True, None)
        assert len(statements) == 1 and "projects" not in statements[0]
        write(roots[2] / ".agents/memory/lessons.md", "# Lessons\n\n### Zeppelin\nfly it\n", 7)
        (decided, stale), statements = quick_check(brain, cache)
        assert decided and stale is not None and len(stale) == 1
        # The written root is found from the stat data the roots kept, not from their rows.
        assert len(statements) == 2 and not any("projects" in line for line in statements)
        assert found_texts(brain, "zeppelin") == {("project-2", "Zeppelin\nfly it")}
        verdict, statements = quick_check(brain, cache)
        assert verdict == (True, None) and len(statements) == 1


@pytest.mark.parametrize("row", [None, b"not the digest"])
def test_an_index_without_the_signatures_row_in_step_gains_it_at_its_next_check(
    tmp_path: Path, row: bytes | None
) -> None:
    brain, roots = audited_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        expected = found_texts(brain, "pgbouncer")
        set_meta_row(brain, cache, portfolio.SIGNATURES_KEY, row)
        assert quick_check(brain, cache)[0] == (False, None)
        assert found_texts(brain, "pgbouncer") == expected
        verdict, statements = quick_check(brain, cache)
        assert verdict == (True, None) and len(statements) == 1
        write(roots[0] / ".bmad/memory/decisions.md", "# Decisions\n\n### Zeppelin\nland it\n", 7)
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nland it")}


def test_a_missing_project_costs_one_folder_check_until_it_is_back(tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    cache = tmp_path / "cache"
    shutil.rmtree(roots[1])
    with cache_at(str(cache)):
        before = found_texts(brain, "pgbouncer")
        assert not any(name == "project-1" for name, _ in before)
        verdict, statements = quick_check(brain, cache)
        assert verdict == (True, None) and len(statements) == 1
        audited_project(roots[1], "project-1")
        (decided, stale), _ = quick_check(brain, cache)
        assert decided and stale is not None and len(stale) == 1
        assert any(name == "project-1" for name, _ in found_texts(brain, "pgbouncer"))


@pytest.mark.parametrize("damage", ["gone", "empty", "same length, other bytes"])
def test_kept_stat_data_out_of_step_with_its_digest_is_not_trusted(
    tmp_path: Path, damage: str
) -> None:
    brain, roots = audited_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        found_texts(brain, "pgbouncer")
        kept = meta_row(brain, cache, portfolio.STAT_DATA_KEY)
        assert isinstance(kept, bytes)
        other = {
            "gone": None,
            "empty": b"",
            "same length, other bytes": bytes(255 - byte for byte in kept),
        }
        set_meta_row(brain, cache, portfolio.STAT_DATA_KEY, other[damage])
        write(roots[1] / ".agents/memory/lessons.md", "# Lessons\n\n### Zeppelin\nmoor it\n", 7)
        (decided, stale), statements = quick_check(brain, cache)
        assert decided and stale is not None and len(stale) == 1
        assert any("projects" in line for line in statements)  # from the roots' own rows
        assert found_texts(brain, "zeppelin") == {("project-1", "Zeppelin\nmoor it")}
