"""Canonical file contents -> records. Pure: no clock, no environment, no I/O.

The splitting and tokenising rules are the contract's (bmad-mem.md section 7), including
the JavaScript regular-expression details the reference implementation depends on.
"""

from __future__ import annotations

import functools
from collections import Counter

from mem.core.javascript import js

# English function words: what says nothing of a note or a task, for the readers that pick
# a text's content words (the brief's relevance, findability's queries), never recall.
FUNCTION_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself
    just let like me more most my no nor not now of off on once only or other our ours out over
    own please same she should so some such than that the their them then there these they
    this those through to too under until up us very was we were what when where which while
    who whom why will with would you your yours
    """.split()
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from collections.abc import Set as AbstractSet
    from typing import Any

# Bump when the records produced for the same bytes change (mem.core.text.tokens' terms included):
# the index version includes it.
PARSER_VERSION = 5

# Token characters (section 7). Every one is Latin-1, so a lower-cased text encoded to
# Latin-1 (anything else becoming "?", a separator) keeps one byte per character, and one
# bytes.translate turns every separator into a space: split() then yields the tokens.
TOKEN_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789àâäéèêëïîôöùûüç_-"
_SEPARATORS_TO_SPACE = bytes(code if chr(code) in TOKEN_CHARACTERS else 0x20 for code in range(256))
_SINGLE_CHARACTER_TOKENS = frozenset(character.encode("latin-1") for character in TOKEN_CHARACTERS)
# The patterns below are compiled on first use, and `re` imported then: a recall only
# tokenizes its query, and importing re costs it about 5 ms (compiling these, 1 ms more).


def _blank_in_line() -> str:
    """A JS `\\s` but "\\n", as a character-class body."""
    import re

    return re.escape(js.JS_WHITESPACE.replace("\n", ""))


def _heading() -> str:
    # JS /^###\s+(.*)/ on each "\n"-separated line: `.` stops at \r, U+2028 and U+2029.
    return rf"###[{_blank_in_line()}]+([^\n\r\u2028\u2029]*)"


# Searched from its literal "\n###" (far faster than trying `^` at every character); the
# first line is matched on its own.
@functools.cache
def _heading_after_newline() -> re.Pattern[str]:
    import re

    return re.compile(rf"\n({_heading()})")


@functools.cache
def _heading_at_start() -> re.Pattern[str]:
    import re

    return re.compile(rf"({_heading()})")


def _heading_lines(content: str) -> Iterator[tuple[int, int, int, str]]:
    """(line start, heading text start, its end, heading text) of every heading line."""
    first = _heading_at_start().match(content)
    if first is not None:
        yield 0, first.start(2), first.end(2), first.group(2)
    for match in _heading_after_newline().finditer(content):
        yield match.start(1), match.start(2), match.end(2), match.group(2)


def token_bytes(text: str) -> bytes:
    """The text with every separator a space: its split() is the tokens (and 1-character runs)."""
    return lowered_token_bytes(text.lower())


def lowered_token_bytes(lowered: str) -> bytes:
    """token_bytes() of a text already lower-cased."""
    return lowered.encode("latin-1", "replace").translate(_SEPARATORS_TO_SPACE)


def tokenize(text: str) -> list[str]:
    parts = token_bytes(text).decode("latin-1").split()
    return [part for part in parts if len(part) > 1]


def term_counts(spaced: bytes) -> tuple[dict[bytes, int], int]:
    """(token -> frequency, token count) of a token_bytes() text; tokens stay Latin-1 bytes."""
    parts = spaced.split()
    counts: dict[bytes, int] = Counter(parts)
    length = len(parts)
    for single in _SINGLE_CHARACTER_TOKENS.intersection(counts):
        length -= counts.pop(single)
    return counts, length


def query_tokens(query: str) -> list[str]:
    return list(dict.fromkeys(tokenize(query)))


class Note:
    """A `###` section of a notes file."""

    __slots__ = ("ordinal", "heading", "text")

    def __init__(self, ordinal: int, heading: str, text: str) -> None:
        self.ordinal = ordinal
        self.heading = heading
        self.text = text  # heading + "\n" + body, untrimmed: what is scored

    @property
    def display(self) -> str:
        return js.trim(self.text)


def heading_hidden_by_bom(content: str) -> str | None:
    """The heading that a byte order mark at the very start of a file hides, or None.

    The reference reads that first line as body text before any heading, so recall never
    finds the note (golden case 08); mem reads it the same way and says so instead."""
    if not content.startswith("\ufeff"):
        return None
    first = _heading_at_start().match(content, 1)
    return None if first is None else js.trim(first.group(2))


def split_sections(content: str) -> list[Note]:
    return [Note(ordinal, heading, text) for ordinal, heading, text, _ in sections(content)]


# Where a heading line starts: "###" and one blank say so, whatever follows on the line.
@functools.cache
def _heading_line_after_newline() -> re.Pattern[str]:
    import re

    return re.compile(rf"\n###[{_blank_in_line()}]")


def section_bounds(content: str) -> list[tuple[int, int]]:
    """(start, end) of each section's source: its heading line up to the next one, or the end."""
    starts = [match.start() + 1 for match in _heading_line_after_newline().finditer(content)]
    if _heading_at_start().match(content):
        starts.insert(0, 0)
    return list(zip(starts, starts[1:] + [len(content)], strict=False))  # none: no end


