"""A tool call's arguments are checked against the tool's schema before anything runs."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mem.mcp import arguments
from mem.mcp.tools import BY_NAME, TOOLS

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@given(
    tool=st.sampled_from(TOOLS),
    extra=st.dictionaries(st.sampled_from(["query", "limit", "sources", "x"]), json_values),
)
def test_any_arguments_get_an_answer_never_a_crash(tool: Any, extra: dict[str, Any]) -> None:
    found = arguments.problem(tool.input_schema(), extra)
    assert found is None or (isinstance(found, str) and found)


def test_what_fits_passes_and_what_does_not_is_named() -> None:
    schema = BY_NAME["recall"].input_schema()
    assert arguments.problem(schema, {"query": "x", "limit": 3, "explain": True}) is None
    assert arguments.problem(schema, {"query": "x", "limit": 3.0}) is None  # JSON's 3.0 is 3
    assert arguments.problem(schema, {"query": "x", "limit": 3.5}) == (
        "limit must be an integer, not 3.5"
    )
    assert arguments.problem(schema, {"query": "x", "limit": True}) == (
        "limit must be an integer, not true"
    )
    write = BY_NAME["write"].input_schema()
    assert arguments.problem(write, {"agent": "a", "eval": 0.5, "accept": "yes"}) is None
    assert arguments.problem(write, {"agent": "a", "ci": []}) == (
        "ci must be a number or a string, not []"
    )
