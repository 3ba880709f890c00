"""`mem index path|check|rebuild`: the index cache of the project, or of the portfolio.

The index is a disposable copy of the files (mem.index); these only say where it is,
compare it with a fresh build, or build it again.
"""

from __future__ import annotations

from typing import Any

from mem.files import brain
from mem.index import check, location, portfolio


def index_path(
    root: str, portfolio_: bool, explicit: str | None, progress: portfolio.Progress | None = None
) -> dict[str, str]:
    """Where the project's index (synced first), or with `portfolio_` the portfolio's, lives."""
    if portfolio_:
        return {"path": check.portfolio_path(brain.portfolio_brain(root, explicit), progress)}
    return {"path": check.cached_path(root, location.PROJECT)}


def index_check(
    root: str, portfolio_: bool, explicit: str | None, progress: portfolio.Progress | None = None
) -> dict[str, Any]:
    """Whether the index equals a fresh build; `ok` false lists the differences."""
    if portfolio_:
        return check.portfolio_check(brain.portfolio_brain(root, explicit), progress)
    return check.check(root)


def index_rebuild(
    root: str, portfolio_: bool, explicit: str | None, progress: portfolio.Progress | None = None
) -> dict[str, Any]:
    """Build the index again from the files now."""
    if portfolio_:
        return check.portfolio_rebuild(brain.portfolio_brain(root, explicit), progress)
    return check.rebuild(root)
