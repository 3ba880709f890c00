"""Keep an index in step with its root's canonical files.

Freshness costs one stat per source: a file whose size, mtime and inode match the index
is trusted unless it is racily clean (modified too close to when it was last hashed,
where a same-size rewrite could hide behind an unchanged mtime). Everything else is
hashed; only sources whose hash changed are re-parsed, and a journal that only grew has
just its new lines parsed.
"""

from __future__ import annotations

import operator
import os
import time
from itertools import compress, count

from mem import index, layout
from mem.core import parse
from mem.files import index_sources
from mem.files.index_sources import SourceSpec, SourceStat
from mem.index import records
from mem.tuples import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from typing import Any, TypeVar

    from mem.index import segments

    # Where a sync's records go: an Inserter, or in a fresh build a segments.Builder.
    Records = index.Inserter | segments.Builder

    Payload = TypeVar("Payload")

# Filesystem timestamps can be as coarse as 2 s (FAT); within that window a stat proves nothing.
RACY_WINDOW_NS = 2_000_000_000

PROJECT_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.PROJECT)]
BRAIN_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.BRAIN)]
SOURCES = {"project": PROJECT_SOURCES, "brain": BRAIN_SOURCES}
ARCHIVED_JOURNALS = layout.ARCHIVE_DIR


def archived_journal_specs(root: str) -> list[SourceSpec]:
    """Journals moved by `mem archive journal`, oldest name first; recall reads them on request."""
    names = [
        name
        for name in index_sources.listing(os.path.join(root, ARCHIVED_JOURNALS))
        if name.startswith("journal-") and name.endswith(".ndjson")
    ]
    return [
        SourceSpec(layout.ARCHIVE_RANK_BASE + position, f"{ARCHIVED_JOURNALS}/{name}", "journal")
        for position, name in enumerate(names)
    ]


def specs_for(root: str, role: str) -> list[SourceSpec]:
    if role == "project":
        return SOURCES[role] + archived_journal_specs(root)
    return SOURCES[role]


TableRows = list[tuple[str, dict[str, object]]]


def _loader(module: str, function: str) -> Callable[[bytes], TableRows]:
    """A store's loader, imported only when that store changed: a recall never pays for it."""

    def load(data: bytes) -> TableRows:
        import importlib

        rows: TableRows = getattr(importlib.import_module(module), function)(data)
        return rows

    return load


# Stores other than notes and the journal: source kind -> rows for their own tables.
# A store adds a SourceSpec above, its tables (with file_id) to schema.sql and
# index.FILE_TABLES, and its loader here.
LOADERS: dict[str, Callable[[bytes], TableRows]] = {
    "evidence": _loader("mem.index.memory_rows", "evidence_rows"),
    "lifecycle": _loader("mem.index.memory_rows", "lifecycle_rows"),
    "outcomes": _loader("mem.core.receipts", "index_rows"),
    "pattern-scores": _loader("mem.index.pattern_rows", "score_rows"),
    "promotions": _loader("mem.index.pattern_rows", "promotion_rows"),
    "registry": _loader("mem.core.registry", "index_rows"),
}


class Plan(NamedTuple):
    check: list[SourceStat]  # new, or stat changed, or racily clean: hash them
    removed: list[str]  # indexed paths that are no longer sources

    @property
    def empty(self) -> bool:
        return not self.check and not self.removed


def plan(present: list[SourceStat], indexed: dict[str, index.FileRow]) -> Plan:
    check = []
    for source in present:
        row = indexed.get(source.spec.relative)
        if row is None or not _trusted(source, row):
            check.append(source)
    wanted = {source.spec.relative for source in present}
    return Plan(check, sorted(path for path in indexed if path not in wanted))


def _trusted(source: SourceStat, row: index.FileRow) -> bool:
    return (
        row.size == source.size
        and row.mtime_ns == source.mtime_ns
        and row.ctime_ns == source.ctime_ns
        and row.inode == source.inode
        and row.real_path == source.real
        and row.rank == source.spec.rank
        and row.mtime_ns < row.checked_ns - RACY_WINDOW_NS
    )


