"""`mem write`: journal events, built and validated exactly as the reference's appendEvent."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core import js, secrets
from mem.errors import MemError
from mem.files import writing

JOURNAL = layout.JOURNAL
OUTCOMES = ("success", "failure", "partial", "abandoned")


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


def event_id(ts: str, agent: str, task: str) -> str:
    return hashlib.sha256(f"{ts}\0{agent}\0{task}".encode()).hexdigest()[:12]


def build_event(
    ts: str,
    agent: str | None,
    cli: str | None,
    model: str | None,
    task: str | None,
    outcome: str | None,
    signals: dict[str, Any],
) -> dict[str, Any]:
    if js.parse_date(ts) is None:
        raise MemError(
            "appendEvent: event.ts is required and must be an ISO string or epoch ms "
            "(injected by the caller — this module never calls Date.now())"
        )
    if not agent:
        raise MemError("appendEvent: event.agent is required")
    if outcome is not None and outcome not in OUTCOMES:
        raise MemError(
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned"
        )
    task = task or ""
    return {
        "ts": ts,
        "agent": agent,
        "cli": cli or None,
        "model": model or None,
        "task": task,
        "outcome": outcome,
        "signals": signals,
        "artifactHashes": [],
        "id": event_id(ts, agent, task),
    }


def append_event(
    root: str, event: dict[str, Any], allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    secrets.refuse(
        [(f"--{name}", event[name]) for name in ("agent", "cli", "model", "task")], allow_secrets
    )
    writing.append_line(root, JOURNAL, js.stringify(event) + "\n")
    return event
