"""The recall after a `mem write` (a grown journal) or after editing one section of a notes
file syncs it without the file lock's import, and finds the new text."""

from __future__ import annotations

import os
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


def test_recall_after_a_section_edit_finds_it_without_the_file_lock(project: Path) -> None:
    notes = project / ".agents" / "memory" / "lessons.md"
    text = notes.read_text(encoding="utf-8")
    notes.write_text(text + "\n### Kept apart\nnothing about fish\n", encoding="utf-8")
    _recall(project, "postgres")  # builds the index: a build may import what it needs
    notes.write_text(text + "\n### Kept apart\nzebrafish drill\n", encoding="utf-8")
    os.utime(notes, ns=(1_700_000_000 * 10**9,) * 2)
    output, modules = _recall(project, "zebrafish")
    assert "Kept apart" in output
    assert "mem.index.sync" in modules
    assert not [name for name in modules if name.split(".")[0] in HEAVY]
