"""Outcome receipts: the strict store format, anchors, scopes and relationships. Pure.

bmad-mem.md sections 8 (scope), 11 (receipt record), 13 (strict store reading) and 14
(superseded and contradictory receipts).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Set as AbstractSet
from typing import Any, TypeGuard

from mem import layout
from mem.core.javascript import js
from mem.core.text import ndjson, parse
from mem.errors import MemError

STORE_MAX = 1000
MAX_SCOPE_ITEMS = 30
MAX_RELATED = 30
MEMORY_FILE = re.compile(r"\.(?:agents|bmad)/memory/(?:decisions|lessons|patterns)\.md")

NO_SCOPE = "An explicit non-empty project scope is required."
BAD_SCOPE = "Outcome scope must be a normalized relative path."


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bounded_text(value: Any, limit: int) -> TypeGuard[str]:
    """A string that is non-empty after trimming and at most `limit` UTF-16 units long."""
    return isinstance(value, str) and js.trim(value) != "" and js.length(value) <= limit


def field(record: Any, key: str) -> Any:
    """record[key] for an object, None for anything else (a hand-made record may be any shape)."""
    return record.get(key) if isinstance(record, dict) else None


def scope_items(items: Any) -> list[str]:
    """An explicit project scope: 1..30 normalised relative paths, de-duplicated and sorted."""
    if not isinstance(items, list) or not items or len(items) > MAX_SCOPE_ITEMS:
        raise MemError(NO_SCOPE)
    for item in items:
        if (
            not isinstance(item, str)
            or not item
            or "\\" in item
            or item.startswith("/")
            or ":" in item
            or any(segment in ("", ".", "..") for segment in item.split("/"))
        ):
            raise MemError(BAD_SCOPE)
    return sorted(set(items), key=js.utf16_key)


def _contains(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer + "/")


def overlaps(first: Any, second: Any) -> bool:
    """Whether some path of one scope equals, or lies under or above, some path of the other."""
    first_items = (
        [item for item in first if isinstance(item, str)] if isinstance(first, list) else []
    )
    second_items = (
        [item for item in second if isinstance(item, str)] if isinstance(second, list) else []
    )
    return any(_contains(a, b) or _contains(b, a) for a in first_items for b in second_items)


def within(items: list[str], allowed: Any) -> bool:
    """Whether every path equals or lies under some path of the accepted task's scope."""
    bounds = (
        [bound for bound in allowed if isinstance(bound, str)] if isinstance(allowed, list) else []
    )
    return all(any(_contains(bound, item) for bound in bounds) for item in items)


def check_anchor_request(file: Any, heading: Any) -> None:
    if not isinstance(file, str) or not MEMORY_FILE.fullmatch(file):
        raise MemError(
            "Outcome memory source must be a project decisions, lessons or patterns Markdown file."
        )
    if not bounded_text(heading, 300):
        raise MemError("Memory heading must be non-empty bounded text.")


def anchor(file: str, heading: str, content: str) -> dict[str, str]:
    """The memory anchor of exactly one section: its file, heading and text hash."""
    matches = [note for note in parse.split_sections(content) if note.heading == heading]
    if len(matches) != 1:
        raise MemError("Memory heading must identify exactly one section.")
    return {"file": file, "heading": heading, "textSha256": sha256_text(matches[0].display)}


def receipt_id(body: dict[str, Any]) -> str:
    """The full SHA-256 of the compact JSON of a receipt without its id."""
    return sha256_text(js.stringify(body))


def build(
    now: str,
    memory: dict[str, str],
    scope: list[str],
    source: dict[str, Any],
    interpretation: str,
    supersedes: list[str],
    contradicts: list[str],
) -> dict[str, Any]:
    body = {
        "schemaVersion": 1,
        "kind": "accepted-outcome",
        "ts": now,
        "memory": memory,
        "scope": scope,
        "source": source,
        "interpretation": interpretation,
        "verification": {
            "status": "passed",
            "acceptance": "accepted",
            "lessonCausality": "unmeasured",
        },
        "supersedes": supersedes,
        "contradicts": contradicts,
    }
    return {"id": receipt_id(body), **body}


def attempt_key(receipt: Any) -> str | None:
    """The task attempt a receipt stands for; None when its source names no attempt."""
    source = field(receipt, "source")
    attempt = field(source, "attemptId")
    if attempt is None or attempt == "" or attempt is False:
        return None
    return js.stringify([field(source, "runId"), field(source, "taskId"), attempt])


def parse_receipts(
    content: str | None, archived: AbstractSet[str] = frozenset()
) -> list[dict[str, Any]]:
    """The receipts of outcomes.ndjson, or a MemError for any sign of damage (fail closed).

    Receipts on lines the store's archives hold (`archived`, deviation D14) count there:
    they are checked with the others (a later receipt may name them) but not returned.
    """
    if content is None:
        return []
    if ndjson.has_conflict_markers(content):
        raise MemError(ndjson.CONFLICTED)
    if content and not content.endswith("\n"):
        raise MemError("Outcome store has an incomplete final record.")
    records = []
    live = []
    for number, line in ndjson.distinct_lines(content):
        live.append(js.trim(line) not in archived)
        try:
            records.append(js.parse_json(line))
        except ValueError as error:
            raise MemError(
                f"Outcome store {layout.OUTCOMES} line {number} is not JSON: {error}"
            ) from None
    if sum(live) > STORE_MAX:
        raise MemError(f"Outcome store exceeds {STORE_MAX} records.")
    seen_ids: set[str] = set()
    seen_attempts: set[str] = set()
    for record in records:
        if not receipt_intact(record) or record["id"] in seen_ids:
            raise MemError("Outcome receipt integrity or uniqueness check failed.")
        for key in ("supersedes", "contradicts"):
            related = record.get(key)
            if not isinstance(related, list) or not all(
                isinstance(other, str) and other in seen_ids for other in related
            ):
                raise MemError("Outcome relationships must identify earlier receipts.")
        attempt = attempt_key(record)
        if attempt is None or attempt in seen_attempts:
            raise MemError("Duplicate or missing outcome attempt identity.")
        seen_ids.add(record["id"])
        seen_attempts.add(attempt)
    return [record for record, counted in zip(records, live, strict=True) if counted]


