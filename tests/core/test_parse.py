"""The fast tokenizer and section splitter give exactly what the line-by-line originals gave."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support import legacy_parse

from mem.core.text import parse

# Characters that matter to the rules: token characters of every kind, separators the
# tokenizer or the heading regex treat specially, and characters whose case maps oddly.
ALPHABET = (
    "ab Z09_-#\n\r\t \u00a0\u2028\u2029\ufeff\u1680\u3000"
    "àÀçÇéÉßñÑúİıſKΣσς—.:{}\"'`\x00\x85\x1c😀\ud800"
)
texts = st.text(alphabet=st.sampled_from(ALPHABET), max_size=80) | st.text(max_size=40)
lines = st.lists(
    st.tuples(
        st.sampled_from(["### ", "###\t", "###", "#### ", "## ", "", "###\u00a0", "###\r"]), texts
    ),
    max_size=8,
).map(lambda parts: "\n".join(prefix + text for prefix, text in parts))


@settings(max_examples=400)
@given(texts)
def test_tokenize_matches_the_regex_tokenizer(text: str) -> None:
    assert parse.tokenize(text) == legacy_parse.tokenize(text)


@settings(max_examples=300)
@given(st.one_of(lines, lines.map(lambda text: text + "\n"), texts))
def test_split_sections_matches_the_line_splitter(content: str) -> None:
    found = [(note.ordinal, note.heading, note.text) for note in parse.split_sections(content)]
    assert found == [tuple(note) for note in legacy_parse.split_sections(content)]


@settings(max_examples=300)
@given(st.one_of(lines, lines.map(lambda text: text + "\n")))
def test_section_spans_tokenise_as_the_scored_text(content: str) -> None:
    for _, _, text, spans in parse.sections(content):
        heading_start, heading_end, body_start, body_end, _ = spans
        pieces = content[heading_start:heading_end] + "\n" + content[body_start:body_end]
        assert parse.tokenize(pieces) == legacy_parse.tokenize(text)


@settings(max_examples=300)
@given(texts)
def test_term_counts_count_the_tokens(text: str) -> None:
    counts, length = parse.term_counts(parse.token_bytes(text))
    tokens = legacy_parse.tokenize(text)
    assert length == len(tokens)
    assert {term.decode("latin-1"): count for term, count in counts.items()} == {
        token: tokens.count(token) for token in tokens
    }


@settings(max_examples=300)
@given(st.one_of(lines, lines.map(lambda text: text + "\n")))
def test_a_section_parsed_from_its_source_alone_is_the_same_record(content: str) -> None:
    from mem.core.javascript import js

    bounds = list(parse.section_bounds(content))
    whole = parse.split_sections(content)
    assert len(bounds) == len(whole)
    for (start, end), note in zip(bounds, whole, strict=True):
        alone = parse.split_sections(content[start:end])
        assert len(alone) == 1
        assert alone[0].heading == note.heading
        assert js.trim(alone[0].text) == js.trim(note.text)
        assert parse.tokenize(alone[0].text) == parse.tokenize(note.text)
