"""Every call the benches make into `mem`'s Python API, one adapter per measurement.

The benches run with two versions of `mem` (`make bench-compare`: BASE's and the working
tree's, each from its own venv), and `mem`'s modules move while an issue reorganises them.
So nothing else under bench/ imports `mem`: the in-process children call these functions,
and each function looks its modules up by the names given to `_module`, newest first, the
names of BASE last. When a module moves, add its new name in front (one line); when a
function's name or arguments change, change the one adapter that calls it.

- `open_recall`: a project's warm recall on an open, synced index kept between calls, as
  `mem mcp` keeps it (today `mem.commands.recall.recall(root, recall.Request(query), now)`
  after `mem.index.sync.keep_open(1)`).
- `portfolio_check`: the portfolio's freshness check with nothing changed (today
  `mem.index.portfolio.synced(brain)`, whose report counts no project planned).
- `watched_paths`: the paths that check stats, for its floor of bare `stat` calls (today
  the `watch` column of `mem.index.project_rows`).
- `mcp_recall`: the MCP recall tool's own function, no protocol (today
  `mem.mcp.tools.BY_NAME["recall"].run(root, arguments)`).
- `canned_query_names`: the pages `mem browse` serves canned queries under, for
  bench/browse.py (today `mem.index.browse_copy.CANNED_QUERIES`).

Stdlib only; `mem` is imported when an adapter is called, from the interpreter's venv.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

MEM_NOW = "2026-10-18T09:30:00.000Z"


def _module(*names: str) -> ModuleType:
    """The first of these modules that exists (a module failing inside still fails loudly)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name is None or not (name + ".").startswith(missing.name + "."):
                raise
    raise ModuleNotFoundError(f"none of {', '.join(names)} in this mem")


def open_recall(keep_open: bool = True) -> Callable[[str, str], Any]:
    """recall(root, query) -> entries; with keep_open the index stays open between calls."""
    recall = _module("mem.commands.recall")
    sync = _module("mem.index.sync")
    if keep_open:
        sync.keep_open(1)
    return lambda root, query: recall.recall(root, recall.Request(query), MEM_NOW)


def portfolio_check(brain: str) -> Callable[[], None]:
    """check() -> None: the portfolio's freshness check, asserting nothing was stale."""
    portfolio = _module("mem.index.portfolio")

    def check() -> None:
        with portfolio.synced(brain) as (_, report):
            assert report.projects == 0, report

    return check


def watched_paths(brain: str) -> list[str]:
    """The paths the freshness check stats, in the order it stats them."""
    index = _module("mem.index")
    portfolio = _module("mem.index.portfolio")
    with portfolio.synced(brain) as (conn, _):
        rows = index.project_rows(conn)
    watched = [(row.path, (row.watch or "").split("\n")) for row in rows]
    return [os.path.join(root, line) for root, lines in watched for line in lines if line]


def mcp_recall() -> Callable[[str, dict[str, Any]], Any]:
    """run(root, arguments) -> answer: the MCP recall tool without the protocol, with the
    index kept open between calls as `mem mcp` keeps it."""
    sync = _module("mem.index.sync")
    tools = _module("mem.mcp.tools")
    sync.keep_open(8)
    return tools.BY_NAME["recall"].run


def canned_query_names() -> list[str]:
    """The names of `mem browse`'s canned queries, each a page of its own."""
    browse_copy = _module("mem.index.browse_copy")
    return [query.name for query in browse_copy.CANNED_QUERIES]
