"""`mem injections`: what the hooks injected into agents' sessions, and how those sessions ended.

The record is the per-machine log the hooks append to (mem.files.machine_state): one line
per injection (time, host, session, event, the memories and their revisions, the size and
SHA-256 of the bytes), and one per `mem write` made inside a session, whose outcome says
how the session's work went. Only this project's lines are listed.
"""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js
from mem.files import machine_state

OUTCOMES = ("success", "partial", "failure", "abandoned")


def _records(root: str) -> list[dict[str, Any]]:
    found = []
    for line in machine_state.read_records().split("\n"):
        if not line.strip():
            continue
        try:
            record = js.parse_json(line)
        except ValueError:
            continue  # a torn line (a machine that crashed mid-append) is skipped
        if isinstance(record, dict) and record.get("project") == root:
            found.append(record)
    return found


def listed(root: str, session: str | None = None) -> list[dict[str, Any]]:
    """This project's injections, oldest first; only one session's with `session`. With
    them, the hooks that printed nothing because the session had every memory that matched
    (kind "withheld"): such a hook did its work, it was not broken."""
    return [
        record
        for record in _records(root)
        if record.get("kind") in ("injection", "withheld")
        and (session is None or record.get("session") == session)
    ]


def outcomes(root: str) -> list[dict[str, Any]]:
    """Per memory: how often it was injected, into how many sessions, and how they ended.

    A session ended as its last `mem write` with an outcome said; "unknown" when none did.
    Memories most often injected first, then by id.
    """
    records = _records(root)
    ended: dict[str, str] = {}
    for record in records:
        if record.get("kind") == "write" and record.get("outcome") in OUTCOMES:
            ended[str(record.get("session"))] = record["outcome"]
    per_memory: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.get("kind") != "injection":
            continue
        session = str(record.get("session"))
        for memory in record.get("memories") or []:
            entry = per_memory.setdefault(
                memory["id"], {"id": memory["id"], "injections": 0, "sessions": set()}
            )
            entry["injections"] += 1
            if record.get("session") is not None:
                entry["sessions"].add(session)
    results = []
    for entry in per_memory.values():
        counts = {name: 0 for name in (*OUTCOMES, "unknown")}
        for session in entry["sessions"]:
            counts[ended.get(session, "unknown")] += 1
        results.append(
            {
                "id": entry["id"],
                "injections": entry["injections"],
                "sessions": len(entry["sessions"]),
                "ended": counts,
            }
        )
    return sorted(results, key=lambda item: (-item["injections"], item["id"]))
