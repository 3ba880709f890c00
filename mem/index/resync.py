"""Re-syncing a changed file: only the records whose text changed are replaced.

A notes file keeps a digest of every 16 KiB block from its start and from its end
(`file_blocks`): an edit in one place re-reads only the sections around it, and the
records before and after keep their rows (those after move by as many places as the
edited stretch grew). A journal's records are matched line by line by digest.
"""

from __future__ import annotations

import operator
from itertools import compress, count

import xxhash

from mem.core.text import parse
from mem.index import records, tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import TypeVar

    from mem.files.index_sources import SourceSpec
    from mem.index.connection import Connection
    from mem.index.rows import FileRow, RecordRow
    from mem.index.segments import Builder

    # Where a sync's records go: an Inserter, or in a fresh build a segments.Builder.
    Records = tables.Inserter | Builder
    Payload = TypeVar("Payload")

# An edit of a notes file whose changed bytes fit in this is applied under SQLite's write
# lock alone, as an append is: it takes milliseconds, well within other writers' patience.
QUICK_BYTES = 1 << 20


def resync_records(
    conn: Connection,
    inserter: Records,
    file_id: int,
    spec: SourceSpec,
    data: bytes,
    utf8: bool,
    stretch: Stretch | None = None,
) -> None:
    """Replace only the records whose text changed; kept records just take their new place.

    With the `stretch` of a notes file that changed, only its sections are read.
    """
    if spec.kind == "journal":
        _resync_journal(conn, inserter, file_id, data)
        return
    if stretch is not None:
        # Cut before a heading (or at an end), bytes decode as they do within the file.
        start, stop, first, old_end = stretch.start, stretch.stop, stretch.first, stretch.last
        middle = data[start:stop]
        if utf8:
            bounds = parse.utf8_section_bounds(middle)
            digests = [records.utf8_digest(middle[s:e]) for s, e in bounds]
            _replace_sections(
                conn, inserter, file_id, spec, middle, first, old_end, bounds, digests
            )
        else:
            text = middle.decode("utf-8", errors="replace")
            bounds = parse.section_bounds(text)
            digests = [records.digest(text[s:e]) for s, e in bounds]
            _replace_sections(conn, inserter, file_id, spec, text, first, old_end, bounds, digests)
        return
    content, bounds, digests = records.note_digests(data, utf8)
    old = tables.note_digests(conn, file_id)
    if old is None:  # not numbered 0..n-1: match every section by digest
        _replace_sections(conn, inserter, file_id, spec, content, 0, None, bounds, digests)
        return
    # An edit changes a stretch of the file: the sections before and after it keep
    # their digests and records (those after move by as many places as the stretch
    # grew), and only the stretch's sections are matched by digest.
    same = _common_prefix(old, digests)
    tail = _common_prefix(old[same:][::-1], digests[same:][::-1])
    end = len(digests) - tail
    _replace_sections(
        conn,
        inserter,
        file_id,
        spec,
        content,
        same,
        len(old) - tail,
        bounds[same:end],
        digests[same:end],
    )


def _replace_sections(
    conn: Connection,
    inserter: Records,
    file_id: int,
    spec: SourceSpec,
    content: bytes | str,
    first: int,
    old_end: int | None,
    bounds: list[tuple[int, int]],
    digests: list[int],
) -> None:
    """The file's sections numbered `first` on were those up to `old_end` (None: to its end)
    and are now those at `bounds` in `content` (valid UTF-8, or text): records whose digest is
    still there stay, moved if need be.
    """
    moves, unmatched, gone = _matched_by_digest(
        tables.record_digests(conn, file_id, first, old_end), zip(count(first), digests, bounds)
    )
    new: list[RecordRow] = []
    for ordinal, (start, end) in unmatched:
        piece = content[start:end]
        source = piece.decode("utf-8") if isinstance(piece, bytes) else piece
        new.append(records.note_record(source, ordinal, 0, len(source), spec.relative))
    tables.delete_records(conn, gone)
    stop = first + len(digests)
    shift = (0, 0) if old_end is None else (old_end, stop - old_end)
    tables.move_records(conn, file_id, moves, shift)
    inserter.insert(file_id, new)


def _matched_by_digest(
    stored: Sequence[tuple[int, int, int]], current: Iterable[tuple[int, int, Payload]]
) -> tuple[list[tuple[int, int]], list[tuple[int, Payload]], list[int]]:
    """Pair the current pieces (ordinal, digest, payload) with the stored records (id,
    ordinal, digest) of the same digest, in order: (kept records whose ordinal changed, as
    (id, new ordinal); the (ordinal, payload) of pieces no record matched; the ids of the
    records no piece matched)."""
    kept: dict[int, list[tuple[int, int]]] = {}
    for record_id, ordinal, record_digest in reversed(stored):
        kept.setdefault(record_digest, []).append((record_id, ordinal))
    moves, unmatched = [], []
    for ordinal, digest, payload in current:
        same = kept.get(digest)
        if same:
            record_id, old_ordinal = same.pop()
            if old_ordinal != ordinal:
                moves.append((record_id, ordinal))
        else:
            unmatched.append((ordinal, payload))
    return moves, unmatched, [record_id for gone in kept.values() for record_id, _ in gone]


