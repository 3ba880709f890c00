"""`mem audit [ID]`: recorded evidence against the checkout (evidence-lifecycle.md 4).

Nothing here writes: no store, no index, no lock file, and git runs without optional locks.
"""

from __future__ import annotations

import os

from mem.core.rules.memory import MemoryAudit
from mem.domain import evidence_audit, evidence_records, memories
from mem.errors import MemError
from mem.files import gitrepo

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000


def parse_limit(text: str | None) -> int:
    if text is None:
        return DEFAULT_LIMIT
    stripped = text.strip()
    if not stripped.isdigit() or not 1 <= int(stripped) <= MAX_LIMIT:
        raise MemError(f"--limit must be an integer from 1 to {MAX_LIMIT}")
    return int(stripped)


def audit(
    root: str, wanted: str | None, checkout_root: str | None, limit_text: str | None
) -> tuple[list[MemoryAudit], int]:
    """(audits shown, memories with evidence); one memory when `wanted` is given."""
    limit = parse_limit(limit_text)
    checkout = os.path.realpath(checkout_root) if checkout_root else root
    current = memories.load(root)
    records = evidence_records.read_records(root)
    identity = gitrepo.identity(checkout)
    if wanted is not None:
        memory = memories.resolve(current, wanted, suggest=True)
        return [evidence_audit.audit_memory(memory, records, identity, checkout)], 1
    with_evidence = {record["memory"]["id"] for record in records}
    audits = [
        evidence_audit.audit_memory(memory, records, identity, checkout)
        for memory in current
        if memory.id in with_evidence
    ]
    audits.sort(
        key=lambda item: (
            evidence_audit.MEMORY_ORDER.index(item.status),
            item.memory.file,
            item.memory.heading,
            item.memory.ordinal,
        )
    )
    return audits[:limit], len(audits)
