"""The memory model: the `###` sections of a project's six memory files, with ids and revisions.

An id names a section by file and heading (editing the body keeps it); a revision names
its exact text, the same hash an outcome receipt anchors (evidence-lifecycle.md section 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from mem import layout
from mem.core.javascript import js
from mem.core.rules.memory_ids import memory_id as memory_id
from mem.core.rules.memory_ids import revision_of as revision_of
from mem.core.text import parse
from mem.errors import MemError

# Recall's candidate order (bmad-mem.md section 7), which is also the order memories list in.
MEMORY_FILES = layout.MEMORY_FILES


def normalized_source(path: str) -> str | None:
    """The '/'-separated form of a source path relative to the root; None if it may not be one.

    `.` and empty segments are dropped; `..`, absolute paths, backslashes and anything
    under a `.git` directory are refused, so a record can never name a file outside the
    root or git's own state.
    """
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return None
    segments = [segment for segment in path.split("/") if segment not in ("", ".")]
    if not segments or any(segment == ".." or segment.lower() == ".git" for segment in segments):
        return None
    return "/".join(segments)


class Memory(NamedTuple):
    id: str
    file: str
    heading: str
    revision: str
    ordinal: int  # section number within its file
    text: str  # the trimmed section: heading, then the body

    @property
    def kind(self) -> str:
        """decisions.md, lessons.md or patterns.md."""
        return self.file.rsplit("/", 1)[-1]

    @property
    def body(self) -> str:
        return self.text[len(self.heading) :].strip("\n")

    def ref(self) -> dict[str, str]:
        """The `{id, file, heading, revision}` object records and outputs carry."""
        return {
            "id": self.id,
            "file": self.file,
            "heading": self.heading,
            "revision": self.revision,
        }


def from_text(file: str, text: str) -> list[Memory]:
    return [
        Memory(
            memory_id(file, note.heading),
            file,
            note.heading,
            revision_of(note.display),
            note.ordinal,
            note.display,
        )
        for note in parse.split_sections(text)
    ]


def resolve(memories: Iterable[Memory], wanted: str, *, suggest: bool) -> Memory:
    """The one memory with this full id; prefixes are only ever suggested, on reads."""
    listed = list(memories)
    matches = [memory for memory in listed if memory.id == wanted]
    if len(matches) == 1:
        return matches[0]
    if matches:
        first = matches[0]
        raise MemError(
            f"Memory id {wanted} is ambiguous: {first.file} has {len(matches)} sections"
            f' headed "{first.heading}".'
        )
    message = f"Unknown memory id: {wanted}"
    if suggest and wanted:
        similar = sorted({memory.id for memory in listed if memory.id.startswith(wanted)})
        if similar:
            message += f" (full ids starting with it: {', '.join(similar[:5])})"
    raise MemError(message)


def current_revisions(memories: Iterable[Memory]) -> dict[str, set[str]]:
    """id -> the revisions its section(s) have now."""
    found: dict[str, set[str]] = {}
    for memory in memories:
        found.setdefault(memory.id, set()).add(memory.revision)
    return found


Record = dict[str, Any]  # one line of a self-hashing store


class SourceAudit(NamedTuple):
    path: str
    status: str
    reason: str | None
    recorded_sha256: str
    current_sha256: str | None

    def to_json(self) -> dict[str, Any]:
        return js.object_of(self)


class MemoryAudit(NamedTuple):
    memory: Memory
    status: str
    sources: list[SourceAudit]
    older_records: int = 0  # evidence records of earlier revisions

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": self.memory.ref(),
            "status": self.status,
            "sources": [source.to_json() for source in self.sources],
        }


class Added(NamedTuple):
    memory: Memory
    written: list[Record]
    unchanged: list[Record]
    paths: list[str]  # the normalised sources, in the order given


class Outcome(NamedTuple):
    event: Record
    written: bool
