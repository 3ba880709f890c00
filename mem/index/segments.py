"""A fresh build spread over processes: each builds a segment, the builder merges them in SQL.

Parsing and grouping postings is pure Python and takes one core; a big first sync splits
its notes and journals into shares (whole files, a big notes file into stretches cut
before headings) as it reads them, forks a worker per share but the last as soon as the
share is cut, and parses the last one itself.
A worker writes its share's records, terms and postings to a segment (a temporary SQLite
database of its own, named as the build's temporary copy is, so that the next build
removes what a killed one left); the builder then copies each segment in with
INSERT ... SELECT, which runs in C.

Record ids stay in the order one process gives them, file by file and section by section:
every piece of a share gets, before any worker starts, an id range at least as long as its
records (a stretch's sections are counted exactly; a journal has at most one record per
line). Ids may skip numbers; nothing reads meaning into their values, only their order
(and a later sync numbers its records after the highest).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from mem.core.text import parse
from mem.errors import MemError
from mem.index import building, connection, location, postings, records, tables
from mem.index.rows import RecordRow

# Bytes of notes and journals each worker should have at least: below it, forking and
# merging cost more than the share of the parse they save.
BYTES_PER_WORKER = 1 << 20
# The merge is serial and copies every worker's rows once more: past this many processes it
# outweighs the share of the parse another one would take.
MAX_WORKERS = 8
WORKERS_VARIABLE = "MEM_BUILD_WORKERS"
# bm25's parts of the n-th worker's segment are numbered from n times this on, apart from
# the builder's and every other worker's.
SEGMENT_PARTS = 1 << 20


class Piece(NamedTuple):
    """What one process parses: a whole file (`whole`), or the sections of a notes file from
    section `first` on, their sources' bytes only; its records take ids from `first_id` on."""

    file_id: int
    kind: str
    relative: str
    data: bytes
    first: int
    first_id: int
    whole: bool


