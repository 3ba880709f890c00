"""Every write to an index's rows: roots, files, records with their postings, store rows.

All of it runs inside the caller's transaction. This is on the path of a recall after a
`mem write` (its appended journal lines are applied here), so it stays plain: no typing.
"""

from __future__ import annotations

import sqlite3

from mem.core.javascript import js
from mem.core.text import parse, tokens
from mem.index import postings
from mem.index.connection import has_bm25
from mem.index.rows import RecordRow, file_rows
from mem.layout import is_archive_rank

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    from mem.index.build_progress import BuildProgress

    Result = TypeVar("Result")


def begin_immediate(conn: sqlite3.Connection) -> bool:
    """Take SQLite's write lock, waiting up to the busy timeout; False when it stayed taken."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if "locked" not in str(error):
            raise
        return False
    return True


def write_transaction(conn: sqlite3.Connection, work: Callable[[], Result]) -> Result:
    """`work()` inside BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when it raises.

    For the writes a recall makes (new stat data, a portfolio root written since); builds
    and locked syncs use building.transaction, whose contextlib a recall does without.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work()
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


def add_project(conn: sqlite3.Connection, path: str, name: str, role: str, found: bool) -> int:
    cursor = conn.execute(
        "INSERT INTO projects (path, name, role, found) VALUES (?, ?, ?, ?)",
        (path, name, role, int(found)),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def update_project(
    conn: sqlite3.Connection,
    project_id: int,
    name: str,
    found: bool,
    signature: bytes | None,
    watch: str | None,
) -> None:
    conn.execute(
        "UPDATE projects SET name = ?, found = ?, signature = ?, watch = ? WHERE id = ?",
        (name, int(found), signature, watch, project_id),
    )


def clear_project(conn: sqlite3.Connection, project_id: int) -> None:
    """Drop every row a root's files gave, keeping the root itself."""
    for row in file_rows(conn, project_id).values():
        delete_file(conn, row.id)
    conn.execute("DELETE FROM checkout_files WHERE project_id = ?", (project_id,))


def delete_project(conn: sqlite3.Connection, project_id: int) -> None:
    clear_project(conn, project_id)
    conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))


FILE_TABLES = [
    "records",
    "evidence",
    "lifecycle",
    "receipts",
    "pattern_scores",
    "promotions",
    "registry",
    "file_blocks",
]


def delete_file(conn: sqlite3.Connection, file_id: int) -> None:
    clear_file(conn, file_id)
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def clear_file(conn: sqlite3.Connection, file_id: int) -> None:
    ids = [row[0] for row in conn.execute("SELECT id FROM records WHERE file_id = ?", (file_id,))]
    delete_records(conn, ids)
    for table in FILE_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))


def insert_table_rows(
    conn: sqlite3.Connection, file_id: int, rows: Iterable[tuple[str, dict[str, object]]]
) -> None:
    """Rows of the other stores' tables: (table, column -> value), file_id added here.

    One INSERT a table, with every column any of its rows names (NULL where a row has
    none), in the caller's transaction. The values are SQLite's own types already (the
    loaders spell lists and objects out as JSON), so the statement takes them as they are.
    """
    by_table: dict[str, list[dict[str, object]]] = {}
    for table, row in rows:
        by_table.setdefault(table, []).append(row)
    for table, table_rows in by_table.items():
        columns = list(dict.fromkeys(column for row in table_rows for column in row))
        conn.executemany(
            f"INSERT INTO {table} (file_id, {', '.join(columns)})"
            f" VALUES ({', '.join('?' * (len(columns) + 1))})",
            [(file_id, *[_encodable(row.get(column)) for column in columns]) for row in table_rows],
        )


def _encodable(value: object) -> object:
    """A text holding a lone surrogate (a store's "\\ud800", valid JSON) with U+FFFD in its
    place, as Node prints it: SQLite takes UTF-8 only."""
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return js.well_formed(value)
    return value


