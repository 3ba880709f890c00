"""A settings file's own layout, found and written back byte for byte."""

from __future__ import annotations

import json

import pytest

from mem.core.javascript import json_style

VALUE = {"model": "opus", "env": {"FOO": "1", "NAME": "Zoë"}, "hooks": {}, "list": [1, []]}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(VALUE, separators=(",", ":"), ensure_ascii=False),
        json.dumps(VALUE, ensure_ascii=False) + "\n",
        json.dumps(VALUE, indent=2, ensure_ascii=False) + "\n",
        json.dumps(VALUE, indent=2, ensure_ascii=False),
        json.dumps(VALUE, indent=4, ensure_ascii=False) + "\n\n",
        json.dumps(VALUE, indent="\t", ensure_ascii=False) + "\n",
        json.dumps(VALUE, indent=2) + "\n",  # \u escapes
        json.dumps(VALUE, indent=2, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    ],
    ids=["compact", "one-line", "2", "2-no-newline", "4", "tab", "escaped", "crlf"],
)
def test_a_file_written_by_a_json_writer_is_written_back_byte_for_byte(text: str) -> None:
    value = json.loads(text)
    style = json_style.detect(text, value)
    assert json_style.render(value, style) == text
    grown = {**value, "hooks": {"SessionStart": [{"hooks": [{"command": "mem hook"}]}]}}
    assert json.loads(json_style.render(grown, style)) == grown


def test_a_hand_laid_out_file_keeps_its_indentation() -> None:
    text = '{\n    "a": [1, 2],\n    "b": {}\n}\n'
    style = json_style.detect(text, json.loads(text))
    assert style.indent == "    " and style.ending == "\n"
    assert json_style.render({"a": 1}, style) == '{\n    "a": 1\n}\n'
