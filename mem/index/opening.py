"""The one way to read an index: in step with the files, and healed when the cache is damaged.

`answer(use)` calls `use(open_index)`; `open_index(root, role, bm25=False, history=False)`
returns the index of a project, a brain or a brain's portfolio (with the bm25 ranking's
postings when `bm25` asks for them, and a project's commits in step with its HEAD when
`history` does: mem.index.history), synced with the files as they are now and held
in one read transaction (every query sees the same state, and SQLite takes its WAL read
lock once rather than per statement) until `use` returns. Then every index it opened is
closed, or kept open for the next call in a long-running process (connection.keep_open).

The index is a disposable copy of the canonical files, so an SQLite, OS or decoding error
while it is opened, synced or queried means the copy is damaged (a zeroed page, random
bytes in `meta`, a directory where the file or its lock should be, the cache folder
removed under a running recall). The copies `use` opened are then discarded and `use` runs
again; when even that fails, it runs on indexes built in a temporary directory. A lock
another process holds past the busy timeout is not damage: that answer comes from a
temporary index and the cached one is kept. A MemError
(a problem with the project's own files, which the user must fix) is never caught here.
"""

from __future__ import annotations

import sqlite3

from mem.files import index_sources
from mem.index import connection, freshness, location
from mem.index.rows import file_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from tempfile import TemporaryDirectory
    from typing import TypeVar

    from mem.index.connection import Connection
    from mem.index.portfolio import Progress, RootChanges
    from mem.index.rows import FileRow
    from mem.index.sync import FileChanges

    Answer = TypeVar("Answer")
    OpenIndex = Callable[..., "Opened"]

# What a damaged cache raises. Canonical-file errors arrive as MemError and pass through.
FAULTS = (sqlite3.Error, OSError, UnicodeDecodeError)


class Opened:
    """An index in step with its root's files, readable until `answer` returns."""

    __slots__ = ("conn", "changes", "files", "cached", "history")

    def __init__(
        self,
        conn: Connection,
        changes: FileChanges | RootChanges | None,
        files: dict[str, FileRow],
    ) -> None:
        self.conn = conn
        self.changes = changes  # what bringing it in step did (None: nothing was needed)
        self.files = files  # a project's or brain's files rows; {} for a portfolio
        # False: the cache could not hold it, so this is a temporary index, gone after `use`.
        self.cached = True
        # history=True: None when the commits are in step with HEAD, else why there are none
        self.history: str | None = None


def answer(use: Callable[[OpenIndex], Answer], progress: Progress | None = None) -> Answer:
    """`use(open_index)` on healthy indexes, healing the cache first when it is damaged.

    `use` opens each index it needs with `open_index(root, role="project")`, holds nothing
    it read past returning, and writes nothing but the index: it may run up to three times.
    `progress` hears of a portfolio index's sync (projects done, projects in all, files read).
    """
    return healed(use, progress)[0]


def healed(
    use: Callable[[OpenIndex], Answer], progress: Progress | None = None
) -> tuple[Answer, str | None]:
    """`use`'s answer and what was wrong with the cached index (None when nothing was)."""
    opened: list[str] = []
    try:
        return _attempt(use, progress, opened), None
    except FAULTS as error:
        if busy(error):
            # Another process has held the index's write lock past the busy timeout (a
            # history's indexing holds it a part at a time, seconds): the copy is sound, so
            # it is kept, and this answer comes from a temporary index rather than a stale
            # read of the cached one.
            return _attempt(use, progress, [], in_scratch=True), None
        fault = describe(error)
    for path in dict.fromkeys(opened):
        discard(path)
    try:
        return _attempt(use, progress, []), fault
    except FAULTS:
        pass
    return _attempt(use, progress, [], in_scratch=True), fault


def _attempt(
    use: Callable[[OpenIndex], Answer],
    progress: Progress | None,
    opened: list[str],
    in_scratch: bool = False,
) -> Answer:
    held: list[tuple[str, Connection, bool]] = []  # (path, connection, may it be kept)
    scratch: list[TemporaryDirectory[str]] = []

    def open_index(
        root: str, role: str = location.PROJECT, bm25: bool = False, history: bool = False
    ) -> Opened:
        opened.append(location.index_path(root, role))
        directory = None if in_scratch else location.usable_cache_dir()
        cached = directory is not None
        if directory is None:  # no writable cache: answer from throwaway indexes
            if not scratch:
                from mem.index import building

                scratch.append(building.temporary_directory())
            directory = scratch[0].name
        path = location.index_path(root, role, directory)
        found: Opened
        if role == location.PORTFOLIO:
            from mem.index import portfolio  # --scope all and portfolio commands only

            conn, changes = portfolio.open_portfolio_index(root, path, progress, bm25)
            found = Opened(conn, changes, {})
            held.append((path, conn, False))
        else:
            kept = connection.take_kept(path) if cached else None
            found = project_index(root, role, path, kept, bm25)
            held.append((path, found.conn, cached))
        found.cached = cached
        if history and role == location.PROJECT:
            from mem.index import history as commits  # a read that asks for history only

            found.history = commits.sync(found.conn, root)
        found.conn.execute("BEGIN")
        return found

    try:
        result = use(open_index)
    except BaseException:
        # What failed may have been one of these indexes: the next use opens them afresh.
        for _, conn, _ in held:
            conn.close()
        for directory in scratch:
            directory.cleanup()
        raise
    for path, conn, keep in held:
        if conn.in_transaction:
            conn.execute("COMMIT")
        if keep:
            connection.release(path, conn)
        else:
            conn.close()
    for directory in scratch:
        directory.cleanup()
    return result


def project_index(
    root: str, role: str, path: str, kept: Connection | None, bm25: bool = False
) -> Opened:
    """A project's or brain's index in step with its files: as it is when their stat data
    says so (a warm recall), else after mem.index.sync has brought it there. `bm25`: with
    the bm25 ranking's postings, which an index has once a bm25 read built it."""
    conn = connection.usable(kept or connection.connect(path), bm25)
    if conn is not None:
        try:
            files = file_rows(conn)
            sources = index_sources.stat_sources(root, freshness.specs_for(root, role))
            if freshness.plan(sources, files).empty:
                return Opened(conn, None, files)
        except BaseException:
            conn.close()
            raise
    from mem.index import sync  # something changed: only then are the sync's modules loaded

    return Opened(*sync.open_project_index(root, role, path, conn, bm25))


def sync_project(root: str) -> None:
    """Bring the project's cached index up to date, rebuilding it when it is damaged."""
    answer(lambda open_index: open_index(root))


def busy(error: BaseException) -> bool:
    """Whether `error` is SQLite giving up on a lock another connection holds."""
    return isinstance(error, sqlite3.OperationalError) and error.sqlite_errorcode in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def discard(path: str) -> None:
    """Remove a damaged index and whatever stands in the way of rebuilding it.

    Best effort: what cannot be removed makes the rebuild fail too, and the answer then
    comes from a temporary index.
    """
    from mem.index import building  # a damaged cache only

    try:
        building.remove(path)
    except OSError:
        pass
    # A regular lock file may be held by a live writer; only a directory there is damage.
    try:
        building.remove_lock_if_damaged(path)
    except OSError:
        pass
