"""A byte order mark before a notes file's first `###` (Notepad writes one) hides that note
from recall, as the reference reads it (golden case 08): `mem status`, `mem context` and
`mem check findability` say so, naming the file and the note, instead of dropping it
silently (issue 35, item 7)."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem


def test_status_names_the_note_a_bom_hides(project: Path, run_mem: RunMem) -> None:
    lessons = project / ".agents/memory/lessons.md"
    lessons.write_text("\ufeff### Retry budget\r\nThree tries, then stop.\r\n", encoding="utf-8")
    text = run_mem("status", cwd=project).stdout.splitlines()
    at = next(number for number, line in enumerate(text) if line.startswith("  lessons.md "))
    assert text[at + 1] == (
        '    ⚠ a byte order mark before its first ### hides "Retry budget" from recall'
        " (as the reference reads it): delete the mark"
    )
    files = json.loads(run_mem("status", "--json", cwd=project).stdout)["project"]["files"]
    assert [entry["hiddenByBom"] for entry in files] == [None, "Retry budget", None]


def test_check_findability_names_the_note_a_bom_hides(project: Path, run_mem: RunMem) -> None:
    lessons = project / ".agents/memory/lessons.md"
    lessons.write_text("\ufeff### Retry budget\nThree tries, then stop.\n", encoding="utf-8")
    text = run_mem("check", "findability", cwd=project).stdout.splitlines()
    at = text.index("never found: a byte order mark before the file's first ### hides the note")
    assert text[at + 1] == "  .agents/memory/lessons.md § Retry budget"
    report = json.loads(run_mem("check", "findability", "--json", cwd=project).stdout)
    assert report["hiddenByBom"] == [
        {"file": ".agents/memory/lessons.md", "heading": "Retry budget"}
    ]


def test_context_names_the_note_a_bom_hides(project: Path, run_mem: RunMem) -> None:
    """`mem context`, the first command the AGENTS.md block has agents run, lists every
    memory: the hidden one is named there too, not left out silently."""
    lessons = project / ".agents/memory/lessons.md"
    lessons.write_text("\ufeff### Retry budget\nThree tries, then stop.\n", encoding="utf-8")
    text = run_mem("context", cwd=project).stdout.splitlines()
    assert text[-1] == (
        "hidden  .agents/memory/lessons.md § Retry budget: a byte order mark before the file's"
        " first ### hides it from recall (as the reference reads it); delete the mark"
    )
    state = json.loads(run_mem("context", "--json", cwd=project).stdout)
    assert state["hiddenByBom"] == [
        {"file": ".agents/memory/lessons.md", "heading": "Retry budget"}
    ]
    assert "Retry budget" not in [memory["heading"] for memory in state["memories"]]