def upsert_file(
    conn: sqlite3.Connection,
    project_id: int,
    path: str,
    kind: str,
    rank: int,
    real_path: str,
    file_hash: str,
    size: int,
    mtime_ns: int,
    inode: int,
    checked_ns: int,
    utf8: bool,
    ctime_ns: int,
) -> int:
    conn.execute(
        "INSERT INTO files (project_id, path, kind, rank, real_path, hash, size, mtime_ns, inode,"
        " checked_ns, utf8, ctime_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (project_id, path) DO UPDATE SET kind = excluded.kind,"
        " rank = excluded.rank, real_path = excluded.real_path, hash = excluded.hash,"
        " size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode,"
        " checked_ns = excluded.checked_ns, utf8 = excluded.utf8, ctime_ns = excluded.ctime_ns",
        (
            project_id,
            path,
            kind,
            rank,
            real_path,
            file_hash,
            size,
            mtime_ns,
            inode,
            checked_ns,
            int(utf8),
            ctime_ns,
        ),
    )
    row = conn.execute(
        "SELECT id FROM files WHERE project_id = ? AND path = ?", (project_id, path)
    ).fetchone()
    return int(row[0])


def touch_file(
    conn: sqlite3.Connection,
    project_id: int,
    path: str,
    file_hash: str,
    size: int,
    mtime_ns: int,
    inode: int,
    checked_ns: int,
    ctime_ns: int,
) -> None:
    """Record a new stat for unchanged bytes; a no-op if another process changed the row."""
    conn.execute(
        "UPDATE files SET size = ?, mtime_ns = ?, inode = ?, checked_ns = ?, ctime_ns = ?"
        " WHERE project_id = ? AND path = ? AND hash = ?",
        (size, mtime_ns, inode, checked_ns, ctime_ns, project_id, path, file_hash),
    )


def _insert_records(columns: str) -> str:
    named = f"id, file_id, ordinal, kind, ref, text, tokens, bm25_length, {columns}"
    marks = ", ".join("?" * len(named.split(",")))
    return f"INSERT INTO records ({named}) VALUES ({marks})"


# The INSERT of each shape of record row: every note's, every event's, any other.
_UNDATED = (None, None, None, None, None)  # a note's agent, ts, ts_ms, ts_local, line
_SHAPES = (
    _insert_records("digest, memory_id, revision"),
    _insert_records("digest, agent, ts, ts_ms, ts_local, line"),
    _insert_records("digest, agent, ts, ts_ms, ts_local, line, memory_id, revision"),
)


