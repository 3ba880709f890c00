"""`mem cache clean`: delete index files from the cache directory, and nothing else.

Only names of mem's own pattern, `<role>-<20 hex>-v<16 hex>.sqlite` and their companions
(WAL, lock, a killed build's `.tmp`), are touched, and only as files or links in the cache
directory itself: a project's files are never named there, so none can be removed.
"""

from __future__ import annotations

import contextlib
import os

from mem.index import building, location

ROLES = (location.PROJECT, location.BRAIN, location.PORTFOLIO)
HEX = frozenset("0123456789abcdef")


def index_name(name: str) -> str | None:
    """The index file a cache entry belongs to (its own name for an index), else None."""
    role, _, rest = name.partition("-")
    key, _, rest = rest.partition("-v")
    version, dot, suffix = rest.partition(".sqlite")
    if (
        role not in ROLES
        or len(key) != 20
        or not set(key) <= HEX
        or len(version) != 16
        or not set(version) <= HEX
        or not dot
    ):
        return None
    if suffix in ("", "-wal", "-shm", "-journal", ".lock") or (
        suffix.startswith(".") and suffix.endswith(".tmp")
    ):
        return f"{role}-{key}-v{version}.sqlite"
    return None


def clean(directory: str, wanted: str | None) -> dict[str, object]:
    """Delete the files of the index named `wanted` in every version, or with None all of them.

    The files of another version's index, its lock included, go too: nothing reads them.
    """
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        names = []
    groups: dict[str, list[str]] = {}
    for name in names:
        owner = index_name(name)
        if owner is not None and (wanted is None or _same_root(owner, wanted)):
            groups.setdefault(owner, []).append(name)
    removed: list[str] = []
    kept: list[str] = []
    size = 0
    for owner, members in groups.items():
        current = owner.endswith(f"-v{location.INDEX_VERSION}.sqlite")
        lock = os.path.join(directory, owner + ".lock")
        # Another version's index is never read again (as building.remove_other_versions);
        # the current one goes under its write lock, so no sync is half-way through it
        # (a link at the lock's name cannot be locked, by anyone: it is only removed).
        locked = current and not os.path.islink(lock)
        with building.write_lock(os.path.join(directory, owner)) if locked else _unlocked():
            for name in members:
                path = os.path.join(directory, name)
                if name.endswith(".lock") or not _plain(path):
                    continue
                size += os.lstat(path).st_size
                os.unlink(path)
                removed.append(name)
        # A process may be waiting on the current lock: it stays unless everything goes.
        # (Removing a lock file someone waits on would let a newcomer lock a new file at its
        # name while the waiter gets the old one: two writers. It holds no data.)
        if (wanted is None or not current) and _plain(lock):
            size += os.lstat(lock).st_size
            os.unlink(lock)
            removed.append(owner + ".lock")
        elif _plain(lock):
            kept.append(owner + ".lock")
    return {"directory": directory, "removed": sorted(removed), "bytes": size, "kept": kept}


def _unlocked() -> contextlib.nullcontext[None]:
    return contextlib.nullcontext()


def _same_root(owner: str, wanted: str) -> bool:
    # Any version of the same root's index: the name up to its "-v".
    return owner[: owner.rindex("-v")] == wanted[: wanted.rindex("-v")]


def _plain(path: str) -> bool:
    """A file or a link at the name (a link is removed, never followed)."""
    return os.path.islink(path) or os.path.isfile(path)
