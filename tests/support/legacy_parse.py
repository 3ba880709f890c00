"""The parser as it was before issue 11 (regex tokenizer, line-by-line splitter): the oracle."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from mem.core.javascript import js

# Bump when the records produced for the same bytes change: the index version includes it.
PARSER_VERSION = 1

_TOKEN = re.compile(r"[a-z0-9àâäéèêëïîôöùûüç_-]{2,}")
_WS = re.escape(js.JS_WHITESPACE)
# JS /^###\s+(.*)/: `.` stops at \r, U+2028 and U+2029, and there is no `$` anchor.
_HEADING = re.compile(rf"###[{_WS}]+([^\n\r\u2028\u2029]*)")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def query_tokens(query: str) -> list[str]:
    return list(dict.fromkeys(tokenize(query)))


class Note(NamedTuple):
    ordinal: int
    heading: str
    text: str  # heading + "\n" + body, untrimmed: what is scored

    @property
    def display(self) -> str:
        return js.trim(self.text)


def split_sections(content: str) -> list[Note]:
    notes: list[Note] = []
    heading: str | None = None
    body: list[str] = []
    for line in content.split("\n"):
        match = _HEADING.match(line)
        if match:
            if heading is not None:
                notes.append(Note(len(notes), heading, heading + "\n" + "".join(body)))
            heading = js.trim(match.group(1))
            body = []
        elif heading is not None:
            body.append(line + "\n")
    if heading is not None:
        notes.append(Note(len(notes), heading, heading + "\n" + "".join(body)))
    return notes


class Event(NamedTuple):
    offset: int  # byte offset of the line in the journal: a total, append-stable order
    data: dict[str, Any]
    line: str

    @property
    def ref(self) -> str:
        event_id = self.data.get("id")
        if event_id is not None and _truthy(event_id):
            return to_js_string(event_id)
        return to_js_string(self.data.get("ts", _UNDEFINED))

    @property
    def text(self) -> str:
        data = self.data
        fields = [data.get(k) for k in ("agent", "cli", "model", "task", "outcome")]
        signals = data.get("signals")
        fields.append(js.stringify(signals if _truthy(signals) else {}))
        return " ".join(to_js_string(v) for v in fields if _truthy(v))

    @property
    def agent(self) -> str | None:
        agent = self.data.get("agent")
        return agent if isinstance(agent, str) else None

    def timestamp(self) -> js.ParsedDate | None:
        ts = self.data.get("ts")
        if isinstance(ts, bool) or ts is None:
            return None
        if isinstance(ts, int | float):
            return js.ParsedDate(float(ts), False) if abs(ts) <= 8.64e15 else None
        if isinstance(ts, str):
            return js.parse_date(ts)
        return None


class _Undefined:
    pass


_UNDEFINED = _Undefined()


def _truthy(value: Any) -> bool:
    if value is None or value is False or isinstance(value, _Undefined):
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def to_js_string(value: Any) -> str:
    """String(value) for JSON-parsed values."""
    if isinstance(value, _Undefined):
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return js.number_to_string(value)
    if isinstance(value, list):
        return ",".join("" if v is None else to_js_string(v) for v in value)
    return "[object Object]"


def parse_journal(data: bytes, base_offset: int = 0) -> list[Event]:
    """Every line that parses as a JSON object; torn and corrupt lines are skipped, as upstream."""
    events: list[Event] = []
    offset = 0
    for raw in data.split(b"\n"):
        line = js.trim(raw.decode("utf-8", errors="replace"))
        if line:
            try:
                value = js.parse_json(line)
            except ValueError:
                value = None
            if isinstance(value, dict):
                events.append(Event(base_offset + offset, value, line))
        offset += len(raw) + 1
    return events