def digest(data: bytes | memoryview) -> str:
    import xxhash  # only paid when bytes must be hashed

    return "xxh3:" + xxhash.xxh3_128_hexdigest(data)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Report(NamedTuple):
    added: int = 0
    changed: int = 0
    appended: int = 0
    removed: int = 0
    rebuilt: bool = False


class Read(NamedTuple):
    """A source's bytes as read in this sync, with when and at which stat they were read."""

    source: SourceStat
    data: bytes
    hash: str
    checked_ns: int


# Bytes already read in this sync, by real path: a file is read and hashed once per command.
Reads = dict[str, Read]


def _read(source: SourceStat, reads: Reads, keep: bool = True) -> Read:
    """The source's bytes: those this sync already read at the same stat, else read now.

    `keep` leaves them for a later step; the step that indexes a file takes them out, so
    a build holds one file's bytes at a time.
    """
    earlier = reads.get(source.real) if keep else reads.pop(source.real, None)
    if earlier is not None and earlier.source[1:] == source[1:]:
        return earlier
    checked_ns = time.time_ns()
    data = index_sources.read_source(source.real)
    read = Read(source, data, digest(data), checked_ns)
    if keep:
        reads[source.real] = read
    return read


def apply(
    conn: index.Connection,
    project_id: int,
    work: Plan,
    indexed: dict[str, index.FileRow],
    reads: Reads | None = None,
    inserter: Records | None = None,
) -> Report:
    """Carry out a plan for one indexed root, inside the caller's transaction.

    A caller syncing many roots passes one `inserter` for all and flushes it at the end:
    each flush rewrites the postings groups it adds to.
    """
    reads = {} if reads is None else reads
    added = changed = appended = 0
    for path in work.removed:
        index.delete_file(conn, indexed[path].id)
    shared = inserter is not None
    inserter = inserter or index.Inserter(conn)
    for source in work.check:
        read = _read(source, reads, keep=False)
        data, hashed = read.data, read.hash
        row = indexed.get(source.spec.relative)
        spec = source.spec
        stat_args = (len(data), source.mtime_ns, source.inode, read.checked_ns)
        if _same_file_and_bytes(row, source, hashed):
            index.touch_file(conn, project_id, spec.relative, hashed, *stat_args, source.ctime_ns)
            continue
        grew = row is not None and _is_append(spec.kind, row, data)
        stretch, blocks = None, None
        if spec.kind == "notes":
            stretch, blocks = _edited_stretch(conn, row, data, hashed)
        if stretch is not None and row is not None and row.utf8:
            # The unchanged start and end were valid UTF-8 and end and start at headings:
            # the file is valid UTF-8 iff what lies between them is.
            utf8 = _is_utf8(data[stretch.start : stretch.stop])
        elif grew and row is not None:
            # What grew after a complete line is valid UTF-8 with it iff the tail is.
            utf8 = bool(row.utf8) and _is_utf8(data[row.size :])
        else:
            utf8 = _is_utf8(data)
        file_id = index.upsert_file(
            conn,
            project_id,
            spec.relative,
            spec.kind,
            spec.rank,
            source.real,
            hashed,
            *stat_args,
            utf8,
            source.ctime_ns,
        )
        if blocks is not None:
            index.set_file_blocks(conn, file_id, blocks)
        if grew and row is not None:
            tail = list(records.records_for(spec.kind, data[row.size :], row.size))
            # A line already above is the same event (deviation D11), as a full parse finds.
            above = [record.line for record in tail if _maybe_above(record.line, data, row.size)]
            known = index.known_lines(conn, file_id, above)
            inserter.insert(file_id, [record for record in tail if record.line not in known])
            appended += 1
            continue
        if spec.kind in LOADERS:
            if row is not None:
                index.clear_file(conn, file_id)
            index.insert_table_rows(conn, file_id, LOADERS[spec.kind](data))
        elif row is None:
            if isinstance(inserter, index.Inserter):
                inserter.insert(file_id, records.records_for(spec.kind, data, 0, spec.relative))
            else:  # a segments.Builder takes the bytes, to parse them where it sends them
                inserter.add_file(file_id, spec.kind, spec.relative, data, utf8)
        else:
            _resync_records(conn, inserter, file_id, spec, data, utf8, stretch)
        if row is None:
            added += 1
        else:
            changed += 1
    if not shared:
        inserter.flush()
    return Report(added, changed, appended, len(work.removed))


