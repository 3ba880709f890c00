"""A memory's id and a section's revision: hashlib alone, so that indexing a memory file
does not load the memory model (mem.core.rules.memory, which re-exports these)."""

from __future__ import annotations

import hashlib


def memory_id(file: str, heading: str) -> str:
    return "mem_" + hashlib.sha256(f"{file}\0{heading}".encode()).hexdigest()[:20]


def revision_of(text: str) -> str:
    """The SHA-256 of a section's trimmed heading and body (an outcome anchor's textSha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
