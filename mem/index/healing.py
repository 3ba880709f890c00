"""The boundary around the index: no state of the cache directory stops an answer.

The index is a disposable copy of the canonical files, so an SQLite, OS or decoding error
while it is opened, synced or queried means the copy is damaged (a zeroed page, random
bytes in `meta`, a directory where the file or its lock should be, the cache folder
removed under a running recall). The copy is then discarded and rebuilt once; when even
that fails, the answer comes from a temporary index. A MemError (a problem with the
project's own files, which the user must fix) is never caught here.
"""

from __future__ import annotations

import _sqlite3 as sqlite3  # the sqlite3 package without its datetime import (mem.index)
import functools

from mem import index
from mem.index import sync
from mem.tuples import TYPE_CHECKING

if TYPE_CHECKING:
    import contextlib
    from collections.abc import Callable
    from typing import Any, TypeVar

# What a damaged cache raises. Canonical-file errors arrive as MemError and pass through.
FAULTS = (sqlite3.Error, OSError, UnicodeDecodeError)

if TYPE_CHECKING:
    Answer = TypeVar("Answer")
    # Opens an index synced with its root: its connection, what the sync did, its files rows.
    Opener = Callable[..., contextlib.AbstractContextManager[Any]]


def answer(use: Callable[[Opener], Answer], opener: Opener = sync.opened) -> Answer:
    """`use(open_index)` on a healthy index, healing the cache first when it is damaged.

    `use` opens each index it needs with `open_index(root, role)`, holds no result past
    returning, and writes nothing but the index: it may run up to three times. `opener`
    opens an index (root, role, directory=): a project's or brain's, or a portfolio's.
    """
    return healed(use, opener)[0]


def healed(
    use: Callable[[Opener], Answer], opener: Opener = sync.opened
) -> tuple[Answer, str | None]:
    """`use`'s answer and what was wrong with the cached index (None when nothing was)."""
    opened: list[str] = []

    def cached(root: str, role: str = "project") -> contextlib.AbstractContextManager[Any]:
        opened.append(index.index_path(root, role))
        return opener(root, role)

    try:
        return use(cached), None
    except FAULTS as error:
        fault = describe(error)
    for path in dict.fromkeys(opened):
        discard(path)
    try:
        return use(opener), fault
    except FAULTS:
        pass
    with index.temporary_directory() as scratch:
        return use(functools.partial(opener, directory=scratch)), fault


def sync_project(root: str) -> None:
    """Bring the project's cached index up to date, rebuilding it when it is damaged."""

    def use(open_index: Opener) -> None:
        with open_index(root, "project"):
            pass

    answer(use)


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def discard(path: str) -> None:
    """Remove a damaged index and whatever stands in the way of rebuilding it.

    Best effort: what cannot be removed makes the rebuild fail too, and the answer then
    comes from a temporary index.
    """
    import contextlib  # a damaged cache only: a recall does not import it

    with contextlib.suppress(OSError):
        index.remove(path)
    # A regular lock file may be held by a live writer; only a directory there is damage.
    with contextlib.suppress(OSError):
        index.remove_lock_if_damaged(path)


def check_integrity(conn: index.Connection) -> None:
    """Raise sqlite3.DatabaseError when SQLite's own checks find the index damaged."""
    problems = index.integrity_problems(conn)
    if problems:
        raise sqlite3.DatabaseError("integrity check failed: " + "; ".join(problems[:5]))
