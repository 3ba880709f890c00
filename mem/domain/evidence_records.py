"""The evidence store: which checkout files a memory's revision rests on (evidence-lifecycle.md 2).

A record holds the SHA-256 of a file's raw bytes and the canonical identity of the
repository it came from, never the content or an absolute path. `mem evidence add`
appends records; audit, context and browse read them.
"""

from __future__ import annotations

from mem import layout
from mem.files import stores

STORE = layout.EVIDENCE
LABEL = "Evidence"


def well_formed(record: stores.Record) -> bool:
    source = record.get("source")
    return (
        record.get("kind") == "memory-evidence"
        and isinstance(record.get("ts"), str)
        and stores.is_memory_ref(record.get("memory"))
        and isinstance(record.get("repo"), str)
        and isinstance(source, dict)
        and isinstance(source.get("path"), str)
        and isinstance(source.get("sha256"), str)
        and isinstance(source.get("size"), int)
        and isinstance(record.get("batch"), str)
    )


def read_records(root: str) -> list[stores.Record]:
    return stores.read_store(root, STORE, LABEL, well_formed)
