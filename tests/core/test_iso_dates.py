"""A date-time in toISOString's form is read without `re`, exactly as the full grammar reads it.

Every recall parses "now" (`MEM_NOW`, or the clock's own toISOString text), and importing
`re` for it would cost the recall more than its query; every other text takes the grammar.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from mem.core.javascript import js

SHAPES = ("2026-06-01T12:00:00.000Z", "2026-06-01T12:00:00Z")
# What may stand at any place: digits (ASCII and not), every separator the grammar knows,
# letters in both cases, blanks.
CHARACTERS = st.sampled_from(list("0123456789٣+-:.,TtZz xX\t\u3000"))


@st.composite
def near_iso_strings(draw: st.DrawFn) -> str:
    """A toISOString-shaped text with a few characters changed, added or removed."""
    text = list(draw(st.sampled_from(SHAPES)))
    for _ in range(draw(st.integers(0, 3))):
        place = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(("replace", "insert", "delete")))
        if action == "insert" or place == len(text):
            text.insert(place, draw(CHARACTERS))
        elif action == "replace":
            text[place] = draw(CHARACTERS)
        else:
            del text[place]
    return "".join(text)


@given(near_iso_strings())
@example("2026-06-01T12:00:00.000Z")
@example("2026-06-01t12:00:00,123z")
@example("2026-06-01 12:00:00Z")
@example("2026-02-30T12:00:00.000Z")
@example("2026-06-01T24:00:00.000Z")
@example("2026-06-01T12:00:00.0000Z")
@example("2026-06-01T12:00:00.00Z")
@example("+02026-06-01T12:00:00.000Z")
@example("٢٠٢٦-06-01T12:00:00.000Z")
def test_iso_string_form_reads_as_the_grammar_does(text: str) -> None:
    fields = js._iso_string_fields(text)
    match = js.compiled(js._ISO_DATE).fullmatch(text)
    if fields is not None:
        assert match is not None
        assert fields == match.groups()


@given(st.integers(-62_135_596_800_000, 253_402_300_799_999))
def test_every_iso_string_is_read_without_the_grammar(ms: int) -> None:
    text = js.iso_from_ms(ms)
    assert js._iso_string_fields(text) is not None
    parsed = js.parse_date(text)
    assert parsed is not None
    assert (parsed.ms, parsed.local) == (ms, False)
