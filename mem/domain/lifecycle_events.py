"""The lifecycle store: revision-bound events and the status they give (evidence-lifecycle.md 5).

An event binds the revisions it names: it applies only while the memory (and, for a
supersession, its successor) still has that text. For each (memory, revision) the first
applicable terminating event wins. `mem supersede` and `mem retract` append the events;
context, browse and recall read the statuses. Markdown is never touched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from mem import index, layout
from mem.core.javascript import js
from mem.core.rules import secrets
from mem.core.rules.memory import Memory, Outcome
from mem.domain import memories
from mem.errors import MemError
from mem.files import archives, safe_paths, stores, writing

STORE = layout.LIFECYCLE
LABEL = "Lifecycle"
MAX_REASON = 2000


well_formed = stores.lifecycle_well_formed


def read_events(root: str) -> list[stores.Record]:
    return stores.read_store(root, STORE, LABEL, well_formed)


def readable_events(root: str) -> list[stores.Record]:
    """The intact events, read as lexical recall reads: following links, damaged lines skipped."""
    data = safe_paths.read_plain(root, STORE)
    if data is None:
        return []
    archived = archives.archived_lines(root, STORE)
    return stores.intact_records(data.decode("utf-8", "replace"), well_formed, archived)


class Status(NamedTuple):
    status: str  # "active", "superseded" or "retracted"
    event: stores.Record | None = None

    @property
    def superseded_by(self) -> str | None:
        return self.event["with"]["id"] if self.event and self.event["with"] else None

    @property
    def reason(self) -> str | None:
        return self.event["reason"] if self.event else None


ACTIVE = Status("active")


def terminating_events(
    events: list[stores.Record], current: dict[str, set[str]]
) -> dict[tuple[str, str], stores.Record]:
    """(memory id, revision) -> the first event that still applies to the current texts."""
    winners: dict[tuple[str, str], stores.Record] = {}
    for event in events:
        ref, successor = event["memory"], event["with"]
        if ref["revision"] not in current.get(ref["id"], ()):
            continue
        if successor is not None and successor["revision"] not in current.get(successor["id"], ()):
            continue
        winners.setdefault((ref["id"], ref["revision"]), event)
    return winners


def statuses(events: list[stores.Record], current: list[Memory]) -> dict[tuple[str, str], Status]:
    """(memory id, revision) -> status of every current memory."""
    winners = terminating_events(events, memories.current_revisions(current))
    found = {}
    for memory in current:
        event = winners.get((memory.id, memory.revision))
        found[(memory.id, memory.revision)] = Status(event["kind"], event) if event else ACTIVE
    return found


def project_statuses(root: str) -> tuple[list[Memory], dict[tuple[str, str], Status]]:
    current = memories.load(root)
    return current, statuses(read_events(root), current)


def drop_terminated(
    root: str, entries: list[dict[str, Any]], events: list[stores.Record]
) -> list[dict[str, Any]]:
    """Evidence ranking drops recall notes whose current revision is superseded or retracted."""
    if not events:
        return entries  # nothing was ever superseded or retracted: no memory needs reading
    found = statuses(events, memories.load(root))
    terminated = {key for key, status in found.items() if status.status != "active"}
    return [
        entry
        for entry in entries
        if entry["kind"] != "note"
        or (
            memories.memory_id(entry["sourceFile"], entry["ref"]),
            memories.revision_of(entry["text"]),
        )
        not in terminated
    ]


def checked_reason(reason: str | None, allow_secrets: Iterable[str]) -> str:
    if reason is None or not js.trim(reason) or len(reason) > MAX_REASON:
        raise MemError(f"--reason must be non-empty text of at most {MAX_REASON} characters.")
    secrets.refuse([("--reason", reason)], allow_secrets)
    return reason


def already_message(memory: Memory, event: stores.Record) -> str:
    state = f"superseded by {event['with']['id']}" if event["kind"] == "superseded" else "retracted"
    return f"Memory {memory.id} is already {state} at this revision."


def append(
    root: str, kind: str, memory: Memory, successor: Memory | None, reason: str, now: str
) -> Outcome:
    event = stores.with_id(
        {
            "schemaVersion": 1,
            "kind": kind,
            "ts": now,
            "memory": memory.ref(),
            "with": successor.ref() if successor else None,
            "reason": reason,
        }
    )
    writing.append_line(root, STORE, stores.line_of(event))
    return Outcome(event, True)


def retired_in_index(
    root: str, conn: index.Connection, file_ids: dict[int, str]
) -> dict[int, Status]:
    """Record id -> status of each indexed note whose current revision is retired (D10).

    `file_ids` maps the index's memory files (file id -> path). Revisions come from the
    indexed text, so only the sections the events name are hashed and no Markdown is read
    again. A damaged lifecycle line is skipped, never fatal: readers keep answering.
    """
    events = readable_events(root)
    named = {
        (ref["file"], ref["heading"])
        for event in events
        for ref in (event["memory"], event["with"])
        if ref is not None
    }
    notes = index.notes_headed(conn, list(file_ids), sorted({heading for _, heading in named}))
    current = {
        record_id: memories.Memory(
            memories.memory_id(file_ids[file_id], heading),
            file_ids[file_id],
            heading,
            memories.revision_of(text),
            ordinal,
            text,
        )
        for record_id, file_id, ordinal, heading, text in notes
        if (file_ids[file_id], heading) in named
    }
    found = statuses(events, list(current.values()))
    retired = {}
    for record_id, memory in current.items():
        status = found[(memory.id, memory.revision)]
        if status.status != "active":
            retired[record_id] = status
    return retired
