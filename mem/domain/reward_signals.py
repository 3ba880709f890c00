"""Reward signals (`--eval`, `--accept`, `--ci`) from their option text: write, reinforce."""

from __future__ import annotations

import math
from typing import Any

from mem.core.javascript import js
from mem.errors import MemError


def parse_signals(eval_: str | None, accept: str | None, ci: str | None) -> dict[str, Any]:
    """CLI signal options -> signals, with JavaScript Number() where the reference uses it.

    Deviation D9: a value Number() reads as NaN is refused before anything is read or
    written; the reference stored it as null and folded it as reward 0.
    """
    signals: dict[str, Any] = {}
    if eval_ is not None:
        signals["evalScore"] = _number(eval_, f'--eval must be a number, got "{eval_}"')
    if accept is not None:
        lowered = accept.lower()
        if lowered in ("true", "yes"):
            signals["acceptance"] = True
        elif lowered in ("false", "no"):
            signals["acceptance"] = False
        else:
            signals["acceptance"] = _number(
                accept, f'--accept must be true, false, yes, no or a number, got "{accept}"'
            )
    if ci is not None:
        if ci in ("pass", "fail"):
            signals["ci"] = ci
        else:
            signals["ci"] = _number(ci, f'--ci must be pass, fail or a number, got "{ci}"')
    return signals


def _number(text: str, refusal: str) -> float:
    value = js.to_number(text)
    if math.isnan(value):
        raise MemError(refusal)
    return value
