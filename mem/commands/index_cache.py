"""`mem index path|check|rebuild`, `mem cache dir|clean`: the index cache.

The index is a disposable copy of the files (mem.index); these only say where it is,
compare it with a fresh build, or build it again.
"""

from __future__ import annotations

import os
from typing import Any

from mem.files import brain
from mem.index import check, cleaning, location, portfolio


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


def cache_dir() -> dict[str, str]:
    """Where mem keeps its indexes: $MEM_CACHE_DIR, else $XDG_CACHE_HOME/mem, else ~/.cache/mem."""
    return {"directory": location.cache_dir()}


def cache_clean(root: str | None) -> dict[str, object]:
    """Delete the project's index (every version), or with None every index in the cache."""
    wanted = None if root is None else os.path.basename(location.index_path(root, location.PROJECT))
    return cleaning.clean(location.cache_dir(), wanted)
