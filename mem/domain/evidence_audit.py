"""A memory's recorded evidence against the checkout, read only (evidence-lifecycle.md 4).

`mem audit` lists these statuses; context, recall --with-evidence and browse show them.
Unchanged is not correct: a status only says whether the bytes a memory rests on are
still the recorded ones. Nothing here writes: no store, no index, no lock file, and git
runs without optional locks.
"""

from __future__ import annotations

from mem.core.rules.memory import Memory, MemoryAudit, SourceAudit, normalized_source
from mem.domain import evidence_records
from mem.files import checkout_files, gitrepo, stores

# Most in need of review first; `unknown` here means evidence exists, but for an older revision.
MEMORY_ORDER = ("missing", "changed", "inconclusive", "unknown", "unchanged")
SOURCE_ORDER = ("missing", "changed", "inconclusive", "unchanged")


def audit_memory(
    memory: Memory, records: list[stores.Record], identity: gitrepo.Identity, checkout: str
) -> MemoryAudit:
    """A memory's status from its records (store order) and the checkout as it is now."""
    latest: dict[str, stores.Record] = {}
    older = 0
    for record in records:
        ref = record["memory"]
        if ref["id"] != memory.id:
            continue
        if ref["revision"] == memory.revision:
            latest[record["source"]["path"]] = record
        else:
            older += 1
    if not latest:
        return MemoryAudit(memory, "unknown", [], older)
    sources = [_audit_source(latest[path], identity, checkout) for path in sorted(latest)]
    present = {source.status for source in sources}
    status = next(status for status in SOURCE_ORDER if status in present)
    return MemoryAudit(memory, status, sources, older)


def _audit_source(record: stores.Record, identity: gitrepo.Identity, checkout: str) -> SourceAudit:
    source = record["source"]
    path, recorded, size = source["path"], source["sha256"], source["size"]

    def result(status: str, reason: str | None, current: str | None = None) -> SourceAudit:
        return SourceAudit(path, status, reason, recorded, current)

    if identity.repo is None:
        return result("inconclusive", f"repository identity is not provable ({identity.problem})")
    if identity.repo != record["repo"]:
        return result(
            "inconclusive",
            f"repository identity differs: recorded {record['repo']}, checkout {identity.repo}",
        )
    if normalized_source(path) != path:
        return result("inconclusive", "the recorded path escapes the root or is not normalized")
    found = checkout_files.read_checkout_file(checkout, path)
    if found.state == "missing":
        return result("missing", found.reason)
    if found.state == "refused":
        return result("inconclusive", found.reason)
    if found.sha256 == recorded and found.size == size:
        return result("unchanged", None, found.sha256)
    if found.size != size:
        detail = f"size {size} -> {found.size} bytes"
    else:
        detail = "same size, different SHA-256"
    return result("changed", f"differs from the record ({detail})", found.sha256)


def statuses(root: str, current: list[Memory]) -> dict[tuple[str, str], MemoryAudit]:
    """(memory id, revision) -> audit of each given memory against the project's checkout."""
    records = evidence_records.read_records(root)
    identity = gitrepo.identity(root) if records else gitrepo.Identity(None, None)
    return {
        (memory.id, memory.revision): audit_memory(memory, records, identity, root)
        for memory in current
    }
