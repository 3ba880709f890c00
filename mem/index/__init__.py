"""The disposable SQLite index: the only package that talks to SQLite.

One database per indexed root (a project, or a brain for portfolio recall) in the user's
cache directory, never inside a project. Its file name carries the index version, and
``meta.index_version`` must match it too; anything else is rebuilt from the canonical
files, never altered. The warm read path uses the standard library's sqlite3 only.
"""

from __future__ import annotations

# The sqlite3 package is _sqlite3 plus datetime adapters mem never uses; importing it costs
# every process about 3 ms (datetime), so the index modules import _sqlite3 itself.
import _sqlite3 as sqlite3
import errno
import os

import xxhash

from mem.core import parse
from mem.index import postings
from mem.layout import ARCHIVE_RANK_BASE
from mem.tuples import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    # contextlib only where an index is built or written: importing it costs a recall 1 ms.
    from collections.abc import Collection, Iterable, Iterator, Mapping
    from contextlib import AbstractContextManager

    import filelock

BUSY_TIMEOUT_MS = 10_000
# SQLite's page cache while building. The build only appends (records in id order, postings
# staged and then sorted in), so a small cache costs no time, and it bounds the sort's memory.
BUILD_CACHE_KIB = 8 * 1024
Connection = sqlite3.Connection


def _schema_path() -> str:
    # Installed, migrations/ ships inside the package; in a checkout it sits beside it.
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (
        os.path.join(package, "migrations"),
        os.path.join(os.path.dirname(package), "migrations"),
    ):
        path = os.path.join(candidate, "schema.sql")
        if os.path.exists(path):
            return path
    raise FileNotFoundError("migrations/schema.sql is missing from this installation of mem")


def schema() -> str:
    """The SQL that builds an index (only builders and the browse docs read it)."""
    with open(_schema_path(), encoding="utf-8") as file:
        return file.read()


def schema_version(schema_text: str) -> str:
    return xxhash.xxh3_64_hexdigest(f"{schema_text}\0parser {parse.PARSER_VERSION}".encode())


# schema_version(schema()), kept as a constant so that a recall need not read and hash the
# schema: tests/test_index_version.py fails, naming the new value, whenever schema.sql or
# PARSER_VERSION changes without it.
INDEX_VERSION = "c6ce43c659bb66e5"


def cache_dir() -> str:
    explicit = os.environ.get("MEM_CACHE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "mem")
    return os.path.join(os.path.expanduser("~"), ".cache", "mem")


def index_path(root: str, role: str, directory: str | None = None) -> str:
    """Where the index of a root lives: keyed by role and the root's real path."""
    key = xxhash.xxh3_128_hexdigest(f"{role}\0{root}".encode())[:20]
    return os.path.join(directory or cache_dir(), f"{role}-{key}-v{INDEX_VERSION}.sqlite")


def remove_other_versions(path: str) -> int:
    """Delete indexes another mem version left for the same root: nothing reads them again."""
    directory, name = os.path.split(path)
    prefix = name[: name.rindex("-v") + 2]
    import contextlib

    removed = 0
    for other in sorted(os.listdir(directory)):
        if other.startswith(prefix) and other.endswith(".sqlite") and other != name:
            remove(os.path.join(directory, other))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, other + ".lock"))
            removed += 1
    return removed


_HEX = frozenset("0123456789abcdef")


def remove_killed_builds(path: str) -> int:
    """Delete the half-built copies (`<path>.<uuid hex>.tmp`) of builds that were killed.

    A killed build leaves its temporary file behind, as large as it had grown (a whole
    index of a big project). Every build of `path` runs under write_lock(path) or in a
    directory of its own, so a builder that starts finds only dead builders' files.
    """
    import contextlib

    directory, name = os.path.split(path)
    removed = 0
    for other in os.listdir(directory or "."):
        middle = other[len(name) + 1 : -len(".tmp")]
        if (
            other.startswith(name + ".")
            and other.endswith(".tmp")
            and len(middle) == 32
            and _HEX.issuperset(middle)
        ):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, other))
                removed += 1
    return removed


def usable_cache_dir() -> str | None:
    directory = cache_dir()
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return directory if os.access(directory, os.W_OK | os.X_OK) else None


class ProjectRow(NamedTuple):
    id: int
    path: str
    name: str
    role: str
    found: int
    signature: bytes | None
    watch: str | None


class FileRow(NamedTuple):
    id: int
    path: str
    kind: str
    rank: int
    real_path: str
    hash: str
    size: int
    mtime_ns: int
    inode: int
    checked_ns: int
    utf8: int
    ctime_ns: int


