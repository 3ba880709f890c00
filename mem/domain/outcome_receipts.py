"""The outcomes store: observed receipts and their eligibility (bmad-mem.md sections 13-14).

`mem observe` appends receipts; `mem outcomes`, context, browse and evidence ranking read
them. Eligibility is recomputed from the files on every call: the memory section the receipt
anchors, and the Nexus run state its source came from. The store itself is read strictly
and any damage fails closed.
"""

from __future__ import annotations

import os
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import receipts
from mem.errors import MemError
from mem.files import archives, machine_paths, nexus, safe_paths

STORE = layout.OUTCOMES


def read_store(root: str) -> list[dict[str, Any]]:
    """The live receipts: those on lines the store's archives hold count there (D14)."""
    content = safe_paths.read_bounded(root, STORE)
    if content is None:
        return []
    return receipts.parse_receipts(content, archives.archived_lines(root, STORE))


def current_anchor(root: str, file: Any, heading: Any) -> dict[str, str]:
    """The anchor of a memory section as the file reads now."""
    receipts.check_anchor_request(file, heading)
    content = safe_paths.read_bounded(root, file)
    if content is None:
        raise MemError(machine_paths.missing_file_message(os.path.join(root, file)))
    return receipts.anchor(file, heading, content)


def reasons(
    root: str, stored: list[dict[str, Any]], context_scope: list[str] | None = None
) -> list[str | None]:
    """Why each receipt is not eligible (first match of section 14), or None when it is."""
    found = receipts.relationship_reasons(stored)
    sources: dict[str, dict[str, Any] | str] = {}
    for position, receipt in enumerate(stored):
        if found[position] is not None:
            continue
        if context_scope is not None and not receipts.overlaps(receipt.get("scope"), context_scope):
            found[position] = "outside-query-scope"
        else:
            found[position] = _current_reason(root, receipt, sources)
    return found


def _current_reason(
    root: str, receipt: dict[str, Any], sources: dict[str, dict[str, Any] | str]
) -> str | None:
    memory = receipt.get("memory")
    source = receipt.get("source")
    run_id = receipts.field(source, "runId")
    task_id = receipts.field(source, "taskId")
    try:
        anchor = current_anchor(
            root, receipts.field(memory, "file"), receipts.field(memory, "heading")
        )
        if js.stringify(anchor) != js.stringify(memory):
            return "stale-memory-section"
        # Within one call every receipt of a task sees the same resolution.
        key = js.stringify([run_id, task_id])
        if key not in sources:
            try:
                sources[key] = nexus.accepted_source(root, run_id, task_id)
            except MemError as error:
                sources[key] = str(error)
        current = sources[key]
        if isinstance(current, str):
            raise MemError(current)
    except MemError as error:
        return f"unavailable-or-ineligible-source: {error}"
    if js.stringify(current) != js.stringify(source):
        return "stale-outcome-source"
    return None


def inspect(root: str) -> list[dict[str, Any]]:
    """Every receipt in store order with `eligible` and `reason` added."""
    stored = read_store(root)
    return [
        {**receipt, "eligible": reason is None, "reason": reason}
        for receipt, reason in zip(stored, reasons(root, stored), strict=True)
    ]
