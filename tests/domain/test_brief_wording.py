"""The brief's closing line counts in words a reader expects: one entry, two entries."""

from __future__ import annotations

from mem.render import brief as brief_view


def _memory(number: int) -> dict[str, object]:
    return {
        "kind": "decision",
        "id": f"mem_{number:020x}",
        "file": ".agents/memory/decisions.md",
        "heading": f"2026-01-0{number} — Decision {number}",
        "summary": "",
        "relevance": None,
    }


def test_one_entry_left_out_is_said_in_the_singular() -> None:
    text, shown = brief_view.fit([_memory(1), _memory(2)], 2, 2000, as_json=False)
    assert shown == 2 and "\n0 entries left out." in text
    small = len(brief_view.fit([_memory(1)], 2, 2000, as_json=False)[0])
    text, shown = brief_view.fit([_memory(1), _memory(2)], 2, small + 2, as_json=False)
    assert shown == 1 and "\n1 entry left out." in text
    assert len(text) <= small + 2
