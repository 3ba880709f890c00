"""Rows of the index tables `pattern_scores` and `promotions` (sync.LOADERS). Pure.

Lenient on purpose: a store that `mem reinforce` would refuse to build on must still not
break recall, which syncs the index first. Kept apart from `mem.patterns` so recall does
not pay for importing the scoring code.
"""

from __future__ import annotations

import math
from typing import Any

from mem.core.javascript import js
from mem.core.text import parse


def _real(value: Any) -> float | None:
    finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return value if finite else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def score_rows(data: bytes) -> list[tuple[str, dict[str, object]]]:
    try:
        scores = js.parse_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    if not isinstance(scores, dict):
        return []
    rows: list[tuple[str, dict[str, object]]] = []
    for position, (pattern_id, entry) in enumerate(scores.items()):
        fields = entry if isinstance(entry, dict) else {}
        rows.append(
            (
                "pattern_scores",
                {
                    "position": position,
                    "pattern_id": pattern_id,
                    "elo": _real(fields.get("elo")),
                    "alpha": _real(fields.get("alpha")),
                    "beta": _real(fields.get("beta")),
                    "mean": _real(fields.get("mean")),
                    "updates": _real(fields.get("updates")),
                    "last_ts": _text(fields.get("lastTs")),
                    "entry": js.stringify(entry),
                },
            )
        )
    return rows


def promotion_rows(
    data: bytes, archived: frozenset[str] = frozenset()
) -> list[tuple[str, dict[str, object]]]:
    """Rows of the `promotions` index table (but lines its archives hold: D14)."""
    rows: list[tuple[str, dict[str, object]]] = []
    for record in parse.parse_journal(data, archived=archived):
        fields = record.data
        evidence = fields.get("evidence")
        rows.append(
            (
                "promotions",
                {
                    "byte_offset": record.offset,
                    "id": _text(fields.get("id")),
                    "pattern_id": _text(fields.get("patternId")),
                    "from_status": _text(fields.get("fromStatus")),
                    "to_status": _text(fields.get("toStatus")),
                    "status": _text(fields.get("status")),
                    "governed_by": _text(fields.get("governedBy")),
                    "approved_by": _text(fields.get("approvedBy")),
                    "approved_at": _text(fields.get("approvedAt")),
                    "reason": _text(fields.get("reason")),
                    "evidence": js.stringify(evidence) if isinstance(evidence, list) else None,
                    "ts": _text(fields.get("ts")),
                    "line": record.line,
                },
            )
        )
    return rows
