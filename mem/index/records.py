"""Canonical bytes -> index records (RecordRow), streamed; and the digests a re-sync compares.

A note is identified by its source (its heading line up to the next heading), an event by
its trimmed journal line: everything the index holds of a record follows from that text,
so a re-sync keeps every record whose digest is still in the file and parses only the rest.
"""

from __future__ import annotations

import xxhash

from mem import layout
from mem.core.javascript import js
from mem.core.text import parse
from mem.index.rows import RecordRow

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# Characters of a notes file lower-cased and tokenised in one go: bounds the copies alive.
STRETCH = 1 << 20


def digest(text: str) -> int:
    """A signed 64-bit digest (SQLite's INTEGER) of a record's identifying text."""
    return xxhash.xxh3_64_intdigest(text.encode("utf-8", "surrogatepass")) - (1 << 63)


def utf8_digest(encoded: bytes) -> int:
    """digest() of a text given in UTF-8."""
    return xxhash.xxh3_64_intdigest(encoded) - (1 << 63)


def records_for(
    kind: str, data: bytes, base_offset: int = 0, relative: str = ""
) -> Iterator[RecordRow]:
    """The records of a source's bytes (or of a journal's appended tail), in file order.

    Notes of a project's six memory files (`relative`) also carry their memory id and
    revision, so audits can join them with evidence, lifecycle events and receipts in SQL.
    """
    if kind == "journal":
        for offset, line in parse.journal_lines(data, base_offset):
            record = event_record(offset, line)
            if record is not None:
                yield record
        return
    yield from note_records(data.decode("utf-8", errors="replace"), relative)


def is_memory(relative: str) -> bool:
    return layout.is_memory_file(relative)


def as_memory(record: RecordRow, relative: str) -> RecordRow:
    """The note, as a note of a memory file: with its memory id and revision."""
    from mem.core.rules import memory_ids as memory  # hashing: only when memory files change

    record.memory_id = memory.memory_id(relative, record.ref)
    record.revision = memory.revision_of(record.text)
    return record


def note_records(content: str, relative: str = "", first: int = 0) -> Iterator[RecordRow]:
    """The notes of a file's text; those of a memory file (`relative`) with id and revision.

    `content` may also be a stretch of the file cut before headings, whose first section is
    the file's section `first`: its records are those the whole file gives (the last
    section's scored text gains a newline only, which neither its trimmed text nor its
    tokens show).
    """
    memory_id = revision_of = None
    if is_memory(relative):
        from mem.core.rules import memory_ids as memory  # hashing: only when memory files change

        memory_id, revision_of = memory.memory_id, memory.revision_of
    start = end = 0
    spaced: bytes | None = None
    for ordinal, heading, text, spans in parse.sections(content):
        head_start, head_end, body_start, body_end, source_start = spans
        if body_end > end:
            # Tokenise the next stretch at once, then slice it per section: lower-casing
            # keeps positions unless a character expands (İ), and then this falls back.
            start, end = head_start, max(body_end, head_start + STRETCH)
            stretch = content[start:end]
            lowered = stretch.lower()
            spaced = parse.lowered_token_bytes(lowered) if len(lowered) == len(stretch) else None
        if spaced is None:
            counts, length = parse.term_counts(parse.token_bytes(text))
        elif body_start == head_end + 1:
            # The heading runs to its line's "\n", a separator like the one the scored
            # text puts between heading and body: one slice holds both.
            counts, length = parse.term_counts(spaced[head_start - start : body_end - start])
        else:
            counts, length = parse.term_counts(
                spaced[head_start - start : head_end - start]
                + b" "
                + spaced[body_start - start : body_end - start]
            )
        trimmed = js.trim(text)
        source_digest = digest(content[source_start:body_end])
        identity = revision = None
        if memory_id is not None and revision_of is not None:
            identity, revision = memory_id(relative, heading), revision_of(trimmed)
        yield RecordRow(
            ordinal + first,
            "note",
            heading,
            trimmed,
            length,
            counts,
            source_digest,
            memory_id=identity,
            revision=revision,
        )


def note_digests(data: bytes, utf8: bool) -> tuple[bytes | str, list[tuple[int, int]], list[int]]:
    """The content, source bounds and digests of every section of a notes file: none is
    parsed. The content is the bytes when they are valid UTF-8 (`utf8`), else their decoded
    text, and the bounds index it."""
    if utf8:
        bounds = parse.utf8_section_bounds(data)
        return data, bounds, [utf8_digest(data[start:end]) for start, end in bounds]
    content = data.decode("utf-8", errors="replace")
    bounds = parse.section_bounds(content)
    return content, bounds, [digest(content[start:end]) for start, end in bounds]


def note_record(content: str, ordinal: int, start: int, end: int, relative: str = "") -> RecordRow:
    """The record of the section whose source is content[start:end] (of file `relative`)."""
    source = content[start:end]
    # Parsed alone, a section that is not the last gets the "\n" the last one gets: the
    # scored text differs by that newline only, which neither its trimmed text nor its
    # tokens show.
    _, heading, text, _ = next(parse.sections(source))
    counts, length = parse.term_counts(parse.token_bytes(text))
    record = RecordRow(ordinal, "note", heading, js.trim(text), length, counts, digest(source))
    return as_memory(record, relative) if is_memory(relative) else record


def journal_digests(data: bytes) -> Iterator[tuple[int, int, str]]:
    """(byte offset, digest, line) of every non-blank journal line."""
    for offset, line in parse.journal_lines(data):
        yield offset, digest(line), line


def event_record(offset: int, line: str) -> RecordRow | None:
    event = parse.event_of(offset, line)
    if event is None:
        return None
    text, ref, agent = event.text, event.ref, event.agent
    ts = event.data.get("ts")
    stamp = None if ts is None else parse.to_js_string(ts)
    if "\\ud" in line or "\\uD" in line:
        # A lone surrogate escape (valid JSON, a JS string holds it): the index keeps the
        # record with U+FFFD in its place, as Node prints it; recall's JSON takes the exact
        # values from the line.
        text, ref, stamp = (
            js.well_formed(text),
            js.well_formed(ref),
            stamp and js.well_formed(stamp),
        )
        agent = agent and js.well_formed(agent)
    counts, length = parse.term_counts(parse.token_bytes(text))
    moment = event.timestamp()
    return RecordRow(
        offset,
        "event",
        ref,
        text,
        length,
        counts,
        digest(line),
        agent,
        stamp,
        None if moment is None else moment.ms,
        None if moment is None else int(moment.local),
        line,
    )
