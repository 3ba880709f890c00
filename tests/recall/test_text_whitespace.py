"""Recall's text lines collapse whitespace exactly as the reference's `/\\s+/g` and trim do."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mem.core.javascript import js
from mem.render import action_views

# The reference's expression; Python's own whitespace (\x1c-\x1f, \x85) is not JS's.
REFERENCE = re.compile(f"[{re.escape(js.JS_WHITESPACE)}]+")
CHARACTERS = st.sampled_from([*js.JS_WHITESPACE, "\x1c", "\x1f", "\x85", "\u180e", "a", "é", "😀"])
# Lone surrogates (a journal can hold "\\ud800") and astral characters take the codec's cut.
# Each example draws from a few of them, so that most examples lack some.
CUT = [" ", "\t", "\n", "a", "—", "\ud7ff", "\ud800", "\udfff", "\ue000", "😀"]
LONG_LINES = st.sets(st.sampled_from(CUT), min_size=1, max_size=4).flatmap(
    lambda chosen: st.text(st.sampled_from(sorted(chosen)), min_size=200, max_size=300)
)


@given(st.text(CHARACTERS, max_size=300))
def test_whitespace_runs_become_one_space_and_the_ends_are_trimmed(text: str) -> None:
    expected = js.trim(REFERENCE.sub(" ", text))
    if len(expected.encode("utf-16-le", "surrogatepass")) <= action_views.TRUNCATE_AT * 2:
        assert action_views.truncate(text) == expected
    else:
        # Cut after collapsing: the same cut as of the collapsed text itself.
        assert action_views.truncate(text) == action_views.truncate(expected)
        assert action_views.truncate(text).endswith("…")


def test_only_javascript_whitespace_separates() -> None:
    assert action_views.truncate(" a\u3000\ufeff b\x85c\x1cd\n") == "a b\x85c\x1cd"


@given(LONG_LINES)
def test_long_lines_are_cut_after_119_utf16_code_units(text: str) -> None:
    flat = js.trim(REFERENCE.sub(" ", text))
    units = flat.encode("utf-16-le", "surrogatepass")
    cut = units[: (action_views.TRUNCATE_AT - 1) * 2].decode("utf-16-le", "replace") + "…"
    assert action_views.truncate(text) == (
        flat if len(units) <= action_views.TRUNCATE_AT * 2 else cut
    )


def test_a_character_of_two_code_units_at_the_limit_is_cut_off() -> None:
    assert action_views.truncate("a" * 119 + "😀") == "a" * 119 + "…"
    assert action_views.truncate("a" * 118 + "😀") == "a" * 118 + "😀"
    assert action_views.truncate("a" * 119 + "\ud800") == "a" * 119 + "\ud800"
    assert action_views.truncate("a" * 120 + "b") == "a" * 119 + "…"
