"""NDJSON store lines as every reader counts them, after a git merge (deviations D11, D14). Pure.

Two clones appending to one store and merged by git (the `union` driver, or a resolution
that concatenates both sides) can leave the same line twice. Such a line is one record:
readers skip a line whose text (surrounding whitespace aside) appeared above it, so recall,
outcomes, status, audits and the index count it once. Different lines that share a record
id are a real disagreement, reported rather than guessed away.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from mem.core.javascript import js

# git's markers: seven characters at the start of a line (`=======` stands alone).
_CONFLICT_MARKER = re.compile(
    rb"^(?:<<<<<<<|>>>>>>>|\|\|\|\|\|\|\|)(?: |\r?$)|^=======\r?$", re.MULTILINE
)
CONFLICTED = "Memory store has unresolved merge conflict markers; resolve them before writing."


def distinct_lines(
    content: str, archived: AbstractSet[str] = frozenset()
) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of each non-blank line not seen above it, in file order.

    `archived`: the trimmed lines of the store's archives, which stand above the live store
    (deviation D14): such a line counts in its archive, not here.
    """
    seen: set[str] = set()
    for number, raw in enumerate(content.split("\n"), start=1):
        key = js.trim(raw)
        if not key or key in seen or key in archived:
            continue
        seen.add(key)
        yield number, raw


def has_conflict_markers(data: bytes | str) -> bool:
    """Whether a store still holds the markers of an unresolved git merge conflict.

    A plain search first: writers check the whole store on every append.
    """
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    if b"<<<<<<<" not in raw and b">>>>>>>" not in raw and b"=======" not in raw:
        return False
    return _CONFLICT_MARKER.search(raw) is not None


def shared_ids(content: str) -> list[dict[str, Any]]:
    """Record ids carried by more than one distinct line: `{"id", "lines"}`, by first line."""
    lines_of: dict[str, list[int]] = {}
    for number, raw in distinct_lines(content):
        try:
            record = js.parse_json(js.trim(raw))
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            lines_of.setdefault(record["id"], []).append(number)
    return [{"id": key, "lines": lines} for key, lines in lines_of.items() if len(lines) > 1]


def damaged_lines(content: str) -> list[tuple[int, str]]:
    """(line number, why) of each line readers skip: not JSON, nested too deep, not an object."""
    found = []
    for number, raw in distinct_lines(content):
        try:
            record = js.parse_json(js.trim(raw))
        except js.JsonTooDeep as error:
            found.append((number, str(error)))
            continue
        except ValueError:
            found.append((number, "not valid JSON"))
            continue
        if not isinstance(record, dict):
            found.append((number, "not a JSON object"))
    return found
