"""mem.core.text.tokens.counts, which a build runs on every record, counts what its docstring says.

counts takes shortcuts (UTF-8 runs between ASCII separators, cached; an ASCII word's terms
without the general splitting; an ASCII run's joiners at its ends dropped before its terms
are looked up): on any text, of any script and with lone surrogates, it
equals counting general_terms over chunks, a note's heading words HEADING_WEIGHT times.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support.plain import plain_bm25_counts

from mem.core.text import tokens

# Every code point, surrogates included (a journal's JSON can escape one).
character = st.characters(blacklist_categories=())
pieces = st.sampled_from(
    ["Cache", "caches", "HttpServer", "uuid-v7", "a.b/c_d", "2026", "ABC", "X", "—", " ", "\n",
     "déconnexion", "冪等キー", "миграции", "e\u0301", "\u00a0", "\x1c", "٣",
     # joiners at a chunk's ends: its core's terms (a sentence's last word, a flag, a path)
     "fixes.", "caches.", "-A/-B/", "__init__", ".", "..."]
)  # fmt: skip
text = st.lists(st.one_of(character, pieces)).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=text, heading=st.one_of(st.none(), text))
def test_counts_equal_the_plain_count(text: str, heading: str | None) -> None:
    assert tokens.counts(text, heading) == plain_bm25_counts(text, heading)


@settings(max_examples=300, deadline=None)
@given(heading=text, body=text)
def test_a_notes_counts_equal_the_plain_count(heading: str, body: str) -> None:
    # A note's text as the index holds it: its heading, a newline, its body.
    note = f"{heading}\n{body}"
    assert tokens.counts(note, heading) == plain_bm25_counts(note, heading)


@settings(max_examples=300, deadline=None)
@given(word=st.from_regex(r"[A-Za-z0-9]{1,12}", fullmatch=True))
def test_an_ascii_word_has_the_general_terms(word: str) -> None:
    assert tokens.chunk_terms(word) == tokens.general_terms(word)
