"""The docs name exactly the brain files recall searches (issue 23, item 13)."""

from __future__ import annotations

import re

from support import REPO

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