@functools.cache
def utf8_heading_lines() -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """The same in UTF-8, after a newline and at the start: "###" and one blank's bytes."""
    import re

    blank = b"|".join(re.escape(one.encode()) for one in js.JS_WHITESPACE if one != "\n")
    return re.compile(rb"\n###(?:" + blank + rb")"), re.compile(rb"###(?:" + blank + rb")")


def utf8_section_bounds(data: bytes) -> list[tuple[int, int]]:
    """section_bounds() in bytes of valid UTF-8: no decoding needed."""
    after_newline, at_start = utf8_heading_lines()
    starts = [match.start() + 1 for match in after_newline.finditer(data)]
    if at_start.match(data):
        starts.insert(0, 0)
    return list(zip(starts, starts[1:] + [len(data)], strict=False))


def sections(content: str) -> Iterator[tuple[int, str, str, tuple[int, int, int, int, int]]]:
    """(ordinal, heading, scored text, (heading start, heading end, body start, body end,
    source start)).

    The spans index `content`: the scored text is content[hs:he] trimmed + "\n" + the body,
    whose lines all end with "\n" (the last one gets it added). A caller can tokenise a
    stretch of the file once and slice it per section. A section's source (section_bounds)
    runs from its heading line's start (hs less the "###" and blanks) to the body's end.
    """
    size = len(content)
    lines = _heading_lines(content)
    current = next(lines, None)
    position = 0
    while current is not None:
        following = next(lines, None)
        line_start, text_start, text_end, text = current
        line_end = content.find("\n", text_end)
        if following is not None:
            body_end = following[0]
            body = content[line_end + 1 : body_end]
        elif line_end < 0:
            line_end = body_end = size
            body = ""
        else:
            body_end = size
            body = content[line_end + 1 :] + "\n"
        heading = js.trim(text)
        spans = (text_start, text_end, min(line_end + 1, size), body_end, line_start)
        yield position, heading, heading + "\n" + body, spans
        position += 1
        current = following


_TEXT_FIELDS = ("agent", "cli", "model", "task", "outcome")


class Event:
    """A journal line that parses as a JSON object."""

    __slots__ = ("offset", "data", "line")

    def __init__(self, offset: int, data: dict[str, Any], line: str) -> None:
        self.offset = offset  # byte offset of the line in the journal: a total, append-stable order
        self.data = data
        self.line = line

    @property
    def ref(self) -> str:
        event_id = self.data.get("id")
        if event_id is not None and _truthy(event_id):
            return to_js_string(event_id)
        return to_js_string(self.data.get("ts", _UNDEFINED))

    @property
    def text(self) -> str:
        data = self.data
        fields = []
        for key in _TEXT_FIELDS:
            value = data.get(key)
            if value.__class__ is str:  # the usual case, spelt out: String() of a string
                if value:
                    fields.append(value)
            elif _truthy(value):
                fields.append(to_js_string(value))
        signals = data.get("signals")
        # JSON.stringify never gives an empty string: the signals always take a place.
        if signals.__class__ is dict and not signals:
            fields.append("{}")
        else:
            fields.append(js.stringify(signals if _truthy(signals) else {}))
        return " ".join(fields)

    @property
    def agent(self) -> str | None:
        agent = self.data.get("agent")
        return agent if isinstance(agent, str) else None

    def timestamp(self) -> js.ParsedDate | None:
        ts = self.data.get("ts")
        if ts.__class__ is str:
            return js.parse_date(ts)
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
    if value.__class__ is str:
        return value != ""
    if value is None or value is False or isinstance(value, _Undefined):
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def to_js_string(value: Any) -> str:
    """String(value) for JSON-parsed values."""
    if value.__class__ is str:
        return value
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


def parse_journal(
    data: bytes, base_offset: int = 0, archived: AbstractSet[str] = frozenset()
) -> list[Event]:
    """Every line that parses as a JSON object; torn and corrupt lines are skipped, as upstream.

    A line repeated further down (a git merge can do that) is one event (deviation D11), and
    so is a line of the store's archives (`archived`, trimmed lines: deviation D14).
    """
    found = (event_of(offset, line) for offset, line in journal_lines(data, base_offset, archived))
    return [event for event in found if event is not None]


def journal_lines(
    data: bytes, base_offset: int = 0, archived: AbstractSet[str] = frozenset()
) -> Iterator[tuple[int, str]]:
    """(byte offset, trimmed text) of every non-blank line but repeats (deviation D11) and
    lines of the store's archives (deviation D14)."""
    seen: set[str] = set()
    offset = base_offset
    for raw in data.split(b"\n"):
        line = js.trim(raw.decode("utf-8", errors="replace"))
        if line and line not in seen and line not in archived:
            seen.add(line)
            yield offset, line
        offset += len(raw) + 1


def event_of(offset: int, line: str) -> Event | None:
    """The event of a journal line, or None when it is not a JSON object."""
    try:
        value = js.parse_json(line)
    except ValueError:
        return None
    return Event(offset, value, line) if isinstance(value, dict) else None
