"""JSON output writes every string as JSON.stringify does, lone surrogates escaped."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from mem.core.javascript import js

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _reference(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


# Hypothesis leaves surrogates out of its characters unless asked.
CHARACTERS = st.one_of(st.characters(), st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"]))


@given(st.text(CHARACTERS))
def test_strings_are_written_as_json_dumps_then_surrogates_escaped(value: str) -> None:
    assert js.stringify(value) == _reference(value)
    assert js.stringify({value: [value]}) == f"{{{_reference(value)}:[{_reference(value)}]}}"


def test_examples() -> None:
    assert js.stringify('a"\\\n\x1f\u2028é\ud800😀') == '"a\\"\\\\\\n\\u001f\u2028é\\ud800😀"'
