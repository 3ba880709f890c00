"""The bm25 ranking's tokenizer: words of every script, identifiers whole and in parts. Pure.

The contract's tokenizer (mem.core.text.parse, bmad-mem.md section 7) keeps a-z, 0-9 and a few
French letters: `uuid-v7` is one token, `déconnexion` two, `決済` none. This one is for the
bm25 ranking only and is deterministic (same text, same terms):

- A *chunk* is a maximal run of letters, digits and combining marks of any script, and of
  the joiners `-`, `_`, `.`, `/` (str.isalnum and the Unicode mark categories decide).
- A chunk's joiners at either end are dropped; the rest is split at the joiners, at case
  changes (`HttpServer` -> http, server; `XMLParser` -> xml, parser) and where a CJK script
  run starts or ends. Each part is case-folded and its accents folded (NFKD without the
  combining diacritical marks U+0300-U+036F, then NFC) and stemmed: Snowball's English
  stemmer for Latin letters, its Russian one for Cyrillic (PyStemmer, C). Parts of one
  character are dropped, but a lone CJK character, and so are English function words
  (mem.core.text.parse.FUNCTION_WORDS, before stemming: `the`, `was`, `not`): they say nothing
  of a note, and would be a fifth of a build's postings.
- A CJK run (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar: scripts written without spaces)
  gives its overlapping bigrams instead (`冪等キー` -> 冪等, 等キ, キー).
- A chunk of several parts also gives the whole identifier, folded but not stemmed
  (`server_idle_timeout`, `httpserver`), so an exact identifier outweighs its parts.

A chunk's terms are computed once per process and kept (a build meets the same words over
and over). No `re`: a warm bm25 recall tokenizes its query on the start-up path.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

from mem.core.text.parse import FUNCTION_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

JOINERS = "-_./"
# A note's heading counts this many times its body's words (BM25F's field weight).
HEADING_WEIGHT = 3
# Terms kept per chunk before the cache is emptied: bounds a build's memory.
CACHE_LIMIT = 500_000

_SPACE = 32
_JOINERS_TO_SPACE = {ord(joiner): " " for joiner in JOINERS}
# Scripts written without spaces between words: their runs become bigrams.
_CJK_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3040, 0x30FF),  # Hiragana, Katakana (ー included)
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


def is_cjk(character: str) -> bool:
    code = ord(character)
    if code < 0x0E00:
        return False
    return any(start <= code <= end for start, end in _CJK_RANGES)


class _ChunkCharacters(dict[int, int]):
    """str.translate's table: a chunk's characters stay, every other becomes a space.

    Filled on first sight of each code point (ASCII is filled up front): a mapping keyed by
    every code point would cost far more to build than the few any text uses.
    """

    def __missing__(self, code: int) -> int:
        character = chr(code)
        keep = character.isalnum() or character in JOINERS
        if not keep and code > 0x7F:
            import unicodedata  # non-ASCII text only

            keep = unicodedata.category(character).startswith("M")
        value = self[code] = code if keep else _SPACE
        return value


_CHUNK_CHARACTERS = _ChunkCharacters()
for _code in range(128):
    _CHUNK_CHARACTERS[_code]  # noqa: B018 - fills the ASCII part of the table


def chunks(text: str) -> list[str]:
    """The text's chunks, as written (case and accents kept)."""
    return text.translate(_CHUNK_CHARACTERS).split()


def _class(character: str) -> int:
    """0: other, 1: lower case, 2: upper case, 3: a CJK script."""
    if character.isupper():
        return 2
    if character.islower():
        return 1
    return 3 if is_cjk(character) else 0


def _pieces(word: str) -> list[str]:
    """A word (no joiners) split at case changes and at CJK runs' ends."""
    if word.isascii() and (word.islower() or word.isdigit()):
        return [word]
    pieces = []
    start = 0
    classes = [_class(character) for character in word]
    for position in range(1, len(word)):
        before, here = classes[position - 1], classes[position]
        if (before == 3) != (here == 3):
            cut = True
        elif before == 1 and here == 2:
            cut = True  # camelCase
        elif before == 2 and here == 2:
            # XMLParser: the last capital of a run starts the next word
            cut = position + 1 < len(word) and classes[position + 1] == 1
        else:
            cut = False
        if cut:
            pieces.append(word[start:position])
            start = position
    pieces.append(word[start:])
    return pieces


def fold(text: str) -> str:
    """Case-folded, accents folded: NFKD without U+0300-U+036F, then NFC."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    import unicodedata  # non-ASCII text only

    decomposed = unicodedata.normalize("NFKD", folded)
    kept = "".join(character for character in decomposed if not 0x300 <= ord(character) <= 0x36F)
    return unicodedata.normalize("NFC", kept)


_STEMMERS: dict[str, Any] = {}  # language -> Snowball's stemmer (PyStemmer: one C extension)


def _stem(language: str, word: str) -> str:
    """The word's Snowball stem; each language's stemmer is made on first use."""
    stemmer = _STEMMERS.get(language)
    if stemmer is None:
        import Stemmer

        stemmer = _STEMMERS[language] = Stemmer.Stemmer(language)
    stemmed: str = stemmer.stemWord(word)
    return stemmed


def _is_cyrillic(word: str) -> bool:
    return any(0x0400 <= ord(character) <= 0x052F for character in word)


def _word_terms(piece: str) -> list[str]:
    """The terms of one piece: its stem, or a CJK run's bigrams."""
    if is_cjk(piece[0]):
        if len(piece) == 1:
            return [fold(piece)]
        return [fold(piece[position : position + 2]) for position in range(len(piece) - 1)]
    if not piece.isascii() and _is_cyrillic(piece):
        term = fold(_stem("russian", piece.casefold()))
    else:
        term = fold(piece)
        if term in FUNCTION_WORDS:
            return []
        if term.isascii() and not term.isdigit():
            term = _stem("english", term)
    return [term] if len(term) > 1 else []


