"""`mem recall` and the MCP recall tool: ranked notes, events and commits for a query.

The ranking, merging and explaining are mem.domain.recall's; here the user's settings fill
in what the options leave out.
"""

from __future__ import annotations

import os

from mem import clock
from mem.domain import recall as recalls
from mem.errors import MemError
from mem.files import settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.portfolio import Progress


def recall(
    root: str,
    query: str,
    now: str,
    *,
    scope: str = "project",
    ranking: str | None = None,
    include_history: bool = False,
    progress: Progress | None = None,
    **options: Any,
) -> recalls.Recalled:
    """The recall of `query` in the project at `root`; `options` are the fields of
    mem.domain.recall.RecallRequest.

    Without a ranking, the one the settings name (default_ranking); the project's commits
    when asked, or when its settings say so (wants_history)."""
    ranking = ranking or default_ranking(root)
    request = recalls.RecallRequest(
        query,
        scope=scope,
        ranking=ranking,
        include_history=wants_history(root, ranking, scope, include_history),
        **options,
    )
    return recalls.recall(root, request, now, clock.local_offset_ms, progress)


def default_ranking(root: str) -> str:
    """The ranking a recall uses when none is asked for: $MEM_RANKING, else the project's
    `.agents/memory/mem.toml`, else the user's `~/.config/mem/config.toml` (`ranking = ...`),
    else the reference's lexical ranking."""
    chosen = os.environ.get("MEM_RANKING")
    if chosen and chosen not in recalls.RANKINGS:
        # Named as the settings files name themselves, so the user knows where to look.
        raise MemError(f'MEM_RANKING must be "lexical" or "bm25" or "evidence", not "{chosen}".')
    return (
        chosen
        or settings.project(root).get("ranking")
        or settings.user().get("ranking")
        or "lexical"
    )


def wants_history(root: str, ranking: str, scope: str, asked: bool) -> bool:
    """Whether a recall ranks the project's commits: when asked (--include-history), else
    for a project-scope bm25 recall when the project's `.agents/memory/mem.toml` says
    `history = true` (default false; docs/history.md)."""
    if asked:
        return True
    if ranking != "bm25" or scope != "project":
        return False
    return settings.project(root).get("history") == "true"
