"""Memories as they stand in a project's files (the model lives in mem.core.rules.memory)."""

from __future__ import annotations

from mem.core.rules.memory import (
    MEMORY_FILES,
    Memory,
    current_revisions,
    from_text,
    memory_id,
    resolve,
    revision_of,
)
from mem.files import safe_paths, team

__all__ = [
    "MEMORY_FILES",
    "Memory",
    "current_revisions",
    "from_text",
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
