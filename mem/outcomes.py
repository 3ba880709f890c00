"""`mem outcomes`: observed receipts and their eligibility (bmad-mem.md sections 13-14)."""

from __future__ import annotations

from typing import Any

from mem import files, js
from mem.errors import MemError

STORE = ".bmad/memory/outcomes.ndjson"


def inspect(root: str) -> list[dict[str, Any]]:
    content = files.read_bounded(root, STORE)
    if content is None or not js.trim(content):
        return []
    raise MemError("Outcome receipts are not supported by this version of mem yet.")


def render(results: list[dict[str, Any]], as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty({"count": len(results), "results": results}) + "\n"
    if not results:
        return "mem outcomes: no observations.\n"
    return "".join(
        f"{result['id']}: {result['reason'] or 'accepted-current'}\n" for result in results
    )