def _resync_records(
    conn: index.Connection,
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
        start, stop, first, old_end = stretch
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
    old = index.note_digests(conn, file_id)
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
    conn: index.Connection,
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
        index.record_digests(conn, file_id, first, old_end), zip(count(first), digests, bounds)
    )
    new: list[index.RecordRow] = []
    for ordinal, (start, end) in unmatched:
        piece = content[start:end]
        source = piece.decode("utf-8") if isinstance(piece, bytes) else piece
        new.append(records.note_record(source, ordinal, 0, len(source), spec.relative))
    index.delete_records(conn, gone)
    stop = first + len(digests)
    shift = (0, 0) if old_end is None else (old_end, stop - old_end)
    index.move_records(conn, file_id, moves, shift)
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


# Bytes per block of a notes file's digests (index.file_blocks): an edit re-reads the
# sections of about two blocks around it, and a file of 10 MB has 640 digests each way.
BLOCK = 16 * 1024


class Stretch(NamedTuple):
    """An edited notes file's bytes data[start:stop] hold what were its sections first to
    last - 1; the sections before and after are unchanged, bytes and boundaries."""

    start: int
    stop: int
    first: int
    last: int


def file_blocks(data: bytes) -> tuple[int, bytes, bytes]:
    """(BLOCK, digests of the blocks from the start, of those from the end): index.file_blocks."""
    from array import array

    import xxhash

    view, size, hashed = memoryview(data), len(data), xxhash.xxh3_64_intdigest
    front = [hashed(view[start : start + BLOCK]) for start in range(0, size, BLOCK)]
    back = [hashed(view[max(0, end - BLOCK) : end]) for end in range(size, 0, -BLOCK)]
    return BLOCK, array("Q", front).tobytes(), array("Q", back).tobytes()


def _edited_stretch(
    conn: index.Connection, row: index.FileRow | None, data: bytes, hashed: str
) -> tuple[Stretch | None, tuple[int, bytes, bytes]]:
    """Where a notes file changed, found from its block digests (None: read it all),
    and its new block digests.

    Bytes equal at the start and end of the old and new file keep their headings, so the
    sections between two headings whose every byte lies in the equal start are kept, and
    so are those whose heading's newline lies in the equal end: only the rest is read.
    """
    blocks = _checked_blocks.pop(hashed, None)
    if blocks is None or blocks[0] != BLOCK:
        blocks = file_blocks(data)
    if row is None:
        return None, blocks
    stored = index.file_blocks(conn, row.id)
    if stored is None or stored[0] != BLOCK:
        return None, blocks
    sections = index.note_count(conn, row.id)
    if sections is None:
        return None, blocks
    size = len(data)
    head, tail = _unchanged_ends(stored, blocks, row.size, size)
    after_newline, at_start = parse._utf8_heading_lines()
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
    after_newline, _ = parse._utf8_heading_lines()
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


def _resync_journal(conn: index.Connection, inserter: Records, file_id: int, data: bytes) -> None:
    moves, unmatched, gone = _matched_by_digest(
        index.record_digests(conn, file_id), records.journal_digests(data)
    )
    events = (records.event_record(offset, line) for offset, line in unmatched)
    new = [event for event in events if event is not None]
    index.delete_records(conn, gone)
    index.move_records(conn, file_id, moves)
    inserter.insert(file_id, new)


