"""`mem supersede` and `mem retract`: revision-bound lifecycle events (evidence-lifecycle.md 5).

An event binds the revisions it names: it applies only while the memory (and, for a
supersession, its successor) still has that text. For each (memory, revision) the first
applicable terminating event wins. The check and the append happen under the writer lock,
so of two concurrent conflicting calls exactly one succeeds. Markdown is never touched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mem import layout
from mem.commands import memories
from mem.core import js, secrets
from mem.core.memory import Memory, Outcome
from mem.errors import MemError
from mem.files import locking, safe_paths, stores, writing

STORE = layout.LIFECYCLE
LABEL = "Lifecycle"
MAX_REASON = 2000


well_formed = stores.lifecycle_well_formed


def read_events(root: str) -> list[stores.Record]:
    return stores.read_store(root, STORE, LABEL, well_formed)


def readable_events(root: str) -> list[stores.Record]:
    """The intact events, read as lexical recall reads: following links, damaged lines skipped."""
    data = safe_paths.read_plain(root, STORE)
    return (
        [] if data is None else stores.intact_records(data.decode("utf-8", "replace"), well_formed)
    )


@dataclass(frozen=True)
class Status:
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


def supersede(
    root: str,
    old_id: str,
    new_id: str | None,
    reason: str | None,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> Outcome:
    if not new_id:
        raise MemError("--with <new-id> is required: the full id of the replacing memory.")
    reason = _checked_reason(reason, allow_secrets)
    with locking.writer_lock(root):
        current = memories.load(root)
        old = memories.resolve(current, old_id, suggest=False)
        new = memories.resolve(current, new_id, suggest=False)
        if old.id == new.id:
            raise MemError("A memory cannot supersede itself.")
        events = read_events(root)
        winners = terminating_events(events, memories.current_revisions(current))
        existing = winners.get((old.id, old.revision))
        if existing is not None:
            if existing["kind"] == "superseded" and existing["with"] == new.ref():
                return Outcome(existing, False)
            raise MemError(_already(old, existing))
        _refuse_cycle(old, new, winners, current)
        return _append(root, "superseded", old, new, reason, now)


def retract(
    root: str, memory_id: str, reason: str | None, now: str, allow_secrets: Iterable[str] = ()
) -> Outcome:
    reason = _checked_reason(reason, allow_secrets)
    with locking.writer_lock(root):
        current = memories.load(root)
        memory = memories.resolve(current, memory_id, suggest=False)
        winners = terminating_events(read_events(root), memories.current_revisions(current))
        existing = winners.get((memory.id, memory.revision))
        if existing is not None:
            if existing["kind"] == "retracted":
                return Outcome(existing, False)
            raise MemError(_already(memory, existing))
        return _append(root, "retracted", memory, None, reason, now)


def _checked_reason(reason: str | None, allow_secrets: Iterable[str]) -> str:
    if reason is None or not js.trim(reason) or len(reason) > MAX_REASON:
        raise MemError(f"--reason must be non-empty text of at most {MAX_REASON} characters.")
    secrets.refuse([("--reason", reason)], allow_secrets)
    return reason


def _already(memory: Memory, event: stores.Record) -> str:
    state = f"superseded by {event['with']['id']}" if event["kind"] == "superseded" else "retracted"
    return f"Memory {memory.id} is already {state} at this revision."


def _refuse_cycle(
    old: Memory,
    new: Memory,
    winners: dict[tuple[str, str], stores.Record],
    current: list[Memory],
) -> None:
    """Follow the successors of `new` at current revisions; reaching `old` would close a cycle."""
    successor_of: dict[str, str] = {}
    for (memory_id, _), event in winners.items():
        if event["kind"] == "superseded":
            successor_of[memory_id] = event["with"]["id"]
    chain = [new.id]
    while chain[-1] in successor_of and chain[-1] not in chain[:-1]:
        chain.append(successor_of[chain[-1]])
        if chain[-1] == old.id:
            raise MemError(
                f"Superseding {old.id} with {new.id} would close a cycle: {new.id} already"
                f" leads to {old.id} through supersessions ({' -> '.join(chain)})."
            )


def _append(
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
