"""Looking inside an index in a test: opened as every reader opens it, without healing."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mem import index
from mem.index import connection, opening, portfolio


@contextlib.contextmanager
def opened(root: Path | str, role: str = index.PROJECT) -> Iterator[index.Opened]:
    """The root's index in step with its files, as mem.index.answer opens it (a kept
    connection taken and given back), for a `with` block that looks inside it."""
    path = index.index_path(str(root), role, index.usable_cache_dir())
    if role == index.PORTFOLIO:
        conn, changes = portfolio.open_portfolio_index(str(root), path, None)
        found = index.Opened(conn, changes, {})
    else:
        found = opening.project_index(str(root), role, path, connection.take_kept(path))
    try:
        yield found
    finally:
        if role == index.PORTFOLIO:
            found.conn.close()
        else:
            connection.release(path, found.conn)


@contextlib.contextmanager
def synced(
    root: Path | str, role: str = index.PROJECT
) -> Iterator[tuple[index.Connection, object]]:
    """opened(), as (connection, what the sync did)."""
    with opened(root, role) as found:
        yield found.conn, found.changes


def changes(root: Path | str, role: str = index.PROJECT) -> Any:
    """What bringing the root's index in step with its files took (None: nothing)."""
    with opened(root, role) as found:
        return found.changes
