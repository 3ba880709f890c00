"""A memory's lifecycle and audit status, as `mem context` and `recall --with-evidence` show it."""

from __future__ import annotations

from typing import Any

from mem import layout
from mem.domain import evidence_audit, lifecycle_events, memories


def lifecycle_fields(status: lifecycle_events.Status) -> dict[str, Any]:
    return {"status": status.status, "supersededBy": status.superseded_by, "reason": status.reason}


def annotate_recall(root: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`recall --with-evidence`: each project note's lifecycle and audit status, order untouched."""
    current, lifecycle_statuses = lifecycle_events.project_statuses(root)
    audits = evidence_audit.statuses(root, current)
    for entry in entries:
        if entry["kind"] != "note" or not layout.is_memory_file(entry["sourceFile"]):
            continue
        key = (
            memories.memory_id(entry["sourceFile"], entry["ref"]),
            memories.revision_of(entry["text"]),
        )
        status = lifecycle_statuses.get(key, lifecycle_events.ACTIVE)
        found = audits.get(key)
        entry["memory"] = {
            "id": key[0],
            "revision": key[1],
            **lifecycle_fields(status),
            "audit": found.status if found else "unknown",
        }
    return entries
