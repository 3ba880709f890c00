"""JavaScript number, JSON and date semantics, checked against V8 itself where node is installed."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.core.javascript import js

finite = st.floats(allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1216.0, "1216"),
        (0.00009688727123829339, "0.00009688727123829339"),
        (9.5367431640625e-7, "9.5367431640625e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (123e-20, "1.23e-18"),
        (-0.0, "0"),
        (0.7499999999999999, "0.7499999999999999"),
        (2**53 + 2, "9007199254740994"),
    ],
)
def test_numbers_print_as_ecmascript(value: float, text: str) -> None:
    assert js.number_to_string(value) == text


@given(finite)
def test_number_text_round_trips(value: float) -> None:
    assert float(js.number_to_string(value)) == value


@given(st.floats(min_value=0, max_value=1e20), st.integers(min_value=0, max_value=6))
def test_to_fixed_rounds_exact_binary_ties_up(value: float, places: int) -> None:
    expected = Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    assert js.to_fixed(value, places) == f"{expected:f}"


def test_to_fixed_known_ties() -> None:
    assert js.to_fixed(0.0625, 3) == "0.063"
    assert js.to_fixed(1184.25, 1) == "1184.3"
    assert js.to_fixed(2.0, 2) == "2.00"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0x10", 16.0),
        ("", 0.0),
        ("  ", 0.0),
        (" 1e-3 ", 0.001),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        (".5", 0.5),
        ("5.", 5.0),
        ("0b101", 5.0),
        ("0o17", 15.0),
    ],
)
def test_number_conversion(text: str, value: float) -> None:
    assert js.to_number(text) == value


@pytest.mark.parametrize("text", ["abc", "1_0", "inf", "nan", "-0x10", "0x", "1e", "PASS"])
def test_number_conversion_gives_nan(text: str) -> None:
    assert math.isnan(js.to_number(text))


@pytest.mark.parametrize(
    ("text", "iso", "local"),
    [
        ("2026-10-18T09:30:00.000Z", "2026-10-18T09:30:00.000Z", False),
        ("2026-10-10", "2026-10-10T00:00:00.000Z", False),
        ("2026-10-18T11:30:00+02:00", "2026-10-18T09:30:00.000Z", False),
        ("2026-10-10T10:00", "2026-10-10T10:00:00.000Z", True),
        ("+002026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", False),
    ],
)
def test_dates(text: str, iso: str, local: bool) -> None:
    parsed = js.parse_date(text)
    assert parsed is not None
    assert js.iso_from_ms(parsed.ms) == iso
    assert parsed.local is local


@pytest.mark.parametrize("text", ["not-a-date", "2026-02-30", "2026-13-01", "2026-10-10T25:00", ""])
def test_invalid_dates(text: str) -> None:
    assert js.parse_date(text) is None


def test_json_matches_javascript_layout() -> None:
    value = {"a": [1, 2.0, {"b": None}], "é": "ü\n\u2028", "e": [], "o": {}, "n": math.nan}
    assert js.stringify(value) == '{"a":[1,2,{"b":null}],"é":"ü\\n\u2028","e":[],"o":{},"n":null}'
    assert (
        js.stringify_pretty({"a": [], "b": {"c": 1}})
        == '{\n  "a": [],\n  "b": {\n    "c": 1\n  }\n}'
    )


def test_json_parse_refuses_what_javascript_refuses() -> None:
    for text in ("NaN", "[Infinity]", "{'a': 1}", "{torn"):
        with pytest.raises(ValueError):
            js.parse_json(text)
    assert js.parse_json("9007199254740993") == 9007199254740992.0


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@settings(max_examples=1, deadline=None)
@given(
    st.lists(finite, min_size=300, max_size=300),
    st.lists(st.text(max_size=8), min_size=50, max_size=50),
)
def test_agrees_with_v8(numbers: list[float], strings: list[str]) -> None:
    assert NODE is not None
    script = (
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify({numbers: input.numbers.map(String),"
        " fixed: input.numbers.map(x => Math.abs(x) < 1e21 ? x.toFixed(3) : null),"
        " numeric: input.strings.map(s => String(Number(s)))}));"
    )
    payload = json.dumps({"numbers": numbers, "strings": strings})
    done = subprocess.run(
        [NODE, "-e", script], input=payload, capture_output=True, text=True, check=True
    )
    v8 = json.loads(done.stdout)
    assert [js.number_to_string(x) for x in numbers] == v8["numbers"]
    assert [js.to_fixed(x, 3) if abs(x) < 1e21 else None for x in numbers] == v8["fixed"]
    assert [js.number_to_string(js.to_number(s)) for s in strings] == v8["numeric"]
