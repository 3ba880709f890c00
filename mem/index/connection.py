"""Opening an index file, and the connections a long-running process keeps open.

A file that is missing, of another version, or not a readable SQLite database opens as
None: the caller rebuilds it (mem.index.opening decides what a damaged cache costs).
"""

from __future__ import annotations

import errno
import os
import sqlite3

from mem.index import location

BUSY_TIMEOUT_MS = 10_000
Connection = sqlite3.Connection


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
    if row is None or row[0] != location.INDEX_VERSION:
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


# A long-running process (`mem mcp`) keeps its indexes open between calls rather than
# reopening one per recall. Freshness does not depend on it: every call still compares the
# canonical files with the index it holds and applies what changed. Were the file at the
# path replaced under a kept connection (a rebuild elsewhere), that index would still be
# synced correctly; the identity check only lets go of it for the new one.
_keep_at_most = 0
_kept: dict[str, tuple[sqlite3.Connection, tuple[int, int]]] = {}


def keep_open(at_most: int) -> None:
    """From now on keep up to `at_most` index connections open between uses (0: none)."""
    global _keep_at_most
    _keep_at_most = at_most
    while len(_kept) > at_most:
        _kept.pop(next(iter(_kept)))[0].close()


def has_bm25(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps the bm25 ranking's postings: an index is built with them for
    a bm25 read, and keeps them from then on (its bm25_stats row says so)."""
    return conn.execute("SELECT 1 FROM bm25_stats").fetchone() is not None


def usable(conn: sqlite3.Connection | None, bm25: bool) -> sqlite3.Connection | None:
    """The connection, unless it is to an index without the bm25 postings asked for: that
    one is closed (None), and a build with them replaces the index."""
    if conn is not None and bm25 and not has_bm25(conn):
        conn.close()
        return None
    return conn


def take_kept(path: str) -> sqlite3.Connection | None:
    """The connection kept open for the index at `path`, if it is still that file's."""
    kept = _kept.pop(path, None)
    if kept is None:
        return None
    conn, identity = kept
    if file_identity(path) == identity:
        return conn
    conn.close()
    return None


def release(path: str, conn: sqlite3.Connection) -> None:
    """Keep the connection for the next use (see keep_open), or close it."""
    identity = file_identity(path) if _keep_at_most else None
    if identity is None:
        conn.close()
        return
    _kept[path] = (conn, identity)
    while len(_kept) > _keep_at_most:  # least recently used first
        _kept.pop(next(iter(_kept)))[0].close()
