"""`mem archive` names a FIFO (or a directory) at a store's place instead of calling it empty."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.process


@pytest.mark.parametrize("approve", [(), ("--approve",)], ids=["dry run", "approved"])
def test_archive_names_a_fifo_in_place_of_the_journal(
    tmp_path: Path, run_mem: RunMem, approve: tuple[str, ...]
) -> None:
    journal = tmp_path / ".bmad/memory/journal.ndjson"
    journal.parent.mkdir(parents=True)
    os.mkfifo(journal)
    done = run_mem("archive", "journal", *approve, cwd=tmp_path, timeout=30)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "mem archive: .bmad/memory/journal.ndjson is not a regular file; inspect it."
        " Nothing was archived.\n"
    )
    assert sorted(path.name for path in journal.parent.iterdir()) == ["journal.ndjson"]