class RecordRow(NamedTuple):
    """A record as the sync writes it (ids are assigned on insert)."""

    ordinal: int
    kind: str
    ref: str
    text: str
    length: int  # token count n
    counts: Mapping[bytes, int]  # token -> tf
    digest: int  # what a re-sync compares to keep a record
    agent: str | None = None
    ts: str | None = None
    ts_ms: float | None = None
    ts_local: int | None = None
    line: str | None = None
    memory_id: str | None = None  # notes of a project's six memory files
    revision: str | None = None


def connect(path: str) -> sqlite3.Connection | None:
    """An open index of the current version, or None when it is missing, foreign or corrupt."""
    if not os.path.exists(path):
        return None
    # The busy timeout as connect sets it (sqlite3_busy_timeout): no statement to prepare.
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        # WAL without a sync per commit: a crash can only lose the last syncs, which the
        # files table then shows as not done, so the next read redoes them.
        conn.execute("PRAGMA synchronous = NORMAL")
        row = conn.execute("SELECT value FROM meta WHERE key = 'index_version'").fetchone()
    except sqlite3.DatabaseError:
        conn.close()
        return None
    if row is None or row[0] != INDEX_VERSION:
        conn.close()
        return None
    return conn


def connect_built(path: str) -> sqlite3.Connection:
    """The index just built at `path`. Its absence is an OS fault, not a bug: the cache folder
    can go away between the rename and the open (a cleaner, a user), and the healing boundary
    answers that from a fresh index."""
    conn = connect(path)
    if conn is None:
        raise FileNotFoundError(errno.ENOENT, "index vanished after its build", path)
    return conn


def file_identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the index file at `path`, or None when there is none."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


def remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            # Only damage puts a directory at an index's own name in mem's cache.
            import shutil

            shutil.rmtree(path + suffix)


def remove_lock_if_damaged(path: str) -> None:
    """Remove what stands at an index's lock path unless it is a lock file (a directory)."""
    lock = path + ".lock"
    if os.path.isdir(lock) and not os.path.islink(lock):
        import shutil

        shutil.rmtree(lock)


# Only `mem index check` needs it: compiled (and cached) by re on first use, not by every recall.
_FTS5_TABLE = r"CREATE VIRTUAL TABLE .* USING fts5\s*\("


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """What SQLite's own checks find wrong: PRAGMA integrity_check, and each FTS5 table's."""
    import re

    problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
    tables = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ).fetchall()
    for name, sql in tables:
        if not re.match(_FTS5_TABLE, sql or "", re.IGNORECASE | re.DOTALL):
            continue  # fts5vocab and plain tables have no integrity-check command
        try:
            conn.execute(f'INSERT INTO "{name}" ("{name}") VALUES (\'integrity-check\')')
        except sqlite3.DatabaseError as error:
            problems.append(f"{name}: {error}")
    return problems


def build(path: str, root: str) -> AbstractContextManager[sqlite3.Connection]:
    """A new index, populated by the caller, that appears at `path` whole or not at all.

    The caller holds write_lock(path), or builds in a directory of its own.
    """
    import contextlib

    return contextlib.contextmanager(_build)(path, root)