def _same_file_and_bytes(row: index.FileRow | None, source: SourceStat, hashed: str) -> bool:
    """The indexed rows still hold: same real file, same candidate rank, same bytes."""
    return (
        row is not None
        and row.hash == hashed
        and row.real_path == source.real
        and row.rank == source.spec.rank
    )


def touched_only(
    conn: index.Connection,
    project_id: int,
    work: Plan,
    indexed: dict[str, index.FileRow],
    reads: Reads | None = None,
) -> bool:
    """Racily clean files whose bytes did not change need only a new stat: no parse, no lock."""
    if work.removed:
        return False
    reads = {} if reads is None else reads
    touches = []
    for source in work.check:
        row = indexed.get(source.spec.relative)
        if row is None:
            return False
        read = _read(source, reads)
        if not _same_file_and_bytes(row, source, read.hash):
            return False
        touches.append(
            (
                project_id,
                source.spec.relative,
                row.hash,
                len(read.data),
                source.mtime_ns,
                source.inode,
                read.checked_ns,
                source.ctime_ns,
            )
        )
    with index.transaction(conn):
        for touch in touches:
            index.touch_file(conn, *touch)
    return True


# An edit of a notes file whose changed bytes fit in this is applied under SQLite's write
# lock alone, as an append is: it takes milliseconds, well within other writers' patience.
QUICK_BYTES = 1 << 20


def _quick_only(
    conn: index.Connection, work: Plan, indexed: dict[str, index.FileRow], reads: Reads
) -> bool:
    """Every change is a journal that grew, a notes file edited in a short stretch, or a
    file whose bytes did not change."""
    if work.removed:
        return False
    for source in work.check:
        row = indexed.get(source.spec.relative)
        if row is None or row.real_path != source.real or row.rank != source.spec.rank:
            return False
        read = _read(source, reads)
        data = read.data
        if not (
            _same_file_and_bytes(row, source, read.hash)
            or _is_append(source.spec.kind, row, data)
            or (source.spec.kind == "notes" and _short_edit(conn, row, data, read.hash))
        ):
            return False
    return True


def _short_edit(conn: index.Connection, row: index.FileRow, data: bytes, hashed: str) -> bool:
    stored = index.file_blocks(conn, row.id)
    if stored is None or stored[0] != BLOCK:
        return False
    blocks = _checked_blocks.get(hashed) or file_blocks(data)
    _checked_blocks[hashed] = blocks
    head, tail = _unchanged_ends(stored, blocks, row.size, len(data))
    return len(data) - tail - head <= QUICK_BYTES


# Block digests of files checked for a short edit, by their bytes' hash, until the re-sync
# that follows takes them: the blocks are hashed once.
_checked_blocks: dict[str, tuple[int, bytes, bytes]] = {}


def _unchanged_ends(
    stored: tuple[int, bytes, bytes], blocks: tuple[int, bytes, bytes], old_size: int, size: int
) -> tuple[int, int]:
    """How many bytes at the start and then at the end are the same in the old and new file."""
    both = min(size, old_size)
    head = min(_common_prefix(_digests(stored[1]), _digests(blocks[1])) * BLOCK, both)
    tail = min(_common_prefix(_digests(stored[2]), _digests(blocks[2])) * BLOCK, both - head)
    return head, tail


def _is_append(kind: str, row: index.FileRow, data: bytes) -> bool:
    """A journal that only grew after a complete line: its old records all stay valid."""
    return (
        kind == "journal"
        and len(data) > row.size
        and (row.size == 0 or data[row.size - 1 : row.size] == b"\n")
        and digest(memoryview(data)[: row.size]) == row.hash
    )


def _maybe_above(line: str | None, data: bytes, size: int) -> bool:
    """Whether a journal line may also stand in data[:size]; False is certain.

    A line decoded without replacement characters has its bytes among those above if it
    stands there; one byte search saves looking the line up among the indexed records.
    """
    if line is None:
        return False
    return "\ufffd" in line or data.find(line.encode("utf-8", "surrogatepass"), 0, size) >= 0


