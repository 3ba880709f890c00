"""A warm recall stays light: no sqlite_utils, no filelock, no typing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("sqlite_utils", "filelock")
# Code only some recalls need: a plain recall does not load it.
ON_DEMAND = ("mem.core.explain", "mem.core.secrets", "mem.mcp")
# Standard modules a plain recall does without, each costing milliseconds to import: typing
# (annotations are strings; NamedTuples come from mem.tuples) and datetime (the sqlite3
# package's adapters; mem.index imports _sqlite3).
UNUSED_STDLIB = ("typing", "datetime", "sqlite3")


def _imported_by_recall(project: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mem", "recall", "postgres", "-d", str(project)],
        capture_output=True,
        text=True,
        check=True,
        cwd=project,
    )
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize("files_are_old", [True, False], ids=["stat-trusted", "racily-clean"])
def test_warm_recall_imports_nothing_heavy(project: Path, files_are_old: bool) -> None:
    if files_are_old:
        for path in project.rglob("*"):
            os.utime(path, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    _imported_by_recall(project)  # builds the index: writers may import what they need
    modules = _imported_by_recall(project)
    assert "mem.commands.recall" in modules
    assert not [name for name in modules if name.split(".")[0] in HEAVY]
    assert not [name for name in modules if name.startswith(ON_DEMAND)]
    assert not [name for name in modules if name in UNUSED_STDLIB]