def _build(path: str, root: str) -> Iterator[sqlite3.Connection]:
    import gc  # builders only
    import uuid

    remove_killed_builds(path)
    temp = f"{path}.{uuid.uuid4().hex}.tmp"
    conn = sqlite3.connect(temp, isolation_level=None)
    # A build makes millions of containers (postings groups, token counts) and none of them
    # refers back to another: the cyclic collector would only walk them, over and over
    # (a third of the build). Whatever cycle a build does make is collected afterwards.
    collecting = gc.isenabled()
    gc.disable()
    try:
        # A half-built file is thrown away, never opened: no journal and no syncing until
        # it is whole, then one fsync before the rename publishes it.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KIB}")
        conn.executescript(schema())
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("index_version", INDEX_VERSION), ("root", root)],
        )
        yield conn
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
        with open(temp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        conn.close()
        remove(temp)
        raise
    finally:
        if collecting:
            gc.enable()


def temporary_directory() -> AbstractContextManager[str]:
    import tempfile

    return tempfile.TemporaryDirectory(prefix="mem-index-")


def write_lock(path: str) -> filelock.FileLock:
    """Serialise the writers of one index across processes (a `with` block holds the lock)."""
    import filelock  # only writers pay for it: a warm recall never gets here

    return filelock.FileLock(path + ".lock")


def begin_immediate(conn: sqlite3.Connection) -> bool:
    """Take SQLite's write lock, waiting up to the busy timeout; False when it stayed taken."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if "locked" not in str(error):
            raise
        return False
    return True


def transaction(conn: sqlite3.Connection) -> _Transaction:
    """BEGIN IMMEDIATE for a `with` block; COMMIT after it, or ROLLBACK when it raises."""
    return _Transaction(conn)


class _Transaction:
    # A class rather than contextlib.contextmanager: importing contextlib costs a recall 1 ms.
    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")


def reading(conn: sqlite3.Connection) -> _Reading:
    """One read transaction for a `with` block of queries: every statement sees the same
    state, and SQLite takes and drops its WAL read lock once rather than per statement
    (each time a lock, an fstat and an unlock: three system calls, a sixth of a recall's
    time on some machines). A connection already in a transaction is left as it is."""
    return _Reading(conn)


class _Reading:
    __slots__ = ("conn", "began")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.began = False

    def __enter__(self) -> sqlite3.Connection:
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN")
            self.began = True
        return self.conn

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self.began and self.conn.in_transaction:
            self.conn.execute("COMMIT" if kind is None else "ROLLBACK")


# A project's own index holds exactly one root, under this id.
ONLY_PROJECT = 1


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


def project_rows(
    conn: sqlite3.Connection, with_cache: bool = True, ids: Collection[int] | None = None
) -> list[ProjectRow]:
    """Every indexed root (or those of `ids`), by path then role; without its freshness
    cache unless asked."""
    cache = "signature, watch" if with_cache else "NULL, NULL"
    among = "" if ids is None else f" WHERE id IN ({','.join(str(int(i)) for i in ids)})"
    rows = conn.execute(
        f"SELECT id, path, name, role, found, {cache} FROM projects{among} ORDER BY path, role"
    )
    return [ProjectRow(*row) for row in rows]


def file_rows(conn: sqlite3.Connection, project_id: int = ONLY_PROJECT) -> dict[str, FileRow]:
    rows = conn.execute(
        "SELECT id, path, kind, rank, real_path, hash, size, mtime_ns, inode, checked_ns, utf8,"
        " ctime_ns FROM files WHERE project_id = ?",
        (project_id,),
    )
    return {row[1]: FileRow(*row) for row in rows}


# Every table whose rows are derived from one source file (a `file_id` column).
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
            [(file_id, *[row.get(column) for column in columns]) for row in table_rows],
        )


def upsert_file(
    conn: sqlite3.Connection,
    project_id: int,
    path: str,
    kind: str,
    rank: int,
    real_path: str,
    digest: str,
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
            digest,
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
    digest: str,
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
        (size, mtime_ns, inode, checked_ns, ctime_ns, project_id, path, digest),
    )


def _insert_records(columns: str) -> str:
    named = f"id, file_id, ordinal, kind, ref, text, tokens, {columns}"
    marks = ", ".join("?" * len(named.split(",")))
    return f"INSERT INTO records ({named}) VALUES ({marks})"


_NOTE_NULLS = (None,) * 5  # agent to line
_EVENT_NULLS = (None, None)  # memory_id and revision
# The INSERT of each shape of record row: every note's, every event's, any other.
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

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.next_id: int = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM records").fetchone()[
            0
        ]
        self.flush_postings = self.FLUSH_POSTINGS
        self.groups = postings.Groups()
        self.term_ids = postings.TermIds()
        # Batches of a fresh index are merged into whole groups (postings.MERGED_PART) at the
        # end; later syncs add to the groups' part 0.
        self.parts = 0
        # No records yet, so no postings either: batches are staged and sorted in at the end.
        self.fresh = self.next_id == 1
        self.staged = False

    def insert(self, file_id: int, records: Iterable[RecordRow]) -> None:
        # Rows by which of their columns are NULL (_SHAPES): the sqlite3 module offers a
        # None (or bytes) to its adapters first, at the cost of a formatted exception each.
        rows: tuple[list[tuple[object, ...]], ...] = ([], [], [])
        notes, events, others = rows
        add = self.groups.add
        record_id = self.next_id
        written = 0
        for record in records:
            if record[7:12] == _NOTE_NULLS:
                notes.append((record_id, file_id, *record[:5], *record[6:7], *record[12:]))
            elif record[12:] == _EVENT_NULLS:
                events.append((record_id, file_id, *record[:5], *record[6:12]))
            else:
                others.append((record_id, file_id, *record[:5], *record[6:]))
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
        self.next_id = record_id
        self._write(rows)

    def _write(self, rows: tuple[list[tuple[object, ...]], ...]) -> None:
        for statement, shaped in zip(_SHAPES, rows, strict=True):
            if shaped:
                self.conn.executemany(statement, shaped)
        if self.groups.size >= self.flush_postings:
            self._spill(staged=self.fresh)

    def _spill(self, staged: bool) -> None:
        self.groups.flush(self.conn, self.term_ids, self.parts, staged)
        self.staged = self.staged or staged
        self.parts += 1

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
        self.fresh = False


def insert_records(conn: sqlite3.Connection, file_id: int, records: Iterable[RecordRow]) -> None:
    inserter = Inserter(conn)
    inserter.insert(file_id, records)
    inserter.flush()


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


def has_lifecycle_events(conn: sqlite3.Connection) -> bool:
    """Whether the project's lifecycle store holds any record (most projects have none)."""
    return conn.execute("SELECT 1 FROM lifecycle LIMIT 1").fetchone() is not None


def notes_headed(
    conn: sqlite3.Connection, file_ids: list[int], headings: list[str]
) -> list[tuple[int, int, int, str, str]]:
    """(record id, file id, section, heading, text) of these files' notes with these headings."""
    if not file_ids:
        return []
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    found: list[tuple[int, int, int, str, str]] = []
    for start in range(0, len(headings), 500):  # far below SQLite's bound-parameter limit
        chunk = headings[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found += conn.execute(
            "SELECT id, file_id, ordinal, ref, text FROM records WHERE kind = 'note'"
            f" AND file_id IN ({files_list}) AND ref IN ({marks}) ORDER BY id",
            chunk,
        ).fetchall()
    return found


class StoredRecord(NamedTuple):
    id: int
    kind: str
    path: str
    ref: str
    text: str
    line: str | None
    project_id: int


def fetch(conn: sqlite3.Connection, ids: list[int]) -> dict[int, StoredRecord]:
    found: dict[int, StoredRecord] = {}
    for start in range(0, len(ids), 500):  # stay far below SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT r.id, r.kind, f.path, r.ref, r.text, r.line, f.project_id FROM records AS r"
            f" JOIN files AS f ON f.id = r.file_id WHERE r.id IN ({marks})",
            chunk,
        )
        for row in rows:
            found[row[0]] = StoredRecord(*row)
    return found


def postings_vectors(conn: sqlite3.Connection) -> dict[int, list[tuple[str, int, int]]]:
    """record id -> the (term, band, tf) postings that name it."""
    vectors: dict[int, list[tuple[str, int, int]]] = {}
    for term, band, tf, blob in conn.execute(
        "SELECT t.term, p.band, p.tf, p.records FROM postings AS p JOIN terms AS t ON t.id = p.term"
    ):
        for record_id in postings.decode(blob):
            vectors.setdefault(record_id, []).append((term, band, tf))
    return vectors


def snapshot(
    conn: sqlite3.Connection,
    project_id: int = ONLY_PROJECT,
    vectors: dict[int, list[tuple[str, int, int]]] | None = None,
) -> dict[str, object]:
    """A root's content without surrogate ids or stat data: equal for equal canonical files.

    `vectors` (postings_vectors) is taken from as records are met, so that several roots
    can share one decoding; without it the postings of records that do not exist are shown.
    """
    whole = vectors is None
    if vectors is None:
        vectors = postings_vectors(conn)
    files = sorted(
        conn.execute(
            "SELECT path, kind, rank, real_path, hash, utf8 FROM files WHERE project_id = ?",
            (project_id,),
        ).fetchall()
    )
    records = sorted(
        (
            (*row[1:], tuple(sorted(vectors.pop(row[0], []))))
            for row in conn.execute(
                "SELECT r.id, f.path, r.ordinal, r.kind, r.ref, r.text, r.tokens, r.agent, r.ts,"
                " r.ts_ms, r.ts_local, r.line, r.digest, r.memory_id, r.revision FROM records AS r"
                " JOIN files AS f ON f.id = r.file_id WHERE f.project_id = ?",
                (project_id,),
            )
        ),
        key=repr,
    )
    stores = {
        table: sorted(_rows_with_path(conn, table, project_id), key=repr)
        for table in FILE_TABLES
        if table != "records"
    }
    found: dict[str, object] = {"files": files, "records": records, **stores}
    if whole:
        # Postings of records that do not exist would be a corruption: show them.
        found["orphan_postings"] = orphan_postings(vectors)
    return found


def orphan_postings(
    vectors: dict[int, list[tuple[str, int, int]]],
) -> list[tuple[int, tuple[tuple[str, int, int], ...]]]:
    return sorted((record_id, tuple(vector)) for record_id, vector in vectors.items())


def _rows_with_path(
    conn: sqlite3.Connection, table: str, project_id: int
) -> list[tuple[object, ...]]:
    """A store table's rows with the source path in place of the surrogate file_id."""
    cursor = conn.execute(
        f"SELECT f.path, t.* FROM {table} AS t JOIN files AS f ON f.id = t.file_id"
        " WHERE f.project_id = ?",
        (project_id,),
    )
    drop = [column[0] for column in cursor.description].index("file_id")
    return [row[:drop] + row[drop + 1 :] for row in cursor]


def recall_file_ids(
    conn: sqlite3.Connection, roots: Mapping[int, str], every_root: bool, include_archive: bool
) -> tuple[dict[int, int], dict[int, str]]:
    """The recall sources (journals, notes) of the roots (project id -> path; `every_root`:
    they are all the index holds): file id -> rank, and file id -> the root's path."""
    where = " WHERE kind IN ('journal', 'notes')"
    if not every_root:
        members = ",".join(str(int(project_id)) for project_id in roots)
        where += f" AND project_id IN ({members})"
    if not include_archive:
        where += f" AND rank < {ARCHIVE_RANK_BASE}"
    # Three lists in one row, split in C: thousands of rows cost more than their numbers.
    ids, ranks, projects = conn.execute(
        f"SELECT group_concat(id), group_concat(rank), group_concat(project_id) FROM files{where}"
    ).fetchone()
    if ids is None:
        return {}, {}
    file_ids = list(map(int, ids.split(",")))
    paths = map(roots.__getitem__, map(int, projects.split(",")))
    ranked = zip(file_ids, map(int, ranks.split(",")), strict=True)
    return dict(ranked), dict(zip(file_ids, paths, strict=True))


def retired_notes(
    conn: sqlite3.Connection, project_ids: list[int]
) -> dict[int, tuple[str, str | None]]:
    """Notes whose current revision is retired (deviation D10): record id -> (kind, successor).

    The schema's `retired` view decides; the first applicable event of a note wins.
    """
    # Only roots whose lifecycle stores hold lines can retire a note; most hold none, and
    # the view looks every file of each root named up.
    with_events = {
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT f.project_id FROM lifecycle AS l JOIN files AS f ON f.id = l.file_id"
        )
    }
    wanted = [project_id for project_id in project_ids if project_id in with_events]
    if not wanted:
        return {}
    members = ",".join(str(int(project_id)) for project_id in wanted)
    rows = conn.execute(
        "SELECT id, kind, superseded_by FROM retired"
        f" WHERE project_id IN ({members}) ORDER BY id, line DESC"
    )
    # Later lines first, so the earliest applicable event of each note is the one kept.
    return {row[0]: (row[1], row[2]) for row in rows}


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {
        "files": conn.execute("SELECT count(*) FROM files").fetchone()[0],
        "records": conn.execute("SELECT count(*) FROM records").fetchone()[0],
    }


class ScoreInputs(NamedTuple):
    """What a record's score is computed from (`recall --explain` shows it)."""

    frequencies: tuple[int, ...]  # of each query term, in query order
    tokens: int
    ts_ms: float | None
    ts_local: int


def score_inputs(
    conn: sqlite3.Connection, ids: list[int], terms: list[str]
) -> dict[int, ScoreInputs]:
    """The term frequencies and lengths behind each record's score.

    Postings group records by frequency and are not looked up by record, so the
    frequencies are counted again from the stored text with the tokenizer the build used:
    only `--explain` pays for it, on the few records it shows.
    """
    wanted = [term.encode("latin-1") for term in terms]
    found: dict[int, ScoreInputs] = {}
    # The ids go in chunks: stay far below SQLite's bound-parameter limit.
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for record_id, text, tokens, ts_ms, ts_local in conn.execute(
            "SELECT id, text, tokens, ts_ms, coalesce(ts_local, 0) FROM records"
            f" WHERE id IN ({marks})",
            chunk,
        ):
            counts, _ = parse.term_counts(parse.token_bytes(text))
            frequencies = tuple(counts.get(term, 0) for term in wanted)
            found[record_id] = ScoreInputs(frequencies, tokens, ts_ms, ts_local)
    return found
