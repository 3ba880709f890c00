"""Pure receipt logic and the JavaScript serialisation its hashes depend on."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from support.nexus import relocate

from mem.core.javascript import js
from mem.core.rules import receipts

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 20).map(str), children, max_size=4)
    ),
    max_leaves=20,
)


@given(JSON)
def test_stringify_is_json_stringify(value: Any) -> None:
    """Same bytes as the fixtures' independently written JSON.stringify (digit keys first)."""
    assert js.stringify(value) == relocate.js_stringify(value)
    assert js.stringify_pretty(value) == relocate.js_stringify(value, indent=2)


@given(st.text(min_size=1, max_size=40), st.lists(st.text(max_size=8), min_size=1, max_size=3))
def test_built_receipts_read_back_intact(interpretation: str, scope: list[str]) -> None:
    receipt = receipts.build(
        "2026-10-18T09:30:00.000Z",
        {"file": ".agents/memory/lessons.md", "heading": "H", "textSha256": "0" * 64},
        scope,
        {"kind": "nexus", "runId": "one", "taskId": "task", "attemptId": "a"},
        interpretation,
        [],
        [],
    )
    assert receipts.parse_receipts(js.stringify(receipt) + "\n") == [receipt]


def test_scope_order_is_utf16() -> None:
    # U+1F600 sorts after U+FF5E by code point, but before it in UTF-16 code units (D83D...).
    assert receipts.scope_items(["\uff5e", "\U0001f600"]) == ["\U0001f600", "\uff5e"]


def test_overlap_is_by_path_segments() -> None:
    assert receipts.overlaps(["work"], ["work/sub"])
    assert receipts.overlaps(["work/sub"], ["work"])
    assert not receipts.overlaps(["work"], ["workshop"])
    assert not receipts.overlaps(["work"], "work")


def test_relationships_without_live_contradictions() -> None:
    def receipt(
        rid: str, heading: str, supersedes: list[str], contradicts: list[str]
    ) -> dict[str, Any]:
        return {
            "id": rid,
            "memory": {"file": "f", "heading": heading},
            "supersedes": supersedes,
            "contradicts": contradicts,
        }

    stored = [
        receipt("a", "A", [], []),
        receipt("b", "B", [], ["a"]),
        receipt("c", "A", [], []),
        receipt("d", "D", [], []),
    ]
    assert receipts.relationship_reasons(stored) == [
        "contradictory",
        "contradictory",
        "contradictory",
        None,
    ]
    stored.append(receipt("e", "E", ["b"], []))
    assert receipts.relationship_reasons(stored) == [None, "superseded", None, None, None]
