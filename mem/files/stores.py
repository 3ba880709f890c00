"""Self-hashing NDJSON stores: the evidence and lifecycle records under `.bmad/memory/`.

A record's `id` is the hex SHA-256 of the compact JSON of the record without `id`, so a
store can prove each line is what was written. Reading is strict (fail closed): these
records decide what users are told to review, so a torn or edited line stops the command
with the line number instead of being skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from mem.core.javascript import js
from mem.core.text import ndjson
from mem.errors import MemError
from mem.files import archives, safe_paths

Record = dict[str, Any]


def record_id(body: Record) -> str:
    return hashlib.sha256(js.stringify(body).encode("utf-8")).hexdigest()


def with_id(body: Record) -> Record:
    """The record as stored: `id` first, then the body's keys in their order."""
    return {"id": record_id(body), **body}


def line_of(record: Record) -> str:
    return js.stringify(record) + "\n"


def parse_store(
    label: str,
    content: str,
    well_formed: Callable[[Record], bool],
    archived: AbstractSet[str] = frozenset(),
) -> list[Record]:
    """Every record of a store's text, each checked for shape and integrity, but those of
    lines its archives hold (`archived`, deviation D14: they count there). Pure.

    Every line is checked, archived or not: a damaged line fails closed wherever it is.
    """
    if ndjson.has_conflict_markers(content):
        raise MemError(ndjson.CONFLICTED)
    if content and not content.endswith("\n"):
        raise MemError(f"{label} store has an incomplete final record.")
    records: list[Record] = []
    for number, line in ndjson.distinct_lines(content):
        try:
            record = js.parse_json(line)
        except js.JsonTooDeep:
            raise MemError(
                f"{label} store line {number} is nested deeper than {js.MAX_JSON_DEPTH} levels."
            ) from None
        except ValueError:
            raise MemError(f"{label} store line {number} is not valid JSON.") from None
        if not intact(record, well_formed):
            raise MemError(f"{label} record integrity check failed at line {number}.")
        if js.trim(line) not in archived:
            records.append(record)
    return records


def intact_records(
    content: str, well_formed: Callable[[Record], bool], archived: AbstractSet[str] = frozenset()
) -> list[Record]:
    """The records parse_store would accept, the damaged lines skipped instead. Pure.

    For readers that must keep answering (lexical recall), as for a torn journal line.
    """
    records: list[Record] = []
    for _, line in ndjson.distinct_lines(content, archived):
        try:
            record = js.parse_json(line)
        except ValueError:
            continue
        if intact(record, well_formed):
            records.append(record)
    return records


def lifecycle_well_formed(record: Record) -> bool:
    """A `mem supersede|retract` event's shape (its integrity is checked apart)."""
    kind = record.get("kind")
    successor = record.get("with")
    return (
        isinstance(record.get("ts"), str)
        and is_memory_ref(record.get("memory"))
        and isinstance(record.get("reason"), str)
        and (
            (kind == "superseded" and is_memory_ref(successor))
            or (kind == "retracted" and successor is None)
        )
    )


def intact(record: Any, well_formed: Callable[[Record], bool]) -> bool:
    """Whether a parsed line is a record as written: version 1, well formed, its own id."""
    return (
        isinstance(record, dict)
        and record.get("schemaVersion") == 1
        and well_formed(record)
        and record.get("id") == record_id({k: v for k, v in record.items() if k != "id"})
    )


def read_store(
    root: str, relative: str, label: str, well_formed: Callable[[Record], bool]
) -> list[Record]:
    """The live records of a store: strictly read, lines its archives hold left out (D14)."""
    content = safe_paths.read_bounded(root, relative)
    if content is None:
        return []
    return parse_store(label, content, well_formed, archives.archived_lines(root, relative))


def is_memory_ref(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(value.get(key), str) for key in ("id", "file", "heading", "revision")
    )


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def json_lines(
    data: bytes, archived: AbstractSet[str] = frozenset()
) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of each line that parses; index loaders may skip the rest.

    Lines the store's archives hold (`archived`, trimmed) count there (deviation D14)."""
    found = []
    seen: set[str] = set()
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        key = js.trim(text)
        if key in seen or key in archived:
            continue  # the same line twice is one record (deviations D11, D14)
        seen.add(key)
        try:
            value = js.parse_json(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append((number, value))
    return found