def workers(record_bytes: int) -> int:
    """How many processes should build an index whose notes and journals hold this many bytes.

    MEM_BUILD_WORKERS (a positive number) sets it whatever the size (1: one process);
    never more than the machine's cores. Forking needs a process without other threads.
    """
    wanted = os.environ.get(WORKERS_VARIABLE, "").strip()
    # A typo must not pass for "automatic": whoever set it is told, whatever the build.
    if wanted and not (wanted.isascii() and wanted.isdigit() and int(wanted) > 0):
        raise MemError(f"{WORKERS_VARIABLE} must be a whole number of at least 1, not {wanted!r}.")
    if record_bytes <= 0 or not _can_fork():
        return 1
    usable = min(cores(), MAX_WORKERS)
    if wanted:
        return min(int(wanted), usable)
    return max(1, min(usable, record_bytes // BYTES_PER_WORKER))


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _can_fork() -> bool:
    """Whether a forked worker is safe: no other thread that could hold a lock it inherits."""
    threading = sys.modules.get("threading")
    return hasattr(os, "fork") and (threading is None or threading.active_count() == 1)


# The builder's share against a worker's. It also reads and hashes every file before its
# share and merges the segments after it, but writes no segment: with bm25's terms to count
# as well, an equal share keeps both busy alike (0.9 left the builder waiting 0.7-1.8 s for
# the worker at 200k notes).
BUILDER_SHARE = 1.0


def _records(piece: Piece) -> Iterator[RecordRow]:
    if piece.whole:
        return records.records_for(piece.kind, piece.data, 0, piece.relative)
    return records.note_records(piece.data.decode("utf-8"), piece.relative, piece.first)


def _insert(inserter: tables.Inserter, share: list[Piece], parent: int | None) -> None:
    """Insert a share's pieces, letting go of each one's bytes once it is parsed."""
    share.reverse()
    while share:
        piece = share.pop()
        inserter.next_id = piece.first_id
        found = _records(piece)
        inserter.insert(piece.file_id, found if parent is None else _watched(found, parent))
        del piece, found


class _Orphaned(Exception):
    """The builder that forked this worker is gone: nobody will merge its segment."""


def _watched(found: Iterator[RecordRow], parent: int) -> Iterator[RecordRow]:
    for number, record in enumerate(found):
        if not number & 1023 and os.getppid() != parent:
            raise _Orphaned
        yield record


class _Worker(NamedTuple):
    pid: int
    pipe: int  # read end: the worker writes its error there, or nothing
    segment: str


class Builder:
    """An Inserter for a fresh build that shares the parsing out: shares are cut as the
    sources come in (`add_file`), each share but the last goes to a worker forked as soon as
    it is complete (so the builder holds the bytes of about one share at a time), and the
    builder parses the last one itself as it comes; `flush` merges the segments.
    Leaving the `with` block by an exception kills the workers still running.
    """

    def __init__(self, inserter: tables.Inserter, path: str, count: int, total_bytes: int) -> None:
        self.inserter = inserter
        self.path = path
        self.count = count
        self.target = total_bytes / (count - 1 + BUILDER_SHARE)
        self.share: list[Piece] = []
        self.position = 0  # bytes of the pieces cut so far
        self.next_id = inserter.next_id
        self.started: list[_Worker] = []
        self.reaped: set[int] = set()
        self.parent = os.getpid()
        inserter.flush_postings = tables.Inserter.FLUSH_POSTINGS // count

    def __enter__(self) -> Builder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _boundary(self) -> float:
        """Where the share being cut ends (bytes from the start); the builder's has no end."""
        shipped = len(self.started)
        return float("inf") if shipped >= self.count - 1 else self.target * (shipped + 1)

    def insert(self, file_id: int, found: Iterable[RecordRow]) -> None:
        """Records parsed already: the builder inserts them, numbered in their turn."""
        self.inserter.next_id = self.next_id
        self.inserter.insert(file_id, found)
        self.next_id = self.inserter.next_id

    def add_file(self, file_id: int, kind: str, relative: str, data: bytes, utf8: bool) -> None:
        """The records of a new notes file or journal, from its bytes (`utf8`: valid UTF-8)."""
        if kind != "notes" or not utf8:
            # A journal (whose repeated lines count once, deviation D11) or a notes file
            # that is not UTF-8 is parsed whole; it has at most a record per line or "###".
            bound = data.count(b"\n") + 1 if kind == "journal" else data.count(b"###")
            self._cut(Piece(file_id, kind, relative, data, 0, self.next_id, True), bound)
            return
        if self.position + len(data) < self._boundary():
            # The whole file goes in the share being cut: at most a record per "###".
            piece = Piece(file_id, kind, relative, data, 0, self.next_id, True)
            self._cut(piece, data.count(b"###"))
            return
        bounds = parse.utf8_section_bounds(data)
        starts = [start for start, _ in bounds]
        low = 0
        while low < len(bounds):
            # The sections that start before the share's end go in it, at least one.
            offset = starts[low] + self._boundary() - self.position
            high = max(low + 1, bisect_left(starts, offset) if offset < len(data) else len(bounds))
            start, stop = starts[low], bounds[high - 1][1]
            piece = Piece(file_id, kind, relative, data[start:stop], low, self.next_id, False)
            self._cut(piece, high - low)
            low = high

    def _cut(self, piece: Piece, ids: int) -> None:
        if len(self.started) >= self.count - 1:
            # The builder's own share: parsed now, its ids as many as its records.
            self.insert(piece.file_id, _records(piece))
            return
        self.share.append(piece)
        self.next_id += ids
        self.position += len(piece.data)
        if self.position >= self._boundary():
            self._fork()

    def _fork(self) -> None:
        import uuid

        segment = f"{self.path}.{uuid.uuid4().hex}.tmp"
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker process (coverage does not follow)
            os.close(read_end)
            for other in self.started:
                os.close(other.pipe)
            _work(segment, self.share, write_end, self.parent, self.count, self.inserter.bm25)
        os.close(write_end)
        self.started.append(_Worker(pid, read_end, segment))
        self.share = []

    def flush(self) -> None:
        """Write the builder's postings, then merge every worker's segment; a worker's
        failure is raised here."""
        import pickle

        # A share the sources ended in before it was full: the builder's own after all.
        _insert(self.inserter, self.share, None)
        self.inserter.flush()
        conn = self.inserter.conn
        for worker in self.started:
            with os.fdopen(worker.pipe, "rb", closefd=False) as pipe:
                message = pipe.read()
            os.waitpid(worker.pid, 0)
            self.reaped.add(worker.pid)
            if message:
                raise pickle.loads(message)
            merged = _merge(conn, worker.segment, len(self.reaped), self.inserter.bm25)
            self.inserter.counted(merged)
            building.remove(worker.segment)

    def close(self) -> None:
        """Kill the workers still running (a build that failed) and remove every segment."""
        for worker in self.started:
            if worker.pid not in self.reaped:
                _stop(worker.pid)
            os.close(worker.pipe)
            building.remove(worker.segment)
        self.started = []


def _stop(pid: int) -> None:
    """Kill a worker whose segment is not wanted any more, and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # reaped already
        os.waitpid(pid, 0)


def _inserter(conn: connection.Connection, count: int, bm25: bool) -> tables.Inserter:
    """An Inserter that holds as many postings in memory as its share of a build's."""
    inserter = tables.Inserter(conn, bm25)
    inserter.flush_postings = tables.Inserter.FLUSH_POSTINGS // count
    return inserter


def _work(segment: str, share: list[Piece], pipe: int, parent: int, count: int, bm25: bool) -> None:
    """A worker's whole life: build the segment, report, exit (never return to the caller)."""
    import pickle

    message = b""
    try:
        conn = sqlite3.connect(segment, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute(f"PRAGMA cache_size = -{building.BUILD_CACHE_KIB}")
            conn.executescript(location.schema())
            conn.execute("BEGIN")
            inserter = _inserter(conn, count, bm25)
            _insert(inserter, share, parent)
            inserter.flush()
            conn.execute("COMMIT")
        finally:
            conn.close()
    except _Orphaned:
        building.remove(segment)
        os._exit(1)
    except BaseException as error:  # noqa: BLE001 - re-raised in the builder, whatever it is
        import traceback

        error.add_note(f"in a build worker:\n{traceback.format_exc()}")
        try:
            message = pickle.dumps(error)
        except Exception:  # noqa: BLE001 - an error that does not pickle is still reported
            message = pickle.dumps(RuntimeError(f"build worker failed: {error!r}"))
    finally:
        try:
            _write_all(pipe, message)
        finally:
            os._exit(1 if message else 0)


def _write_all(pipe: int, message: bytes) -> None:
    view = memoryview(message)
    while view:
        view = view[os.write(pipe, view) :]


def _merge(conn: connection.Connection, segment: str, number: int, bm25: bool) -> int:
    """Copy a worker's segment in: terms by their text, records as they are, postings
    appended to the groups of the same (term, band, tf) that are already there; the
    number of records copied.

    SQLite detaches a database only outside a transaction: the build's is committed
    (a half-built index is never opened, so committing part of it is harmless) and
    begun again."""
    conn.execute("COMMIT")
    conn.execute("ATTACH DATABASE ? AS segment", (segment,))
    try:
        with building.transaction(conn):
            conn.execute(
                "INSERT OR IGNORE INTO main.terms (term) SELECT term FROM segment.terms ORDER BY id"
            )
            copied = conn.execute("INSERT INTO main.records SELECT * FROM segment.records")
            postings.merge_segment(conn, "segment")
            if bm25:
                conn.execute(
                    "INSERT OR IGNORE INTO main.bm25_terms (term)"
                    " SELECT term FROM segment.bm25_terms ORDER BY id"
                )
                tables.count_bm25(
                    conn,
                    *conn.execute(
                        "SELECT count(*), coalesce(sum(bm25_length), 0) FROM segment.records"
                    ).fetchone(),
                )
                # bm25's groups stay the worker's own parts, each still in record order,
                # appended where merging them into the builder's groups would rewrite those.
                postings.merge_segment(conn, "segment", postings.BM25, number * SEGMENT_PARTS)
    finally:
        conn.execute("DETACH DATABASE segment")
        conn.execute("BEGIN")
    return copied.rowcount
