"""Memory ids and revisions (evidence-lifecycle.md section 1)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mem.domain import memories
from mem.errors import MemError

FILE = ".agents/memory/decisions.md"


def test_id_is_file_nul_heading_and_revision_is_the_anchor_hash() -> None:
    found = memories.from_text(FILE, "# Decisions\n\n### Use BullMQ \n- body\n\n")
    assert len(found) == 1
    memory = found[0]
    expected_id = "mem_" + hashlib.sha256(f"{FILE}\0Use BullMQ".encode()).hexdigest()[:20]
    assert memory.id == expected_id
    assert memory.revision == hashlib.sha256(b"Use BullMQ\n- body").hexdigest()
    assert memory.ref() == {
        "id": expected_id,
        "file": FILE,
        "heading": "Use BullMQ",
        "revision": memory.revision,
    }


def test_editing_the_body_keeps_the_id_and_changes_the_revision() -> None:
    before = memories.from_text(FILE, "### A\nold\n")[0]
    after = memories.from_text(FILE, "### A\nnew\n")[0]
    renamed = memories.from_text(FILE, "### B\nold\n")[0]
    assert after.id == before.id and after.revision != before.revision
    assert renamed.id != before.id
    assert memories.from_text(".bmad/memory/decisions.md", "### A\nold\n")[0].id != before.id


def test_resolve_needs_the_full_id() -> None:
    listed = memories.from_text(FILE, "### A\nx\n### B\ny\n")
    assert memories.resolve(listed, listed[1].id, suggest=False) == listed[1]
    with pytest.raises(MemError) as unknown:
        memories.resolve(listed, listed[0].id[:8], suggest=False)
    assert str(unknown.value) == f"Unknown memory id: {listed[0].id[:8]}"
    with pytest.raises(MemError) as suggested:
        memories.resolve(listed, listed[0].id[:8], suggest=True)
    assert str(suggested.value).startswith(f"Unknown memory id: {listed[0].id[:8]} (")
    assert listed[0].id in str(suggested.value)


def test_duplicate_headings_are_ambiguous() -> None:
    listed = memories.from_text(FILE, "### Same\none\n### Same\ntwo\n### Other\n")
    with pytest.raises(MemError) as ambiguous:
        memories.resolve(listed, listed[0].id, suggest=True)
    assert str(ambiguous.value) == (
        f'Memory id {listed[0].id} is ambiguous: {FILE} has 2 sections headed "Same".'
    )


@given(st.text(), st.text())
def test_ids_are_well_formed(heading: str, body: str) -> None:
    for memory in memories.from_text(FILE, f"### {heading}\n{body}"):
        assert memory.id.startswith("mem_") and len(memory.id) == 24
        assert len(memory.revision) == 64
