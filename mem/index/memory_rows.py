"""Index rows of the evidence and lifecycle stores, for `sqlite3` audits. Pure.

Tolerant where the commands are strict: the index only mirrors the stores (the commands
re-read the files for every decision), so a line that does not parse is left out here
rather than stopping recall.
"""

from __future__ import annotations

from typing import Any

from mem.files.stores import intact, json_lines, lifecycle_well_formed, text_or_none

Rows = list[tuple[str, dict[str, object]]]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def evidence_rows(data: bytes, archived: frozenset[str] = frozenset()) -> Rows:
    """Rows of the `evidence` index table (but lines its archives hold: D14)."""
    rows: Rows = []
    for number, record in json_lines(data, archived):
        ref = _object(record.get("memory"))
        source = _object(record.get("source"))
        size = source.get("size")
        rows.append(
            (
                "evidence",
                {
                    "line": number,
                    "record_id": text_or_none(record.get("id")),
                    "ts": text_or_none(record.get("ts")),
                    "memory_id": text_or_none(ref.get("id")),
                    "memory_file": text_or_none(ref.get("file")),
                    "memory_heading": text_or_none(ref.get("heading")),
                    "revision": text_or_none(ref.get("revision")),
                    "repo": text_or_none(record.get("repo")),
                    "path": text_or_none(source.get("path")),
                    "sha256": text_or_none(source.get("sha256")),
                    "size": size if isinstance(size, int) and not isinstance(size, bool) else None,
                    "batch": text_or_none(record.get("batch")),
                },
            )
        )
    return rows


def lifecycle_rows(data: bytes, archived: frozenset[str] = frozenset()) -> Rows:
    """Rows of the `lifecycle` index table (but lines its archives hold: D14)."""
    rows: Rows = []
    for number, event in json_lines(data, archived):
        ref = _object(event.get("memory"))
        successor = _object(event.get("with"))
        rows.append(
            (
                "lifecycle",
                {
                    "line": number,
                    "event_id": text_or_none(event.get("id")),
                    "kind": text_or_none(event.get("kind")),
                    "ts": text_or_none(event.get("ts")),
                    "memory_id": text_or_none(ref.get("id")),
                    "memory_file": text_or_none(ref.get("file")),
                    "memory_heading": text_or_none(ref.get("heading")),
                    "revision": text_or_none(ref.get("revision")),
                    "with_id": text_or_none(successor.get("id")),
                    "with_revision": text_or_none(successor.get("revision")),
                    "reason": text_or_none(event.get("reason")),
                    "intact": int(intact(event, lifecycle_well_formed)),
                },
            )
        )
    return rows