class Synced(NamedTuple):
    conn: index.Connection
    report: Report
    files: dict[str, index.FileRow]  # the index's files rows, as the sync left them


def opened(root: str, role: str = "project", directory: str | None = None) -> _Opened:
    """An index that reflects the root's files as they are now, with its files rows: a
    context manager whose block gets the Synced.

    The index lives in `directory` when given, else in the user's cache. Callers go through
    mem.index.healing, which decides what a damaged cache costs.
    """
    return _Opened(root, role, directory)


class _Opened:
    # A class rather than contextlib.contextmanager: every recall opens an index this way,
    # and importing contextlib would cost it 1 ms.
    __slots__ = ("root", "role", "directory", "path", "result", "scratch")

    def __init__(self, root: str, role: str, directory: str | None) -> None:
        self.root = root
        self.role = role
        self.directory = directory
        self.path = ""
        self.scratch: AbstractContextManager[Synced] | None = None

    def __enter__(self) -> Synced:
        root, role = self.root, self.role
        directory = self.directory or index.usable_cache_dir()
        if directory is None:
            # No writable cache: answer from a throwaway index rather than not at all.
            import contextlib

            self.scratch = contextlib.contextmanager(_in_scratch)(root, role)
            return self.scratch.__enter__()
        self.path = index.index_path(root, role, directory)
        # A scratch index given by the caller is never kept.
        kept = _take_kept(self.path) if self.directory is None else None
        try:
            self.result = _sync(root, role, self.path, kept)
        except BaseException:
            if kept is not None:
                kept.close()
            raise
        return self.result

    def __exit__(self, kind: type[BaseException] | None, *rest: Any) -> bool | None:
        if self.scratch is not None:
            return self.scratch.__exit__(kind, *rest)
        conn = self.result.conn
        if kind is not None:
            conn.close()  # what failed may have been this index: the next use opens it afresh
        elif self.directory is None:
            _release(self.path, conn)
        else:
            conn.close()
        return None


def _in_scratch(root: str, role: str) -> Iterator[Synced]:
    with index.temporary_directory() as scratch:
        result = _sync(root, role, index.index_path(root, role, scratch))
        try:
            yield result
        finally:
            result.conn.close()


def synced(
    root: str, role: str = "project", directory: str | None = None
) -> AbstractContextManager[tuple[index.Connection, Report]]:
    """An index connection that reflects the root's files as they are now."""
    import contextlib

    return contextlib.contextmanager(_synced)(root, role, directory)


def _synced(
    root: str, role: str, directory: str | None
) -> Iterator[tuple[index.Connection, Report]]:
    with opened(root, role, directory) as result:
        yield result.conn, result.report


# A long-running process (`mem mcp`) keeps its indexes open between calls rather than
# reopening one per recall. Freshness does not depend on it: every call still compares the
# canonical files with the index it holds and applies what changed. Were the file at the
# path replaced under a kept connection (a rebuild elsewhere), that index would still be
# synced correctly; the identity check only lets go of it for the new one.
_keep_at_most = 0
_kept: dict[str, tuple[index.Connection, tuple[int, int]]] = {}


def keep_open(at_most: int) -> None:
    """From now on keep up to `at_most` index connections open between uses (0: none)."""
    global _keep_at_most
    _keep_at_most = at_most
    while len(_kept) > at_most:
        _kept.pop(next(iter(_kept)))[0].close()


def _take_kept(path: str) -> index.Connection | None:
    kept = _kept.pop(path, None)
    if kept is None:
        return None
    conn, identity = kept
    if index.file_identity(path) == identity:
        return conn
    conn.close()
    return None


def _release(path: str, conn: index.Connection) -> None:
    identity = index.file_identity(path) if _keep_at_most else None
    if identity is None:
        conn.close()
        return
    _kept[path] = (conn, identity)
    while len(_kept) > _keep_at_most:  # least recently used first
        _kept.pop(next(iter(_kept)))[0].close()


def sync_project(root: str) -> Report:
    """Bring the project's index up to date; cheap when nothing changed."""
    with opened(root) as result:
        return result.report


