"""A project's index built in a process of its own, for a hook that cannot wait for it.

A hook has seconds (4 per prompt). On a fresh clone of a big project (or after the cache
was emptied) building the index takes longer than that under load, and a build cut off at
the deadline was thrown away, so every hook after it started again and gave up again.
`cold` says whether the project's index must be built from nothing; the hook then runs
`build` in a process of its own (mem.files.detached): the build outlives the hook, and
the host killing it, so the hook waits for it only while it may, and the next hook finds
the index ready.
"""

from __future__ import annotations

import os

from mem.index import location, opening


def cold(root: str) -> bool:
    """Whether the project has no index of this version in the cache yet: one stat, so a
    warm hook pays nothing for asking. False when no cache can hold it (each read then
    builds a temporary one); an index that is there but damaged heals as every read's does."""
    directory = location.usable_cache_dir()
    if directory is None:
        return False
    return not os.path.exists(location.index_path(root, location.PROJECT, directory))


def build(root: str) -> None:
    """The project's index, in step with its files, with the bm25 postings."""
    opening.answer(lambda open_index: open_index(root, bm25=True))


def sync_history(root: str) -> None:
    """The project's commits brought in step with its HEAD (mem.index.history), for hooks
    that leave it to a process of its own: a first indexing of a large history takes longer
    than a hook may (100k commits: about 20 s); one killed keeps the parts it wrote and the
    next goes on from them. One such process at a time per index: another that finds one
    at work leaves it to it."""
    import filelock

    directory = location.usable_cache_dir()
    if directory is None:
        return  # every read indexes a temporary copy: nothing would keep the history
    path = location.index_path(root, location.PROJECT, directory)
    try:
        with filelock.FileLock(path + ".history.lock", blocking=False):
            opening.answer(lambda open_index: open_index(root, bm25=True, history=True))
    except filelock.Timeout:
        return
