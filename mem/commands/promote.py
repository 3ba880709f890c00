"""`mem promote`: show a project memory, or with approval append it to the brain (portfolio.md).

mem proposes, a person approves: nothing is written without --approve --by NAME, and a
memory's revision is promoted once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import secrets
from mem.core.text import markdown
from mem.domain import memories
from mem.errors import MemError
from mem.files import archives, brain, locking, safe_paths, writing

PROMOTIONS = layout.PROMOTIONS


def promote(
    root: str,
    memory_id: str,
    approve: bool,
    by: str | None,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> dict[str, Any]:
    """Show, or with approval append, a project memory to the brain file of its kind."""
    if approve and not (by and js.trim(by)):
        raise MemError("--approve requires --by NAME (who approved the promotion).")
    memory = memories.resolve(memories.load(root), memory_id, suggest=True)
    brain_dir = brain.linked_brain(root)
    if brain_dir is None:
        raise MemError("No brain is linked or detected; run `mem init` first.")
    target = (
        f"memory/{memory.kind}"
        if os.path.isfile(os.path.join(brain_dir, "memory", memory.kind))
        else memory.kind
    )
    target_path = os.path.join(brain_dir, target)
    # the section is the note's own Markdown; the folder's name is anyone's bytes
    project = markdown.inline(os.path.basename(root))
    section = f"\n### {memory.text}\n\nPromoted from {project} on {now[:10]}\n"
    result: dict[str, Any] = {
        "memory": {
            "id": memory.id,
            "file": memory.file,
            "heading": memory.heading,
            "revision": memory.revision,
        },
        "target": target_path,
        "append": section,
        "approved": approve,
        "promotion": None,
    }
    if not approve:
        return result
    secrets.refuse([("--by", by), (f"the section of memory {memory.id}", section)], allow_secrets)
    with locking.writer_lock(root):
        earlier = _applied_promotion(root, memory)
        if earlier is not None:
            raise MemError(
                f"Memory {memory.id} was already promoted to {earlier.get('target')} on "
                f"{earlier.get('ts')}; nothing was written."
            )
        record: dict[str, Any] = {
            "kind": "memory-promotion",
            "memoryId": memory.id,
            "file": memory.file,
            "heading": memory.heading,
            "revision": memory.revision,
            "target": target_path,
            "ts": now,
            "status": "APPLIED",
            "approvedBy": by,
            "approvedAt": now,
        }
        record = {"id": hashlib.sha256(js.stringify(record).encode()).hexdigest(), **record}
        line = js.stringify(record) + "\n"
        # Refused before the brain is written: the two files never disagree.
        writing.check_appendable(root, PROMOTIONS, line)
        writing.append_text(brain_dir, target, section)
        writing.append_line(root, PROMOTIONS, line)
    result["promotion"] = record
    return result


def _applied_promotion(root: str, memory: memories.Memory) -> dict[str, Any] | None:
    """The promotion that already brought this revision to the brain, live or archived: an
    archived one happened all the same (the brain holds its section)."""
    content = safe_paths.read_bounded(root, PROMOTIONS) or ""
    lines = [*content.split("\n"), *sorted(archives.archived_lines(root, PROMOTIONS))]
    for line in lines:
        try:
            record = js.parse_json(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("kind") == "memory-promotion"
            and record.get("memoryId") == memory.id
            and record.get("revision") == memory.revision
            and record.get("status") == "APPLIED"
        ):
            return record
    return None
