"""Every byte recall and write print. Pure."""

from __future__ import annotations

import re
from typing import Any

from mem import js

_WHITESPACE_RUN = re.compile(f"[{re.escape(js.JS_WHITESPACE)}]+")
TRUNCATE_AT = 120


def truncate(text: str) -> str:
    """Collapse whitespace and cut to 120 UTF-16 code units, as the reference counts them."""
    flat = js.trim(_WHITESPACE_RUN.sub(" ", text))
    units = flat.encode("utf-16-le", errors="surrogatepass")
    if len(units) <= TRUNCATE_AT * 2:
        return flat
    # A cut through a surrogate pair leaves half a character, which Node prints as U+FFFD.
    head = units[: (TRUNCATE_AT - 1) * 2].decode("utf-16-le", errors="replace")
    return head + "…"


def recall_text(query: str, scope: str, results: list[dict[str, Any]]) -> str:
    if not results:
        return f'mem recall: no matches for "{query}" (scope: {scope})\n'
    lines = [f'mem recall: {len(results)} match(es) for "{query}" (scope: {scope})']
    for position, entry in enumerate(results, start=1):
        score = js.to_fixed(entry["score"], 3)
        if entry["kind"] == "event":
            lines.append(f"  {position}. [{score}] event {entry['source']}#{entry['ref']}")
        else:
            lines.append(f"  {position}. [{score}] note {entry['source']} § {entry['ref']}")
        lines.append(f"     {truncate(entry['text'])}")
    return "\n".join(lines) + "\n"


def recall_json(query: str, scope: str, ranking: str, results: list[dict[str, Any]]) -> str:
    envelope = {"query": query, "scope": scope, "ranking": ranking, "count": len(results), "results": results}
    return js.stringify_pretty(envelope) + "\n"


def write_text(event: dict[str, Any]) -> str:
    def shown(value: Any) -> str:
        return str(value) if value else "-"

    lines = [
        f"mem write: event {event['id']} appended ({event['ts']})",
        f"  agent={event['agent']} cli={shown(event['cli'])} model={shown(event['model'])}"
        f" outcome={shown(event['outcome'])}",
    ]
    if event["task"]:
        lines.append(f"  task: {truncate(event['task'])}")
    return "\n".join(lines) + "\n"


def written_json(record: dict[str, Any]) -> str:
    return js.stringify_pretty({"written": record}) + "\n"


def observe_text(receipt: dict[str, Any]) -> str:
    return f"mem observe: {receipt['id']} recorded; lesson causality remains unmeasured.\n"


def error_json(message: str) -> str:
    return js.stringify({"error": message}) + "\n"