def chunk_terms(chunk: str) -> tuple[str, ...]:
    """The terms of one chunk, in order (see the module's docstring)."""
    if chunk.isascii() and chunk.isalnum():
        # Most chunks: one ASCII word, no joiners, one piece (all lower case, or a capital
        # then lower case, or digits): its folded, stemmed self. general_terms agrees.
        if chunk.islower() or chunk.isdigit() or (chunk[0].isupper() and chunk[1:].islower()):
            term = chunk.lower()
            if term in FUNCTION_WORDS:
                return ()
            if not term.isdigit():
                term = _stem("english", term)
            return (term,) if len(term) > 1 else ()
    return general_terms(chunk)


def general_terms(chunk: str) -> tuple[str, ...]:
    """chunk_terms of any chunk, without the ASCII word's shortcut."""
    core = chunk.strip(JOINERS)
    if not core:
        return ()
    pieces = [
        piece for word in core.translate(_JOINERS_TO_SPACE).split() for piece in _pieces(word)
    ]
    terms = [term for piece in pieces for term in _word_terms(piece)]
    if len(pieces) > 1:
        whole = fold(core)
        if whole not in terms:
            terms.append(whole)
    return tuple(terms)


class _ChunkTerms(dict[str, tuple[str, ...]]):
    """chunk -> its terms, computed on first sight."""

    def __missing__(self, chunk: str) -> tuple[str, ...]:
        if len(self) >= CACHE_LIMIT:
            self.clear()
        terms = self[chunk] = chunk_terms(chunk)
        return terms


_TERMS = _ChunkTerms()


def terms(text: str) -> list[str]:
    """Every term of a text, repeats included, in order."""
    found: list[str] = []
    for terms_of in map(_TERMS.__getitem__, chunks(text)):
        found += terms_of
    return found


def query_terms(query: str) -> list[str]:
    """A query's distinct terms, in the order they first appear."""
    return list(dict.fromkeys(terms(query)))


class _RunTerm(dict[bytes, "str | tuple[str, ...]"]):
    """A run of UTF-8 bytes between ASCII separators -> its term, "" for none, or a tuple of
    its terms when it has several (rare: identifiers, dates): counts counts the values.

    No chunk spans an ASCII separator, so a run's chunks are those of its text alone: an
    ASCII run is one chunk, any other is chunked again as text (a non-ASCII separator, such
    as an em dash, stays inside a run).
    """

    def __missing__(self, run: bytes) -> str | tuple[str, ...]:
        if len(self) >= CACHE_LIMIT:
            self.clear()
        text = run.decode("utf-8", "surrogatepass")
        if text.isascii():
            found = _TERMS[text]
        else:
            found = tuple(chain.from_iterable(map(_TERMS.__getitem__, chunks(text))))
        value = self[run] = found[0] if len(found) == 1 else found if found else ""
        if type(value) is tuple:
            _SEVERAL.add(value)
        return value


_RUN_TERM = _RunTerm()
# The values of _RUN_TERM that are tuples (several terms), to find them among the counted.
_SEVERAL: set[tuple[str, ...]] = set()
# bytes.translate's table: ASCII characters that are no chunk's become spaces; every byte of
# a non-ASCII character (0x80 and above) stays, to be chunked as text with its run.
_RUN_BYTES = bytes(
    code if code > 0x7F or _CHUNK_CHARACTERS[code] != _SPACE else _SPACE for code in range(256)
)


def counts(text: str, heading: str | None = None) -> dict[str, int]:
    """term -> weighted frequency: a note's heading words count HEADING_WEIGHT times.

    `text` holds the heading too (a note's trimmed heading and body): the heading's terms
    are counted again HEADING_WEIGHT - 1 times. Equal to counting terms(text) and terms of
    the heading, but every term is counted in C (a build counts every record's): Python
    runs only for a run of bytes never seen before and a run of several terms.
    """
    if len(_SEVERAL) >= CACHE_LIMIT:
        _SEVERAL.clear()  # between counts only: a count finds every tuple it counted
    runs = text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split()
    term_of = _RUN_TERM.__getitem__
    found: Counter[Any] = Counter(map(term_of, runs))  # counted in C
    if heading:
        head_runs = heading.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split()
        found.update(map(term_of, head_runs * (HEADING_WEIGHT - 1)))
    found.pop("", None)
    several = _SEVERAL.intersection(found) if _SEVERAL else ()
    for terms_of in several:
        count = found.pop(terms_of)
        for term in terms_of:
            found[term] = found.get(term, 0) + count
    return found


def length(counted: Iterable[int]) -> int:
    """A record's bm25 length: the sum of its weighted frequencies."""
    return sum(counted)
