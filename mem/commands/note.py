"""`mem note add` and `mem show`: one memory section written well-formed, or read whole.

`mem note add decision|lesson|pattern --title ...` appends a `###` section in the template's
format (mem.core.prose.templates) to the project's classic memory file
(`.agents/memory/decisions.md`, `lessons.md`, `patterns.md`), created from its template
when missing, so an agent never hand-edits Markdown. Decisions and lessons are dated
(YYYY-MM-DD from the command's "now"); patterns are named, as `mem reinforce` finds them.

In team layout (deviation D13) each note is a file of its own,
`.agents/memory/<decisions|lessons|patterns>/<date>-<slug>-<writer>.md`, so two branches
that each add a note never touch the same file; a heading is refused when any memory file
of its kind already has it.
"""

from __future__ import annotations

from typing import Any

from mem.core.text import markdown
from mem.domain import lifecycle_events, memories
from mem.domain.notes import add

__all__ = ["add", "show"]


def show(root: str, memory_id: str) -> dict[str, Any]:
    """One memory whole, with its lifecycle status; or a commit, for a (short) sha."""
    from mem.domain import history

    if history.is_sha(memory_id):
        return history.shown(root, memory_id)
    current, statuses = lifecycle_events.project_statuses(root)
    memory = memories.resolve(current, memory_id, suggest=True)
    status = statuses[(memory.id, memory.revision)]
    return {
        **memory.ref(),
        "status": status.status,
        "supersededBy": status.superseded_by,
        "text": markdown.as_read(memory.text),
    }
