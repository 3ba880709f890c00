"""`mem unlock`: remove writer.lock when its owner is provably dead (deviation D6)."""

from __future__ import annotations

from typing import Any

from mem.errors import MemError
from mem.files import locking


def unlock(root: str) -> dict[str, Any]:
    """Remove writer.lock only when its owner is provably dead on this host (deviation D6).

    A lock with an empty or unreadable owner record counts as dead once it is a few seconds
    old: a writer records itself right after creating the file, so only a writer killed in
    between leaves one, and it would block every writer forever.
    """
    owner = locking.read_lock_owner(root)
    if owner is None:
        return {"lock": "free", "removed": False, "owner": None}
    described = {"pid": owner.pid, "hostname": owner.hostname, "alive": owner.alive}
    if owner.alive is not False and not owner.abandoned_unreadable:
        raise MemError(
            f"writer.lock is held ({owner.describe()}); it was left in place. "
            "Only a lock whose owner is provably dead on this host, or whose owner record "
            "has been empty or unreadable for a few seconds, is removed."
        )
    if not locking.remove_dead_lock(root, owner):
        raise MemError(
            "writer.lock changed while it was inspected; it was left in place."
            " Run `mem unlock` again."
        )
    if owner.pid is None:
        return {"lock": "removed", "removed": True, "owner": None, "ownerRecord": owner.raw}
    return {"lock": "removed", "removed": True, "owner": described}
