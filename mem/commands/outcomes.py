"""`mem outcomes`: every outcome receipt and whether it is still eligible (bmad-mem.md 13-14)."""

from __future__ import annotations

from typing import Any

from mem.domain import outcome_receipts


def listed(root: str) -> list[dict[str, Any]]:
    """Every receipt in store order with `eligible` and `reason`, recomputed from the files."""
    return outcome_receipts.inspect(root)
