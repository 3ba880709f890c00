"""`mem retract`: record that a memory's current revision is withdrawn (evidence-lifecycle.md 5).

The check and the append happen under the writer lock, so of two concurrent conflicting
calls exactly one succeeds. An edit to the memory ends the retraction.
"""

from __future__ import annotations

from collections.abc import Iterable

from mem.core.rules.memory import Outcome
from mem.domain import lifecycle_events, memories
from mem.errors import MemError
from mem.files import locking


def retract(
    root: str, memory_id: str, reason: str | None, now: str, allow_secrets: Iterable[str] = ()
) -> Outcome:
    reason = lifecycle_events.checked_reason(reason, allow_secrets)
    with locking.writer_lock(root):
        current = memories.load(root)
        memory = memories.resolve(current, memory_id, suggest=False)
        events = lifecycle_events.read_events(root)
        winners = lifecycle_events.terminating_events(events, memories.current_revisions(current))
        existing = winners.get((memory.id, memory.revision))
        if existing is not None:
            if existing["kind"] == "retracted":
                return Outcome(existing, False)
            raise MemError(lifecycle_events.already_message(memory, existing))
        return lifecycle_events.append(root, "retracted", memory, None, reason, now)
