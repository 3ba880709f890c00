"""`mem write`: journal events, built and validated exactly as the reference's appendEvent."""

from __future__ import annotations

import hashlib
from typing import Any

from mem import layout
from mem.core import js
from mem.errors import MemError
from mem.files import writing

JOURNAL = layout.JOURNAL
OUTCOMES = ("success", "failure", "partial", "abandoned")


def parse_signals(eval_: str | None, accept: str | None, ci: str | None) -> dict[str, Any]:
    """CLI signal options -> signals, with JavaScript Number() where the reference uses it."""
    signals: dict[str, Any] = {}
    if eval_ is not None:
        signals["evalScore"] = js.to_number(eval_)
    if accept is not None:
        lowered = accept.lower()
        if lowered in ("true", "yes"):
            signals["acceptance"] = True
        elif lowered in ("false", "no"):
            signals["acceptance"] = False
        else:
            signals["acceptance"] = js.to_number(accept)
    if ci is not None:
        signals["ci"] = ci if ci in ("pass", "fail") else js.to_number(ci)
    return signals


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


def append_event(root: str, event: dict[str, Any]) -> dict[str, Any]:
    writing.append_line(root, JOURNAL, js.stringify(event) + "\n")
    return event
