"""Memories as they stand in a project's files (the model lives in mem.core.rules.memory)."""

from __future__ import annotations

import os

from mem.core.rules.memory import (
    MEMORY_FILES,
    Memory,
    current_revisions,
    from_text,
    memory_id,
    resolve,
    revision_of,
)
from mem.core.text import parse
from mem.files import machine_paths, safe_paths, team

__all__ = [
    "MEMORY_FILES",
    "Memory",
    "current_revisions",
    "from_text",
    "hidden_by_bom",
    "load",
    "memory_id",
    "resolve",
    "revision_of",
]


def load(root: str) -> list[Memory]:
    """Every memory of the project, in file order, read through the safe bounded reader."""
    found: list[Memory] = []
    for file in [*MEMORY_FILES, *team.team_note_files(root)]:  # D13: a team's note files
        text = safe_paths.read_notes(root, file)
        if text is not None:
            found.extend(from_text(file, text))
    return found


def hidden_by_bom(root: str) -> list[dict[str, str]]:
    """The notes no query can find (file and heading): each hidden by a byte order mark
    before its file's first `###`, as the reference reads it (golden case 08); readers that
    list memories name them instead of dropping them silently (issue 35 item 7)."""
    found = []
    for relative in MEMORY_FILES:
        text = machine_paths.read_text(os.path.join(root, relative))
        heading = None if text is None else parse.heading_hidden_by_bom(text)
        if heading is not None:
            found.append({"file": relative, "heading": heading})
    return found
