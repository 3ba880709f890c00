"""`mem import` and `mem inbox`: the hosts' own memories, reviewed before they become notes.

`mem import HOST` puts what a host remembers of this project in the machine's inbox as
candidate notes (mem.domain.inbox); `mem inbox list|show|accept|reject` reviews them, and
`accept` writes a note as `mem note add` does. docs/import.md says what each host keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mem.domain import inbox
from mem.files import machine_state


def import_memories(
    root: str, host: str, now: str, dry_run: bool, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    hosts = inbox.HOSTS if host == "all" else (host,)
    found = [inbox.gather(name, root) for name in hosts]
    results = inbox.offer(root, found, now, dry_run=dry_run, allow_secrets=allow_secrets)
    return {
        "dryRun": dry_run,
        "inbox": machine_state.inbox_path(root),
        "hosts": [
            {
                "host": item.host,
                "looked": item.looked,
                "offered": [candidate.to_json() for candidate in item.offered],
                "duplicates": item.duplicates,
                "skipped": item.skipped,
                "left": item.left,
            }
            for item in results
        ],
    }


def listing(root: str, every: bool) -> dict[str, Any]:
    """The pending candidates (every candidate when `every`), oldest first."""
    items = [item for item in inbox.load(root).values() if every or item.state == "pending"]
    return {"inbox": machine_state.inbox_path(root), "candidates": [i.to_json() for i in items]}


def show(root: str, ids: Sequence[str], every: bool) -> dict[str, Any]:
    chosen = inbox.chosen(inbox.load(root), ids, every)
    return {"candidates": [item.to_json() for item in chosen]}


def decide(
    root: str,
    verb: str,
    ids: Sequence[str],
    every: bool,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> dict[str, Any]:
    """`accept` or `reject` the candidates named (or every pending one)."""
    if verb == "accept":
        decided = inbox.accept(root, ids, every, now, allow_secrets)
    else:
        decided = inbox.reject(root, ids, every, now)
    return {
        "verb": verb,
        "changed": [item.to_json() for item in decided.changed],
        "unchanged": [item.to_json() for item in decided.unchanged],
        "kept": [{**item.to_json(), "why": why} for item, why in decided.kept],
    }