def would_change(work: Plan, indexed: dict[str, index.FileRow]) -> bool:
    """Whether syncing would change the index's rows, not just refresh stat data.

    Recall's own rule (see touched_only): a racily clean file whose bytes hash as indexed
    changes nothing. `mem status` reports freshness with it.
    """
    if work.removed:
        return True
    for source in work.check:
        row = indexed.get(source.spec.relative)
        data = index_sources.read_source(source.real)
        if row is None or not _same_file_and_bytes(row, source, digest(data)):
            return True
    return False


def _sync(root: str, role: str, path: str, kept: index.Connection | None = None) -> Synced:
    specs = specs_for(root, role)
    conn = kept or index.connect(path)
    reads: Reads = {}
    _checked_blocks.clear()  # what an earlier sync checked and did not re-sync
    if conn is not None:
        indexed = index.file_rows(conn)
        work = plan(index_sources.stat_sources(root, specs), indexed)
        if work.empty:
            return Synced(conn, Report(), indexed)
        if touched_only(conn, index.ONLY_PROJECT, work, indexed, reads):
            return Synced(conn, Report(), index.file_rows(conn))
        # A journal that grew is the common change (every `mem write`), a notes file edited
        # in one place the next: SQLite's own write lock serialises such short work, so it
        # needs neither the file lock nor its import. A writer that holds SQLite's lock past
        # the busy timeout sends it the long way round.
        if _quick_only(conn, work, indexed, reads) and index.begin_immediate(conn):
            try:
                indexed = index.file_rows(conn)
                work = plan(index_sources.stat_sources(root, specs), indexed)
                if _quick_only(conn, work, indexed, reads):
                    report = apply(conn, index.ONLY_PROJECT, work, indexed, reads)
                    conn.execute("COMMIT")
                    return Synced(conn, report, index.file_rows(conn))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("ROLLBACK")
    with index.write_lock(path):
        if conn is None:
            conn = index.connect(path)
        if conn is None:
            index.remove(path)
            index.remove_other_versions(path)
            report = _build_fresh(root, role, path, reads)
            conn = index.connect_built(path)
            return Synced(conn, Report(report.added, rebuilt=True), index.file_rows(conn))
        with index.transaction(conn):
            indexed = index.file_rows(conn)
            work = plan(index_sources.stat_sources(root, specs), indexed)
            report = apply(conn, index.ONLY_PROJECT, work, indexed, reads)
        return Synced(conn, report, index.file_rows(conn))


def build_fresh(root: str, role: str, path: str) -> Report:
    """A whole new index of the root's files at `path` (replacing any file there)."""
    return _build_fresh(root, role, path, {})


def _build_fresh(root: str, role: str, path: str, reads: Reads) -> Report:
    with index.build(path, root) as fresh:
        project_id = index.add_project(fresh, root, os.path.basename(root), role, found=True)
        assert project_id == index.ONLY_PROJECT
        present = index_sources.stat_sources(root, specs_for(root, role))
        return fill(fresh, project_id, present, path, reads)


def record_bytes(sources: Iterable[SourceStat]) -> int:
    """The bytes of notes and journals among `sources`: what a build parses into records
    (the other stores are loaded as rows), and so what it may share among processes."""
    return sum(source.size for source in sources if source.spec.kind not in LOADERS)


def fill(
    conn: index.Connection,
    project_id: int,
    present: list[SourceStat],
    path: str,
    reads: Reads | None = None,
) -> Report:
    """Index a root's files in the index being built at `path`: as apply does, or, when
    its notes and journals are big enough, in several processes (mem.index.segments)."""
    from mem.index import segments

    sized = record_bytes(present)
    workers = segments.workers(sized)
    if workers == 1:
        return apply(conn, project_id, Plan(present, []), {}, reads)
    with segments.Builder(index.Inserter(conn), path, workers, sized) as builder:
        report = apply(conn, project_id, Plan(present, []), {}, reads, builder)
        builder.flush()
    return report
