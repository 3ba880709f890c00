"""The docs name exactly the brain files recall searches (issue 23, item 13)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import REPO
from support.cli import RunMem

from mem import layout

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def searched_brain_files() -> list[str]:
    return [path for _rank, path, kind in layout.sources(layout.BRAIN) if kind == "notes"]


def test_recall_searches_the_three_note_files_in_memory_and_at_the_root() -> None:
    names = [f"{folder}{name}" for folder in ("memory/", "") for name in layout.NOTE_NAMES]
    assert searched_brain_files() == names


def test_no_page_promises_every_markdown_file_of_a_brain() -> None:
    for page in DOCS:
        text = page.read_text(encoding="utf-8")
        found = re.findall(r"<(?:brain|portfolio)>/(?:memory/)?\*\.md", text)
        assert not found, f"{page.name} promises {found}; recall reads {searched_brain_files()}"


def test_the_portfolio_page_names_the_three_files_and_no_other() -> None:
    """A user read "the brain's notes" as every Markdown file of `memory/` (issue 35, item 16):
    the page names the files recall reads, and says that others are not read."""
    text = (REPO / "docs" / "portfolios.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `mem recall QUERY"))
    assert all(f"`{name}`" in row for name in layout.NOTE_NAMES)
    assert "no other file of a brain" in row


def test_recall_reads_a_brains_three_files_and_no_other(
    project: Path, tmp_path: Path, run_mem: RunMem, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    (brain / "memory" / "decisions.md").write_text("### Zebra queues\nUse zebra queues.\n")
    (brain / "memory" / "arch.md").write_text("### Zebra layers\nZebra architecture.\n")
    monkeypatch.setenv("BMAD_PLUS_BRAIN", str(brain))
    done = run_mem("recall", "zebra", "--scope", "portfolio", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert [result["ref"] for result in json.loads(done.stdout)["results"]] == ["Zebra queues"]
