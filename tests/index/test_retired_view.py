"""The index's `retired` view decides as `mem supersede|retract` do (deviation D10)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.indexes import cache_at
from support.portfolios import memory_ref, with_id
from support.trees import write

from mem.domain import lifecycle_events, memories

FILES = [".agents/memory/decisions.md", ".bmad/memory/lessons.md"]
HEADINGS = ["Pool", "Cache", "Retry"]
BODIES = ["one", "two"]
section = st.tuples(st.sampled_from(FILES), st.sampled_from(HEADINGS), st.sampled_from(BODIES))
reference = st.tuples(st.sampled_from(FILES), st.sampled_from(HEADINGS), st.sampled_from(BODIES))
event = st.one_of(
    st.tuples(st.just("retracted"), reference, st.none()),
    st.tuples(st.just("superseded"), reference, reference),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(st.lists(section, max_size=8), st.lists(event, max_size=6))
def test_retired_view_equals_lifecycle_statuses(
    sections: list[tuple[str, str, str]],
    events: list[tuple[str, tuple[str, str, str], tuple[str, str, str] | None]],
) -> None:
    root = Path(tempfile.mkdtemp(prefix="mem-retired-"))
    try:
        for file in FILES:
            mine = [(h, b) for f, h, b in sections if f == file]
            write(root / file, "".join(f"### {h}\n{b}\n" for h, b in mine))
        lines = []
        for step, (kind, old, new) in enumerate(events):
            record = {
                "schemaVersion": 1,
                "kind": kind,
                "ts": f"2026-10-0{1 + step % 9}T00:00:00.000Z",
                "memory": memory_ref(*old),
                "with": None if new is None else memory_ref(*new),
                "reason": "because",
            }
            lines.append(json.dumps(with_id(record), separators=(",", ":")) + "\n")
        write(root / ".bmad/memory/lifecycle.ndjson", "".join(lines))
        current = memories.load(str(root))
        statuses = lifecycle_events.statuses(lifecycle_events.read_events(str(root)), current)
        expected = sorted(
            (memory.file, memory.heading, memory.revision, status.status, status.superseded_by)
            for memory in current
            if (status := statuses[(memory.id, memory.revision)]).status != "active"
        )
        with cache_at(str(root / "cache")), indexes.synced(str(root)) as (conn, _):
            rows = conn.execute(
                "SELECT r.file, r.heading, n.revision, r.kind, r.superseded_by FROM retired AS r"
                " JOIN notes AS n ON n.id = r.id"
                " WHERE r.line = (SELECT min(line) FROM retired AS first WHERE first.id = r.id)"
            ).fetchall()
        assert sorted(rows) == expected
        hypothesis.event(f"retired: {bool(expected)}")
    finally:
        shutil.rmtree(root)