class Inserter:
    """Inserts records and their postings; the build keeps one for the whole index."""

    # Postings held in memory before they are written (about 16 bytes each): bounds the
    # build's memory; fewer, larger batches mean fewer parts for recall to read.
    FLUSH_POSTINGS = 1_000_000
    ROWS_PER_WRITE = 5_000
    BM25_POSTINGS = 8_000_000  # 64 MB of pairs

    def __init__(self, conn: sqlite3.Connection, bm25: bool | None = None) -> None:
        """`bm25`: keep the bm25 ranking's postings too (None: if the index keeps them)."""
        self.conn = conn
        self.next_id: int = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM records").fetchone()[
            0
        ]
        self.flush_postings = self.FLUSH_POSTINGS
        self.groups = postings.Groups()
        self.term_ids = postings.TermIds()
        # The bm25 ranking's postings, kept beside the lexical ones in step with them by an
        # index that has them (built so for a bm25 read: has_bm25).
        if bm25 is None:
            bm25 = has_bm25(conn)
        elif bm25 and not has_bm25(conn):
            start_bm25(conn)
        self.bm25 = bm25
        self.bm25_groups = postings.PairGroups()
        self.bm25_ids = postings.TermIds(postings.BM25)
        # Batches of a fresh index are merged into whole groups (postings.MERGED_PART) at the
        # end; later syncs add to the groups' part 0.
        self.parts = 0
        # bm25's batches of a fresh index are parts of their own, from MERGED_PART on.
        self.bm25_part = postings.MERGED_PART
        # No records yet, so no postings either: batches are staged and sorted in at the end.
        self.fresh = self.next_id == 1
        self.staged = False
        # A fresh build on a terminal: told of the records inserted so far (build_progress).
        self.progress: BuildProgress | None = None
        self.inserted = 0

    def insert(self, file_id: int, records: Iterable[RecordRow]) -> None:
        # Rows by which of their columns are NULL (_SHAPES): the sqlite3 module offers a
        # None (or bytes) to its adapters first, at the cost of a formatted exception each.
        rows: tuple[list[tuple[object, ...]], ...] = ([], [], [])
        notes, events, others = rows
        add = self.groups.add
        add_bm25 = self.bm25_groups.add
        keep_bm25 = self.bm25
        record_id = self.next_id
        written = 0
        total_length = 0
        for record in records:
            head = (record_id, file_id, record.ordinal, record.kind, record.ref, record.text)
            length, digest, line = record.length, record.digest, record.line
            bm25_counts = bm25_terms(record.kind, record.ref, record.text) if keep_bm25 else {}
            bm25_length = tokens.length(bm25_counts.values())
            lengths = (length, bm25_length)
            total_length += bm25_length
            memory_id, revision = record.memory_id, record.revision
            event = (record.agent, record.ts, record.ts_ms, record.ts_local, line)
            if event == _UNDATED:
                notes.append((*head, *lengths, digest, memory_id, revision))
            elif memory_id is None and revision is None:
                events.append((*head, *lengths, digest, *event))
            else:
                others.append((*head, *lengths, digest, *event, memory_id, revision))
            if bm25_counts:
                add_bm25(record_id, bm25_length, bm25_counts)
            if record.counts:
                if record.kind == "note":
                    band = postings.length_class(record.length)
                else:
                    dated = postings.dated_ms(record.kind, record.ts_ms, record.ts_local)
                    band = postings.band_of(record.length, dated)
                add(record_id, band, record.counts)
            record_id += 1
            written += 1
            if written >= self.ROWS_PER_WRITE:
                self._write(rows)
                rows = ([], [], [])
                notes, events, others = rows
                written = 0
        if keep_bm25:
            count_bm25(self.conn, record_id - self.next_id, total_length)
        self.next_id = record_id
        self._write(rows)

    def _write(self, rows: tuple[list[tuple[object, ...]], ...]) -> None:
        for statement, shaped in zip(_SHAPES, rows, strict=True):
            if shaped:
                self.conn.executemany(statement, shaped)
        self.counted(sum(map(len, rows)))
        # Each ranking's postings are written when they alone reach their share. bm25's
        # (8 bytes each, in few groups) wait for BM25_POSTINGS whatever the build's processes:
        # a build of 200,000 notes writes them once.
        if self.groups.size >= self.flush_postings:
            self._spill(staged=self.fresh)
        if self.bm25_groups.size >= self.BM25_POSTINGS:
            self._spill_bm25()

    def counted(self, records: int) -> None:
        """`records` more are in the index (here, or merged from a worker's segment)."""
        self.inserted += records
        if self.progress is not None:
            self.progress.step(self.inserted)

    def _spill(self, staged: bool) -> None:
        self.groups.flush(self.conn, self.term_ids, self.parts, staged)
        self.staged = self.staged or staged
        self.parts += 1

    def _spill_bm25(self) -> None:
        """Write bm25's postings gathered so far. Every part of a group lists its records in
        increasing id order: a fresh index's batches are parts of their own, and a later
        sync's records, numbered after every record there, are appended to part 0."""
        if self.fresh:
            self.bm25_groups.flush(self.conn, self.bm25_ids, self.bm25_part, fresh=True)
            self.bm25_part += 1
        else:
            self.bm25_groups.flush(self.conn, self.bm25_ids, 0)

    def flush(self) -> None:
        """Write every posting gathered so far; call it once all records are inserted."""
        if self.staged:
            self._spill(staged=True)
            postings.unstage(self.conn)
            self.staged = False
        elif self.fresh:
            # Written in one batch, each group is whole already: the part unstage gives it.
            self.groups.flush(self.conn, self.term_ids, postings.MERGED_PART, fresh=True)
        else:
            self._spill(staged=False)
        self._spill_bm25()
        self.fresh = False


def insert_records(conn: sqlite3.Connection, file_id: int, records: Iterable[RecordRow]) -> None:
    inserter = Inserter(conn)
    inserter.insert(file_id, records)
    inserter.flush()


def start_bm25(conn: sqlite3.Connection) -> None:
    """Make a new index keep the bm25 ranking's postings (connection.has_bm25)."""
    conn.execute("INSERT INTO bm25_stats (id, records, length) VALUES (0, 0, 0)")


