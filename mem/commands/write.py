"""`mem write`: journal events, built and validated exactly as the reference's appendEvent."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import secrets
from mem.domain import reward_signals
from mem.errors import MemError
from mem.files import machine_state, writing

JOURNAL = layout.JOURNAL
OUTCOMES = ("success", "failure", "partial", "abandoned")


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


def write(
    root: str,
    now: str,
    *,
    agent: str | None,
    cli: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    eval_: str | None = None,
    accept: str | None = None,
    ci: str | None = None,
    allow_secrets: Iterable[str] = (),
    session: str | None = None,
) -> dict[str, Any]:
    """Build the event from the option texts and append it; returns the event written.

    The session it was written in (`session`, else the one the environment names) is noted
    in the per-machine record, so `mem injections --outcomes` can tell how sessions that
    were given memories ended; the event itself keeps the reference's format.
    """
    signals = reward_signals.parse_signals(eval_, accept, ci)
    event = build_event(now, agent, cli, model, task, outcome, signals)
    if session is not None and not js.trim(session):
        raise MemError("--session must not be empty.")
    written = append_event(root, event, allow_secrets)
    host = None
    if session is None:
        session, host = machine_state.session_from_environment()
    if session is not None:
        try:
            machine_state.record_write(root, now, session, host, event["id"], event["outcome"])
        except OSError:
            pass  # the event is written; an unwritable state directory loses only this note
    return written
