"""A project's memories: the `###` sections of its decisions, lessons and patterns files.

Ids and revisions as in evidence-lifecycle.md section 1: `mem_` + 20 hex of SHA-256 of
`<file>\\0<heading>`; the revision is the SHA-256 of the trimmed section text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from mem import files, parse
from mem.errors import MemError

MEMORY_FILES = [
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".bmad/memory/patterns.md",
    ".agents/memory/decisions.md",
    ".agents/memory/lessons.md",
    ".agents/memory/patterns.md",
]


@dataclass(frozen=True)
class Memory:
    id: str
    file: str
    heading: str
    text: str  # the trimmed section: heading line text, then the body

    @property
    def revision(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def kind(self) -> str:
        """decisions.md, lessons.md or patterns.md."""
        return self.file.rsplit("/", 1)[-1]

    @property
    def body(self) -> str:
        return self.text[len(self.heading) :].strip("\n")


def memory_id(file: str, heading: str) -> str:
    return "mem_" + hashlib.sha256(f"{file}\0{heading}".encode()).hexdigest()[:20]


def sections(file: str, content: str) -> list[Memory]:
    """Pure: the memories of one file's text."""
    return [
        Memory(memory_id(file, note.heading), file, note.heading, note.display)
        for note in parse.split_sections(content)
    ]


def read_memories(root: str) -> list[Memory]:
    found: list[Memory] = []
    for relative in MEMORY_FILES:
        content = files.read_bounded(root, relative)
        if content is not None:
            found.extend(sections(relative, content))
    return found


def find(root: str, wanted: str) -> Memory:
    matches = [memory for memory in read_memories(root) if memory.id == wanted]
    if not matches:
        raise MemError(f"Unknown memory id: {wanted}")
    if len(matches) > 1:
        first = matches[0]
        raise MemError(
            f"Memory id {wanted} is ambiguous: {first.file} has {len(matches)} sections"
            f' headed "{first.heading}".'
        )
    return matches[0]