def count_bm25(conn: sqlite3.Connection, records: int, length: int) -> None:
    """Add `records` records of total bm25 `length` (negative: taken out) to bm25_stats."""
    if records:
        conn.execute(
            "INSERT INTO bm25_stats (id, records, length) VALUES (0, ?, ?) ON CONFLICT (id)"
            " DO UPDATE SET records = records + excluded.records,"
            " length = length + excluded.length",
            (records, length),
        )


def bm25_terms(kind: str, ref: str, text: str) -> dict[str, int]:
    """A record's bm25 terms and weighted frequencies: a note's heading (its ref) weighs more."""
    return tokens.counts(text, ref if kind == "note" else None)


def stored_bm25_postings(conn: sqlite3.Connection, ids: list[int]) -> list[postings.Posted]:
    """What stored records contribute to bm25's postings, recomputed from their text."""
    found = []
    for start in range(0, len(ids), 500):
        chunk = ",".join(str(int(record_id)) for record_id in ids[start : start + 500])
        for record_id, kind, ref, text, length in conn.execute(
            f"SELECT id, kind, ref, text, bm25_length FROM records WHERE id IN ({chunk})"
        ):
            found.append(postings.Posted(record_id, length, bm25_terms(kind, ref, text)))
    return found


def stored_postings(conn: sqlite3.Connection, ids: list[int]) -> list[postings.Posted]:
    """What stored records contribute to the postings, recomputed from their text."""
    found = []
    for start in range(0, len(ids), 500):
        chunk = ",".join(str(int(record_id)) for record_id in ids[start : start + 500])
        for record_id, kind, text, length, ts_ms, ts_local in conn.execute(
            f"SELECT id, kind, text, tokens, ts_ms, ts_local FROM records WHERE id IN ({chunk})"
        ):
            counts, _ = parse.term_counts(parse.token_bytes(text))
            band = postings.band_of(length, postings.dated_ms(kind, ts_ms, ts_local))
            found.append(postings.Posted(record_id, band, counts))
    return found


def delete_records(conn: sqlite3.Connection, ids: list[int]) -> None:
    if not ids:
        return
    postings.remove(conn, stored_postings(conn, ids))
    if has_bm25(conn):
        gone = stored_bm25_postings(conn, ids)  # a Posted's band is its bm25_length
        postings.remove_pairs(conn, gone)
        count_bm25(conn, -len(gone), -sum(record.band for record in gone))
    for start in range(0, len(ids), 500):
        chunk = ",".join(str(int(record_id)) for record_id in ids[start : start + 500])
        conn.execute(f"DELETE FROM records WHERE id IN ({chunk})")


def record_digests(
    conn: sqlite3.Connection, file_id: int, start: int = 0, end: int | None = None
) -> list[tuple[int, int, int]]:
    """(id, ordinal, digest) of a file's records (those with start <= ordinal < end), in order."""
    return conn.execute(
        "SELECT id, ordinal, digest FROM records WHERE file_id = ? AND ordinal >= ?"
        " AND ordinal < ? ORDER BY ordinal",
        (file_id, start, (1 << 63) - 1 if end is None else end),
    ).fetchall()


def note_digests(conn: sqlite3.Connection, file_id: int) -> list[int] | None:
    """The digests of a notes file's records by section number, or None if one is missing.

    Two strings instead of a row per record: a file of 50,000 notes comes back at once.
    """
    ordinals, digests, count = conn.execute(
        "SELECT group_concat(ordinal), group_concat(digest), count(*)"
        " FROM (SELECT ordinal, digest FROM records WHERE file_id = ? ORDER BY ordinal)",
        (file_id,),
    ).fetchone()
    if not count:
        return []
    if ordinals != ",".join(map(str, range(count))):
        return None
    return list(map(int, digests.split(",")))


def note_count(conn: sqlite3.Connection, file_id: int) -> int | None:
    """How many records a notes file has (numbered 0..n-1), or None unless they start at 0.

    Two seeks of the (file_id, ordinal) index rather than a count of every record: builds
    number a file's sections 0..n-1 and re-syncs keep them so (a fresh build's snapshot,
    ordinals included, is what the re-sync tests compare with).
    """
    first = conn.execute(
        "SELECT min(ordinal) FROM records WHERE file_id = ?", (file_id,)
    ).fetchone()[0]
    last = conn.execute(
        "SELECT max(ordinal) FROM records WHERE file_id = ?", (file_id,)
    ).fetchone()[0]
    if first is None:
        return 0
    return int(last) + 1 if first == 0 else None


