"""Which brain a project uses (bmad-mem.md section 17, deviation D7).

Detection only reads; `mem init` (mem/commands/init.py) writes the link it finds.
"""

from __future__ import annotations

import os

from mem import layout
from mem.core.javascript import js
from mem.errors import MemError
from mem.files.safe_paths import open_regular

LINK = layout.BRAIN_LINK


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class Detection:
    """The brain a project uses, if any, and what detection warns of."""

    __slots__ = ("found", "warnings")

    def __init__(self, found: tuple[str, str] | None, warnings: Sequence[str] = ()) -> None:
        self.found = found  # (directory, type)
        self.warnings = warnings


def global_brain_dir() -> str:
    return os.path.join(os.path.expanduser("~"), layout.GLOBAL_BRAIN)


def read_link(root: str) -> dict[str, object] | None:
    """The parsed `.brain-link` object; None when it is missing or not a JSON object."""
    try:
        with open_regular(os.path.join(root, LINK)) as handle:
            link = js.parse_json(handle.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return link if isinstance(link, dict) else None


def linked_brain(root: str) -> str | None:
    """The brain named by `.agents/memory/.brain-link`, else the one detection would pick."""
    link = read_link(root)
    if link is not None:
        linked = link.get("linked_brain")
        if isinstance(linked, str) and os.path.isdir(linked):
            return linked
    found = detect_brain(root)
    return found[0] if found else None


def detect_brain(root: str) -> tuple[str, str] | None:
    """(directory, type) in the documented priority order, or None."""
    return brain_detection(root).found


def brain_detection(root: str) -> Detection:
    """The first of: $BMAD_PLUS_BRAIN, the nearest `_brain/`, the global brain, ~/.claude/memory."""
    warnings = []
    from_env = os.environ.get("BMAD_PLUS_BRAIN")
    if from_env:
        if os.path.isdir(from_env):
            return Detection((os.path.abspath(from_env), "portfolio"))
        warnings.append(
            f"BMAD_PLUS_BRAIN is set but is not a directory: {from_env}"
            " — falling back to auto-detection"
        )
    directory = root
    while True:
        candidate = os.path.join(directory, "_brain")
        if os.path.isdir(candidate):
            return Detection((candidate, "portfolio"), warnings)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    global_brain = global_brain_dir()
    if os.path.isdir(global_brain):
        return Detection((global_brain, "bmad-global"), warnings)
    claude = os.path.join(os.path.expanduser("~"), layout.CLAUDE_MEMORY)
    if os.path.isdir(claude) and os.listdir(claude):
        return Detection((claude, "claude-memory"), warnings)
    return Detection(None, warnings)


def portfolio_brain(root: str, explicit: str | None) -> str:
    """The brain whose registry makes the portfolio: an explicit one, else the linked brain."""
    if explicit is not None:
        # Relative to the process's working directory, as recall's --portfolio.
        found: str | None = os.path.realpath(os.path.abspath(explicit))
    else:
        linked = linked_brain(root)
        found = None if linked is None else os.path.realpath(linked)
    if found is None:
        raise MemError("No brain is linked or detected; run `mem init` first.")
    if not os.path.isdir(found):
        raise MemError(f"Portfolio brain is not a directory: {found}")
    return found
