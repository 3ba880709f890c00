"""A long portfolio sync shows projects and files done on a terminal, and nothing elsewhere."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from support.cli import FakeTerminal, RunMem
from support.portfolios import audited_portfolio

from mem.cli import progress
from mem.index import portfolio


@pytest.mark.parametrize("tty", [True, False])
def test_sync_progress_counts_projects_and_files(
    tty: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain, _ = audited_portfolio(tmp_path)
    ticks = itertools.count(0.0, 0.6)  # every step looks 0.6 s later than the one before
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(ticks))
    stream = FakeTerminal(tty)
    with progress.Progress("mem index: syncing", stream) as shown:  # type: ignore[arg-type]
        portfolio.build_portfolio(
            str(brain.resolve()), str(tmp_path / "index.sqlite"), shown.sync_step
        )
    if tty:
        assert "\r\033[Kmem index: syncing: 2/3 project(s), 16 file(s) read" in stream.text
        assert "\r\033[Kmem index: syncing: 3/3 project(s), 24 file(s) read" in stream.text
        assert stream.text.endswith("\r\033[K")  # the line is wiped when the sync ends
    else:
        assert stream.text == ""


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path, run_mem: RunMem) -> None:
    brain, roots = audited_portfolio(tmp_path)
    done = run_mem("recall", "pgbouncer", "--scope", "all", "-d", str(roots[0]))
    assert done.returncode == 0
    assert done.stderr == ""
    assert done.stdout.startswith('mem recall: 7 match(es) for "pgbouncer" (scope: all)\n')