# Bytes per block of a notes file's digests (tables.file_blocks): an edit re-reads the
# sections of about two blocks around it, and a file of 10 MB has 640 digests each way.
BLOCK = 16 * 1024


class Stretch:
    """An edited notes file's bytes data[start:stop] hold what were its sections first to
    last - 1; the sections before and after are unchanged, bytes and boundaries."""

    __slots__ = ("start", "stop", "first", "last")

    def __init__(self, start: int, stop: int, first: int, last: int) -> None:
        self.start = start
        self.stop = stop
        self.first = first
        self.last = last


def file_blocks(data: bytes) -> tuple[int, bytes, bytes]:
    """(BLOCK, digests of the blocks from the start, of those from the end): tables.file_blocks."""
    from array import array  # only where a notes file changed: a recall does without it

    view, size, hashed = memoryview(data), len(data), xxhash.xxh3_64_intdigest
    front = [hashed(view[start : start + BLOCK]) for start in range(0, size, BLOCK)]
    back = [hashed(view[max(0, end - BLOCK) : end]) for end in range(size, 0, -BLOCK)]
    return BLOCK, array("Q", front).tobytes(), array("Q", back).tobytes()


def edited_stretch(
    conn: Connection, row: FileRow | None, data: bytes, hashed: str
) -> tuple[Stretch | None, tuple[int, bytes, bytes]]:
    """Where a notes file changed, found from its block digests (None: read it all),
    and its new block digests.

    Bytes equal at the start and end of the old and new file keep their headings, so the
    sections between two headings whose every byte lies in the equal start are kept, and
    so are those whose heading's newline lies in the equal end: only the rest is read.
    """
    blocks = checked_blocks.pop(hashed, None)
    if blocks is None or blocks[0] != BLOCK:
        blocks = file_blocks(data)
    if row is None:
        return None, blocks
    stored = tables.file_blocks(conn, row.id)
    if stored is None or stored[0] != BLOCK:
        return None, blocks
    sections = tables.note_count(conn, row.id)
    if sections is None:
        return None, blocks
    size = len(data)
    head, tail = _unchanged_ends(stored, blocks, row.size, size)
    after_newline, at_start = parse.utf8_heading_lines()
    headings = len(after_newline.findall(data, 0, head))
    if at_start.match(data, 0, head):
        headings += 1
    first = max(0, headings - 1)
    start = _last_heading(data, head) if first else 0
    following = after_newline.search(data, size - tail) if tail else None
    last = sections - (len(after_newline.findall(data, size - tail)) if following else 0)
    stop = following.start() + 1 if following else size
    if last < first or stop < start:
        return None, blocks
    return Stretch(start, stop, first, last), blocks


def _digests(blob: bytes) -> memoryview:
    return memoryview(blob).cast("Q")


def _last_heading(data: bytes, end: int) -> int:
    """Where the last heading whose whole match lies in data[:end] starts (after its newline)."""
    after_newline, _ = parse.utf8_heading_lines()
    limit = end
    while True:
        found = data.rfind(b"\n###", 0, limit)
        if after_newline.match(data, found, end):
            return found + 1
        limit = found + 3  # occurrences starting before this one


def _common_prefix(first: Sequence[int], second: Sequence[int]) -> int:
    """How many leading items two lists share (compared in C, not item by item in Python)."""
    unequal = compress(count(), map(operator.ne, first, second))
    return next(unequal, min(len(first), len(second)))


def _resync_journal(conn: Connection, inserter: Records, file_id: int, data: bytes) -> None:
    moves, unmatched, gone = _matched_by_digest(
        tables.record_digests(conn, file_id), records.journal_digests(data)
    )
    events = (records.event_record(offset, line) for offset, line in unmatched)
    new = [event for event in events if event is not None]
    tables.delete_records(conn, gone)
    tables.move_records(conn, file_id, moves)
    inserter.insert(file_id, new)


def short_edit(conn: Connection, row: FileRow, data: bytes, hashed: str) -> bool:
    stored = tables.file_blocks(conn, row.id)
    if stored is None or stored[0] != BLOCK:
        return False
    blocks = checked_blocks.get(hashed) or file_blocks(data)
    checked_blocks[hashed] = blocks
    head, tail = _unchanged_ends(stored, blocks, row.size, len(data))
    return len(data) - tail - head <= QUICK_BYTES


# Block digests of files checked for a short edit, by their bytes' hash, until the re-sync
# that follows takes them: the blocks are hashed once.
checked_blocks: dict[str, tuple[int, bytes, bytes]] = {}


def _unchanged_ends(
    stored: tuple[int, bytes, bytes], blocks: tuple[int, bytes, bytes], old_size: int, size: int
) -> tuple[int, int]:
    """How many bytes at the start and then at the end are the same in the old and new file."""
    both = min(size, old_size)
    head = min(_common_prefix(_digests(stored[1]), _digests(blocks[1])) * BLOCK, both)
    tail = min(_common_prefix(_digests(stored[2]), _digests(blocks[2])) * BLOCK, both - head)
    return head, tail