def file_blocks(conn: sqlite3.Connection, file_id: int) -> tuple[int, bytes, bytes] | None:
    """(block size, digests from the start, digests from the end) as a notes file last stood."""
    row = conn.execute(
        "SELECT block, front, back FROM file_blocks WHERE file_id = ?", (file_id,)
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def set_file_blocks(
    conn: sqlite3.Connection, file_id: int, blocks: tuple[int, bytes, bytes]
) -> None:
    """Store a notes file's block digests (sync.file_blocks)."""
    conn.execute(
        "INSERT OR REPLACE INTO file_blocks (file_id, block, front, back) VALUES (?, ?, ?, ?)",
        (file_id, *blocks),
    )


def move_records(
    conn: sqlite3.Connection,
    file_id: int,
    moves: list[tuple[int, int]],
    shift: tuple[int, int] = (0, 0),
) -> None:
    """Give kept records their new ordinals ((id, ordinal) pairs) without a transient clash;
    `shift` (from, by) moves every record from that ordinal on by as many places too."""
    start, by = shift
    if not moves and not by:
        return
    conn.executemany(
        "UPDATE records SET ordinal = ? WHERE id = ?",
        [(-1 - ordinal, record_id) for record_id, ordinal in moves],
    )
    if by:
        conn.execute(
            "UPDATE records SET ordinal = -1 - (ordinal + ?) WHERE file_id = ? AND ordinal >= ?",
            (by, file_id, start),
        )
    conn.execute(
        "UPDATE records SET ordinal = -1 - ordinal WHERE file_id = ? AND ordinal < 0", (file_id,)
    )


def known_lines(conn: sqlite3.Connection, file_id: int, lines: list[str | None]) -> set[str]:
    """Which of these journal lines a file's indexed records already hold."""
    wanted = sorted({line for line in lines if line is not None})
    found: set[str] = set()
    for start in range(0, len(wanted), 500):  # far below SQLite's bound-parameter limit
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT line FROM records WHERE file_id = ? AND line IN ({marks})", [file_id, *chunk]
        )
        found.update(row[0] for row in rows)
    return found


def drop_archived_repeats(conn: sqlite3.Connection, project_id: int, since: int) -> None:
    """Deviation D14: a journal line that an archive of the journal holds counts there.

    The root's journals are taken in that order, archives by name and the live journal
    last, and a record whose line an earlier one holds is dropped (as a repeat within one
    file is never made, D11). Only records from id `since` on are looked at (what this
    sync added), unless an earlier journal gained records, which may repeat any line.
    Lines it drops come back by a re-sync of their file once their archive changes
    (freshness pulls a journal in with its archives).
    """
    files = conn.execute(
        "SELECT id, rank FROM files WHERE project_id = ? AND kind = 'journal'", (project_id,)
    ).fetchall()
    if len(files) < 2:
        return
    order = [file_id for file_id, _ in sorted(files, key=_archives_first)]
    grown = False
    for position, file_id in enumerate(order):
        if position:
            earlier = ",".join(str(int(other)) for other in order[:position])
            repeats = conn.execute(
                "SELECT r.id FROM records AS r WHERE r.file_id = ? AND r.id >= ?"
                " AND r.line IS NOT NULL AND EXISTS (SELECT 1 FROM records AS e"
                " WHERE e.digest = r.digest AND e.line IS NOT NULL AND e.line = r.line"
                f" AND e.file_id IN ({earlier}))",
                (file_id, 0 if grown else since),
            ).fetchall()
            delete_records(conn, [row[0] for row in repeats])
        if not grown:
            grown = conn.execute(
                "SELECT EXISTS (SELECT 1 FROM records WHERE file_id = ? AND id >= ?)",
                (file_id, since),
            ).fetchone()[0]


def _archives_first(file: tuple[int, int]) -> tuple[bool, int]:
    """Archived journals (by rank: by name) before the live one."""
    return not is_archive_rank(file[1]), file[1]
