"""Which brain a project's portfolio recall reads (bmad-mem.md section 17, deviation D7)."""

from __future__ import annotations

import json
import os


def linked_brain(root: str) -> str | None:
    """The brain named by `.agents/memory/.brain-link`, else the one detection would pick."""
    try:
        with open(os.path.join(root, ".agents", "memory", ".brain-link"), encoding="utf-8") as handle:
            link = json.load(handle)
    except (OSError, ValueError):
        link = None
    if isinstance(link, dict):
        linked = link.get("linked_brain")
        if isinstance(linked, str) and os.path.isdir(linked):
            return linked
    found = detect_brain(root)
    return found[0] if found else None


def detect_brain(root: str) -> tuple[str, str] | None:
    """(directory, type) in the documented priority order, or None."""
    from_env = os.environ.get("BMAD_PLUS_BRAIN")
    if from_env and os.path.isdir(from_env):
        return os.path.abspath(from_env), "portfolio"
    directory = root
    while True:
        candidate = os.path.join(directory, "_brain")
        if os.path.isdir(candidate):
            return candidate, "portfolio"
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    home = os.path.expanduser("~")
    global_brain = os.path.join(home, ".bmad-plus", "brain")
    if os.path.isdir(global_brain):
        return global_brain, "bmad-global"
    claude = os.path.join(home, ".claude", "memory")
    if os.path.isdir(claude) and os.listdir(claude):
        return claude, "claude-memory"
    return None
