"""The recall after a `mem write` syncs the grown journal without the file lock's import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("sqlite_utils", "filelock")


def _recall(project: Path, *words: str) -> tuple[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mem", "recall", *words, "-d", str(project)],
        capture_output=True,
        text=True,
        check=True,
        cwd=project,
    )
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return done.stdout, modules


def test_recall_after_write_finds_the_event_without_the_file_lock(project: Path) -> None:
    _recall(project, "postgres")  # builds the index: a build may import what it needs
    subprocess.run(
        [sys.executable, "-m", "mem", "write", "--agent", "forge", "--task", "zebrafish drill"],
        capture_output=True,
        check=True,
        cwd=project,
    )
    output, modules = _recall(project, "zebrafish")
    assert "zebrafish drill" in output
    assert "mem.index.sync" in modules
    assert not [name for name in modules if name.split(".")[0] in HEAVY]
