"""One byte that is not UTF-8 in a notes file (issue 35, item 6): readers degrade as recall
does (U+FFFD for the byte, every other memory as it was), and a write into that file is
refused naming the file and line, never with a message that names no file."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem

DECISIONS = ".agents/memory/decisions.md"


def _plant(project: Path) -> None:
    notes = project / DECISIONS
    notes.write_bytes(notes.read_bytes() + b"\n### Stray \xff byte\nThe byte is Latin-1.\n")


def test_context_and_show_read_past_the_byte(project: Path, run_mem: RunMem) -> None:
    _plant(project)
    context = run_mem("context", "--json", cwd=project)
    assert context.returncode == 0, context.stderr
    memories = json.loads(context.stdout)["memories"]
    stray = [memory for memory in memories if memory["heading"] == "Stray \ufffd byte"]
    assert len(stray) == 1 and len(memories) > 1
    shown = run_mem("show", stray[0]["id"], cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "The byte is Latin-1." in shown.stdout


def test_note_add_into_that_file_names_the_file_and_line(project: Path, run_mem: RunMem) -> None:
    _plant(project)
    line = (project / DECISIONS).read_bytes().split(b"\n").index(b"### Stray \xff byte") + 1
    done = run_mem("note", "add", "decision", "--title", "Pool", cwd=project)
    assert done.returncode == 1
    assert done.stderr == (
        f"mem note: Memory source must contain valid UTF-8 ({DECISIONS}:{line}).\n"
    )
