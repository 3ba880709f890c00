"""`mem evidence add|list`: the checkout files a memory rests on (evidence-lifecycle.md 2-3).

Recording is all-or-nothing: every source is checked and hashed before anything is
appended, and the new lines are appended in one write under the writer lock.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mem.core.rules import secrets
from mem.core.rules.memory import Added, Memory, normalized_source
from mem.domain import evidence_records, memories
from mem.errors import MemError
from mem.files import checkout_files, gitrepo, locking, stores, writing

MAX_SOURCES = 50


def add(
    root: str,
    wanted: str,
    sources: list[str],
    checkout_root: str | None,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> Added:
    """Record the current hashes of `sources` for the memory's current revision."""
    if not sources:
        raise MemError(f"At least one --source is required (at most {MAX_SOURCES} per call).")
    if len(sources) > MAX_SOURCES:
        raise MemError(f"At most {MAX_SOURCES} --source paths per call ({len(sources)} given).")
    secrets.refuse([("--source", source) for source in sources], allow_secrets)
    checkout = os.path.realpath(checkout_root) if checkout_root else root
    identity = gitrepo.identity(checkout)
    if identity.repo is None:
        assert identity.problem is not None
        raise MemError(identity.problem)
    memory = memories.resolve(memories.load(root), wanted, suggest=False)
    hashed = _hash_sources(checkout, sources)
    with locking.writer_lock(root):
        records = evidence_records.read_records(root)
        latest = _latest_by_path(records, memory)
        paths = set(latest) | {path for path, _ in hashed}
        if len(paths) > MAX_SOURCES:
            raise MemError(
                f"Memory {memory.id} would rest on {len(paths)} source paths at this revision;"
                f" at most {MAX_SOURCES} are allowed."
            )
        written: list[stores.Record] = []
        unchanged: list[stores.Record] = []
        fresh: list[tuple[str, checkout_files.CheckoutFile]] = []
        for path, found in hashed:
            prior = latest.get(path)
            if prior is not None and _same(prior, identity.repo, found):
                unchanged.append(prior)
            else:
                fresh.append((path, found))
        if fresh:
            written = _records(memory, identity.repo, fresh, now)
            lines = "".join(stores.line_of(record) for record in written)
            writing.append_line(root, evidence_records.STORE, lines)
    return Added(memory, written, unchanged, [path for path, _ in hashed])


def _hash_sources(
    checkout: str, sources: list[str]
) -> list[tuple[str, checkout_files.CheckoutFile]]:
    hashed: dict[str, checkout_files.CheckoutFile] = {}
    refusals: list[str] = []
    for given in sources:
        path = normalized_source(given)
        if path is None:
            refusals.append(
                f"{given}: must be a relative path inside --root without '..' and not under .git/"
            )
            continue
        if path in hashed:
            continue
        found = checkout_files.read_checkout_file(checkout, path)
        if found.state != "file":
            refusals.append(f"{given}: {found.reason}")
            continue
        hashed[path] = found
    if refusals:
        raise MemError("Evidence not recorded (nothing was written): " + "; ".join(refusals) + ".")
    return list(hashed.items())


def _latest_by_path(records: list[stores.Record], memory: Memory) -> dict[str, stores.Record]:
    """The newest record of each source path at the memory's revision."""
    latest: dict[str, stores.Record] = {}
    for record in records:
        ref = record["memory"]
        if ref["id"] == memory.id and ref["revision"] == memory.revision:
            latest[record["source"]["path"]] = record
    return latest


def _same(record: stores.Record, repo: str, found: checkout_files.CheckoutFile) -> bool:
    source = record["source"]
    return bool(
        record["repo"] == repo and source["sha256"] == found.sha256 and source["size"] == found.size
    )


def _records(
    memory: Memory, repo: str, hashed: list[tuple[str, checkout_files.CheckoutFile]], now: str
) -> list[stores.Record]:
    sources = [{"path": path, "sha256": found.sha256, "size": found.size} for path, found in hashed]
    # One call's records share a batch id derived from what they state, not from chance.
    batch = stores.record_id({"ts": now, "memory": memory.ref(), "repo": repo, "sources": sources})
    return [
        stores.with_id(
            {
                "schemaVersion": 1,
                "kind": "memory-evidence",
                "ts": now,
                "memory": memory.ref(),
                "repo": repo,
                "source": source,
                "batch": batch,
            }
        )
        for source in sources
    ]


def listed(root: str, wanted: str) -> tuple[Memory, list[dict[str, Any]]]:
    """Every evidence record of the memory, all revisions, store order, marked `current`."""
    memory = memories.resolve(memories.load(root), wanted, suggest=True)
    return memory, [
        {**record, "current": record["memory"]["revision"] == memory.revision}
        for record in evidence_records.read_records(root)
        if record["memory"]["id"] == memory.id
    ]
