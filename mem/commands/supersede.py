"""`mem supersede`: record that another memory replaces this one (evidence-lifecycle.md 5).

The event binds the current revisions of both memories. The check and the append happen
under the writer lock, so of two concurrent conflicting calls exactly one succeeds.
"""

from __future__ import annotations

from collections.abc import Iterable

from mem.core.rules.memory import Memory, Outcome
from mem.domain import lifecycle_events, memories
from mem.errors import MemError
from mem.files import locking, stores


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
    reason = lifecycle_events.checked_reason(reason, allow_secrets)
    with locking.writer_lock(root):
        current = memories.load(root)
        old = memories.resolve(current, old_id, suggest=False)
        new = memories.resolve(current, new_id, suggest=False)
        if old.id == new.id:
            raise MemError("A memory cannot supersede itself.")
        events = lifecycle_events.read_events(root)
        winners = lifecycle_events.terminating_events(events, memories.current_revisions(current))
        existing = winners.get((old.id, old.revision))
        if existing is not None:
            if existing["kind"] == "superseded" and existing["with"] == new.ref():
                return Outcome(existing, False)
            raise MemError(lifecycle_events.already_message(old, existing))
        _refuse_cycle(old, new, winners, current)
        return lifecycle_events.append(root, "superseded", old, new, reason, now)


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
