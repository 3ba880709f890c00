"""Writing an index: whole new builds that appear atomically, the writers' lock, and the
housekeeping of the cache folder (other versions' files, killed builds' leftovers).

Only a sync that must rebuild or take the writers' lock comes here: a warm recall, or one
that applies a `mem write`'s append under SQLite's own lock, never imports it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator

import filelock

from mem.index import location

# SQLite's page cache while building. The build only appends (records in id order, postings
# staged and then sorted in), so a small cache costs no time, and it bounds the sort's memory.
BUILD_CACHE_KIB = 8 * 1024


@contextlib.contextmanager
def build(path: str, root: str) -> Iterator[sqlite3.Connection]:
    """A new index, populated by the caller, that appears at `path` whole or not at all.

    The caller holds write_lock(path), or builds in a directory of its own.
    """
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
        conn.executescript(location.schema())
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("index_version", location.INDEX_VERSION), ("root", root)],
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


def temporary_directory() -> tempfile.TemporaryDirectory[str]:
    """A folder of its own for indexes that are never kept (a fresh build to compare with,
    or the answer of a process that has no usable cache)."""
    return tempfile.TemporaryDirectory(prefix="mem-index-")


def write_lock(path: str) -> filelock.FileLock:
    """Serialise the writers of one index across processes (a `with` block holds the lock)."""
    return filelock.FileLock(path + ".lock")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE for a `with` block; COMMIT after it, or ROLLBACK when it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def remove(path: str) -> None:
    """Delete an index file and its WAL companions (whatever stands at their names)."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            # Only damage puts a directory at an index's own name in mem's cache.
            shutil.rmtree(path + suffix)


def remove_lock_if_damaged(path: str) -> None:
    """Remove what stands at an index's lock path unless it is a lock file (a directory)."""
    lock = path + ".lock"
    if os.path.isdir(lock) and not os.path.islink(lock):
        shutil.rmtree(lock)


def remove_other_versions(path: str) -> int:
    """Delete indexes another mem version left for the same root: nothing reads them again."""
    directory, name = os.path.split(path)
    prefix = name[: name.rindex("-v") + 2]
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
