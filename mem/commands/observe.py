"""`mem observe`: one receipt binding a memory section to accepted, verified Nexus work.

Validation follows bmad-mem.md section 11 step by step; everything after reading the
input runs under the memory writer lock, so of two processes observing the same task
attempt exactly one appends and the other is told it is a duplicate.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mem.core.javascript import js
from mem.core.rules import receipts, secrets
from mem.domain import outcome_receipts
from mem.errors import MemError
from mem.files import locking, machine_paths, nexus, safe_paths, writing

# what a receipt copies from the observation
WRITTEN = ("runId", "taskId", "memory", "scope", "interpretation", "supersedes", "contradicts")


def observe(
    root: str, input_path: str | None, now: str, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    """Validate an observation file and append its receipt; returns the receipt."""
    relative = input_path or ""  # no --input: the safe path refuses it as not normalized
    text = safe_paths.read_bounded(root, relative)
    if text is None:
        raise MemError(machine_paths.missing_file_message(os.path.join(root, relative)))
    try:
        value = js.parse_json(text)
    except ValueError as error:
        raise MemError(f"Observation {relative} is not valid JSON: {error}") from None
    if not isinstance(value, dict | list):
        raise MemError("Outcome input is required.")
    observation = value if isinstance(value, dict) else {}
    copied = {key: observation[key] for key in WRITTEN if key in observation}
    shown = secrets.shown_name(relative)
    secrets.refuse(
        [(f"{shown} {path}", text) for path, text in secrets.json_fields(copied)],
        allow_secrets,
    )
    with locking.writer_lock(root):
        stored = outcome_receipts.read_store(root)
        run_id = observation.get("runId")
        task_id = observation.get("taskId")
        if not receipts.bounded_text(run_id, 1000):
            raise MemError("Run ID must be non-empty bounded text.")
        if not receipts.bounded_text(task_id, 1000):
            raise MemError("Task ID must be non-empty bounded text.")
        source = nexus.accepted_source(root, run_id, task_id)
        attempt = receipts.attempt_key({"source": source})
        if any(receipts.attempt_key(receipt) == attempt for receipt in stored):
            raise MemError("Duplicate outcome: this task attempt already supplied a receipt.")
        memory = observation.get("memory")
        file = receipts.field(memory, "file")
        heading = receipts.field(memory, "heading")
        anchor = outcome_receipts.current_anchor(root, file, heading)
        scope = receipts.scope_items(observation.get("scope"))
        if not receipts.within(scope, source.get("scope")):
            raise MemError("Outcome scope exceeds the accepted task scope.")
        supersedes = receipts.related_ids(observation.get("supersedes"), stored, scope)
        contradicts = receipts.related_ids(observation.get("contradicts"), stored, scope)
        if set(supersedes) & set(contradicts):
            raise MemError("A receipt cannot be both superseded and contradicted.")
        interpretation = observation.get("interpretation")
        if not receipts.bounded_text(interpretation, 2000):
            raise MemError("Lesson interpretation must be non-empty bounded text.")
        again = nexus.accepted_source(root, run_id, task_id)
        if js.stringify(again) != js.stringify(source) or js.stringify(
            outcome_receipts.current_anchor(root, file, heading)
        ) != js.stringify(anchor):
            raise MemError("Outcome sources changed while being observed.")
        if len(stored) >= receipts.STORE_MAX:
            raise MemError("Outcome store is full; archive it explicitly.")
        receipt = receipts.build(
            now, anchor, scope, source, interpretation, supersedes, contradicts
        )
        writing.append_line(root, outcome_receipts.STORE, js.stringify(receipt) + "\n")
    return receipt
