"""The one reading of "now" per action: `MEM_NOW` when set (tests pin it), else the system clock."""

from __future__ import annotations

import os
import time

from mem.core.javascript import js
from mem.errors import MemError


def now_iso() -> str:
    pinned = os.environ.get("MEM_NOW")
    if pinned:
        parsed = js.parse_date(pinned)
        if parsed is None:
            raise MemError(f"MEM_NOW is not an ISO 8601 date-time: {pinned}")
        return js.iso_from_ms(parsed.ms + (local_offset_ms(parsed.ms) if parsed.local else 0))
    return js.iso_from_ms(time.time_ns() // 1_000_000)


def local_offset_ms(wall_ms: float) -> float:
    """How far UTC is ahead of local wall-clock time at that moment (JavaScript's local dates)."""
    seconds = wall_ms / 1000
    local = time.localtime(seconds)
    return -local.tm_gmtoff * 1000.0
