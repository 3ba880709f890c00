"""js.parse_json reads with a scanner of its own, and answers exactly as json's decoder.

A recall that shows a journal event parses its line; importing json for it (its decoder
imports re) would cost the recall more than its query. Whatever the text, the value, or
the error raised, is the one JSONDecoder.decode gives with the same settings.
"""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import example, given
from hypothesis import strategies as st

from mem.core.javascript import js

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
BLANKS = st.text(alphabet=" \t\n\r\u00a0\u2028", max_size=3)
CHARACTERS = st.sampled_from(list(' {}[]",:0-1.5eE\\tnul\x00\u00e9\ud800'))


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """A JSON text between blanks, sometimes with a few characters changed."""
    text = list(draw(BLANKS) + json.dumps(draw(values), ensure_ascii=draw(st.booleans())))
    text += list(draw(BLANKS))
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        place = draw(st.integers(0, len(text)))
        if place == len(text) or draw(st.booleans()):
            text.insert(place, draw(CHARACTERS))
        else:
            del text[place]
    return "".join(text)


def _outcome(read: object, text: str) -> tuple[str, object]:
    try:
        return "value", repr(read(text))  # type: ignore[operator]
    except (ValueError, RecursionError) as error:
        return type(error).__name__, str(error)


@given(json_texts())
@example('{"a": 1} ')
@example(' {"a": 1}x')
@example("NaN")
@example("[Infinity]")
@example("9007199254740993")
@example('"\x00"')
@example("")
@example("   ")
@example("1 2")
@example('["\\ud83d\\ude00", "\\ud83d\\u0041", "\\udc00\\ud83d", "\\/", "\\u00E9"]')
@example('"\\ud83d\\u00zz"')
@example('"\\u12"')
@example("[-0, 1E+2, 1e-2, 0.5, -1.25e3]")
@example("-")
@example("01")
@example("1.")
@example("1e")
@example('{"a": 1, "a": 2, "b": {"a": []}}')
@example('"\x7f\u2028"')
def test_json_text_reads_as_the_decoder_reads_it(text: str) -> None:
    assert _outcome(js.parse_json, text) == _outcome(js._json_decoder().decode, text)
    assert _outcome(js.scan_json, text) == _outcome(js._json_decoder().decode, text)


def test_a_malformed_line_is_a_value_error_before_json_is_imported() -> None:
    # The test process has imported json; a recall has not, and the scanner behaves
    # differently then (Python 3.11 raises SystemError).
    script = (
        "import sys\n"
        "from mem.core.javascript import js\n"
        "assert 'json.decoder' not in sys.modules\n"
        # A bad escape first: the decoder's fallback imports json.decoder.
        "for text in ('\"\\\\x\"', '{\"a\": ', '[1,]', 'nope', '{\"a\": 1} x'):\n"
        "    try:\n"
        "        js.parse_json(text)\n"
        "    except ValueError as error:\n"
        "        print(type(error).__name__)\n"
        'print(js.parse_json(\' {"a": [1, 2.5, "\\\\u00e9", null]} \'))\n'
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stderr == ""
    assert done.stdout.split("\n") == ["JSONDecodeError"] * 5 + ["{'a': [1, 2.5, 'é', None]}", ""]
