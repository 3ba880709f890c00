"""`mem handoff`: a session handoff in `.agents/memory/sessions/`, never replacing one."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import secrets
from mem.errors import MemError
from mem.files import machine_paths, writing

SESSIONS = layout.SESSIONS
MAX_SLUG = 60


def slug(topic: str) -> str:
    """A file-name-safe form of a topic: `Auth refactor, part 2` -> `auth-refactor-part-2`."""
    ascii_text = unicodedata.normalize("NFKD", topic).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return words[:MAX_SLUG].rstrip("-")


def read_input_file(path: str) -> str:
    if not os.path.isfile(path):
        raise MemError(f"Cannot read {path}: no such file.")
    text = machine_paths.read_small_text(path)
    if text is None:
        raise MemError(f"Cannot read {path}: unreadable or larger than 2 MiB.")
    return text


def handoff(
    root: str, topic: str, text: str, now: str, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    """Write `.agents/memory/sessions/<date>-<topic>.md`, never replacing an earlier handoff."""
    topic_slug = slug(topic)
    if not topic_slug:
        raise MemError("--topic must contain at least one letter or digit.")
    if not js.trim(text):
        raise MemError("The handoff text is empty; nothing was written.")
    secrets.refuse([("--topic", topic), ("the handoff text", text)], allow_secrets)
    if not text.endswith("\n"):
        text += "\n"
    stem = f"{SESSIONS}/{now[:10]}-{topic_slug}"
    for number in range(1, 1000):
        relative = f"{stem}.md" if number == 1 else f"{stem}-{number}.md"
        if writing.create_new(root, relative, text):
            return {
                "path": os.path.join(root, relative),
                "file": relative,
                "bytes": len(text.encode()),
            }
    raise MemError(f"Too many handoffs named {stem}-*.md; choose another topic.")
