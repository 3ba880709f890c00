"""What the pre-edit hook says: every note that governs the file first (kind, id, heading),
then the excerpts, best first, in the room left; never over the budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mem.render import brief as brief_view


def _memory(number: int, heading: str, summary: str) -> dict[str, object]:
    return {
        "kind": "decision",
        "id": f"mem_{number:020x}",
        "file": ".agents/memory/decisions.md",
        "heading": heading,
        "summary": summary,
        "relevance": 8.0,
    }


LONG = "Parent matchers are cached by directory, and each root keeps its own base. " * 3


def test_six_governing_notes_all_fit_and_the_best_keeps_its_text() -> None:
    notes = [
        _memory(n, f"2026-06-0{n} — ignore: change number {n} to dir.rs", LONG) for n in range(6)
    ]
    text, shown = brief_view.fit_edit(notes, 7, 1000)
    assert shown == 6 and len(text) <= 1000
    assert all(f"mem_{n:020x}" in text for n in range(6))
    assert "to dir.rs: Parent matchers are cached by directory" in text.split("mem_")[1]
    assert ".agents/memory/decisions.md" not in text  # the id is all `mem show` needs
    assert text.startswith("Project memory (mem) about the file being edited: 6 of 7 entries")
    assert text.endswith("\n1 entry left out. `mem show ID` prints one memory whole.\n")


def test_one_note_gets_its_whole_excerpt_and_a_long_heading_is_cut() -> None:
    heading = "2026-06-01 — " + "word " * 60
    text, shown = brief_view.fit_edit([_memory(1, heading, "Short body.")], 1, 1000)
    assert shown == 1 and "…: Short body.\n" in text
    assert max(len(line) for line in text.splitlines()) < 200


@settings(max_examples=200)
@given(
    notes=st.lists(
        st.tuples(st.text(min_size=1, max_size=300), st.text(max_size=400)), max_size=12
    ),
    smaller=st.integers(min_value=400, max_value=3000),
    larger=st.integers(min_value=0, max_value=3000),
)
def test_within_the_budget_and_a_larger_one_holds_every_note_of_a_smaller(
    notes: list[tuple[str, str]], smaller: int, larger: int
) -> None:
    entries = [_memory(n, heading, summary) for n, (heading, summary) in enumerate(notes)]
    small, shown_small = brief_view.fit_edit(entries, len(entries), smaller)
    large, shown_large = brief_view.fit_edit(entries, len(entries), smaller + larger)
    assert len(small) <= smaller and len(large) <= smaller + larger
    assert shown_small <= shown_large
    for n in range(shown_small):
        assert f"mem_{n:020x}" in small