def receipt_intact(record: Any) -> bool:
    """Whether a record is a receipt whose id is the hash of the rest of it."""
    if not isinstance(record, dict) or not isinstance(record.get("id"), str):
        return False
    schema = record.get("schemaVersion")
    if isinstance(schema, bool) or schema != 1 or record.get("kind") != "accepted-outcome":
        return False
    body = {key: value for key, value in record.items() if key != "id"}
    return bool(record["id"] == receipt_id(body))


def related_ids(value: Any, stored: list[dict[str, Any]], scope: list[str]) -> list[str]:
    """A supersedes or contradicts list: earlier receipts of an overlapping scope, sorted."""
    ids = value if value not in (None, False, 0, "") else []
    if not isinstance(ids, list) or len(ids) > MAX_RELATED or not _unique(ids):
        raise MemError("Outcome relationships must be a unique bounded receipt-ID list.")
    by_id = {receipt["id"]: receipt for receipt in stored}
    for other in ids:
        related = by_id.get(other) if isinstance(other, str) else None
        if related is None or not overlaps(related.get("scope"), scope):
            raise MemError("Related outcome must exist in the same applicable project scope.")
    return sorted(ids, key=js.utf16_key)


def _unique(values: list[Any]) -> bool:
    # JavaScript's Set: primitives by value, objects by identity (never equal to another).
    keys = [js.stringify(v) if not isinstance(v, dict | list) else id(v) for v in values]
    return len(set(keys)) == len(keys)


def relationship_reasons(stored: list[dict[str, Any]]) -> list[str | None]:
    """`superseded` or `contradictory` per receipt (section 14 steps 1-2), else None."""
    superseded = {other for receipt in stored for other in _list(receipt.get("supersedes"))}
    contradictory: set[Any] = set()
    for receipt in stored:
        if receipt["id"] in superseded:
            continue
        for other in _list(receipt.get("contradicts")):
            if other not in superseded:
                contradictory.update((receipt["id"], other))
    anchors = {_anchor_key(receipt) for receipt in stored if receipt["id"] in contradictory}
    reasons: list[str | None] = []
    for receipt in stored:
        if receipt["id"] in superseded:
            reasons.append("superseded")
        elif _anchor_key(receipt) in anchors:
            reasons.append("contradictory")
        else:
            reasons.append(None)
    return reasons


def _list(value: Any) -> list[Any]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _anchor_key(receipt: dict[str, Any]) -> str:
    memory = receipt.get("memory")
    return js.stringify([field(memory, "file"), field(memory, "heading")])


def index_rows(
    data: bytes, archived: AbstractSet[str] = frozenset()
) -> list[tuple[str, dict[str, object]]]:
    """Rows of the index's `receipts` table: every JSON-object line, damaged or not, but
    those its archives hold (deviation D14)."""
    parsed = []
    for number, raw in ndjson.distinct_lines(data.decode("utf-8", errors="replace"), archived):
        line = js.trim(raw)
        try:
            record = js.parse_json(line)
        except ValueError:
            record = None
        if isinstance(record, dict):
            parsed.append((number, line, record))
    whole = [record for _, _, record in parsed if receipt_intact(record)]
    relationship = dict(zip((r["id"] for r in whole), relationship_reasons(whole), strict=True))
    rows: list[tuple[str, dict[str, object]]] = []
    for number, line, record in parsed:
        memory = record.get("memory")
        source = record.get("source")
        ok = receipt_intact(record)
        rows.append(
            (
                "receipts",
                {
                    "line": number,
                    "id": _text(record.get("id")),
                    "intact": int(ok),
                    "ts": _text(record.get("ts")),
                    "memory_file": _text(field(memory, "file")),
                    "memory_heading": _text(field(memory, "heading")),
                    "text_sha256": _text(field(memory, "textSha256")),
                    "scope": js.stringify(_list(record.get("scope"))),
                    "run_id": _text(field(source, "runId")),
                    "task_id": _text(field(source, "taskId")),
                    "attempt_id": _text(field(source, "attemptId")),
                    "verification_id": _text(field(source, "verificationId")),
                    "accepted_at": _text(field(source, "acceptedAt")),
                    "interpretation": _text(record.get("interpretation")),
                    "supersedes": js.stringify(_list(record.get("supersedes"))),
                    "contradicts": js.stringify(_list(record.get("contradicts"))),
                    "relationship": relationship.get(record["id"]) if ok else None,
                    "record": line,
                },
            )
        )
    return rows


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
