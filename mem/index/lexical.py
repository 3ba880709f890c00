"""The lexical ranking's scorer for the pruned top-k (mem.index.topk): the contract's score.

    score = coverage × Σ over the query terms a record holds of (1 + ln tf) / √n

times a recency decay for dated events (mem.core.ranking.score). A band (mem.index.postings) bounds
its records' 1/√n by its shortest n and their decay by its bucket's newest instant; coverage
is the share of query terms a record holds. A record whose terms are not all known is
scored from its text, which costs about POSTINGS_PER_TEXT postings (topk). Scores are first
libm's (within an ulp or two of V8's), then V8's for the records near the last place.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable

from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import parse
from mem.index import postings, topk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.core.ranking.score import Ranked
    from mem.index.queries import RecallFiles

_FRESHER = math.log(0.5) / (score.HALF_LIFE_DAYS * score.DAY_MS)
_ROWS = "SELECT id, file_id, ordinal, kind, tokens, ts_ms, ts_local{} FROM records"
_IDS = " WHERE id IN (SELECT value FROM json_each(?))"


class _Weights(dict[int, float]):
    """1 + ln tf by tf, computed on first use: a look-up costs less than a call."""

    def __missing__(self, tf: int) -> float:
        weight = self[tf] = 1.0 + math.log(tf)
        return weight


_WEIGHT = _Weights()


def term_ids(conn: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(terms), 500):
        chunk = terms[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(f"SELECT term, id FROM terms WHERE term IN ({marks})", chunk))
    return found


def search(
    conn: sqlite3.Connection,
    terms: list[str],
    files: RecallFiles,
    now_ms: float | None,
    limit: int | None,
    local_offset_ms: Callable[[float], float],
    floor: float = 0.0,
) -> list[Ranked]:
    """The records of `files` that can be among the best `limit` (all: None).

    Exact scores, unordered: the caller merges indexes and orders with score.order. In a
    portfolio index, each record's root (from `files`) orders equal scores. With a `floor`
    (and a limit), a record whose score cannot reach it may be left out.
    """
    if not terms or not files:
        return []
    return topk.search(conn, _Lexical(terms, files, now_ms, local_offset_ms), limit, floor)


class _Lexical:
    """The lexical score of one query's records (topk.Scorer)."""

    table = postings.LEXICAL.postings
    rows = _ROWS.format("") + _IDS
    texts = _ROWS.format(", text") + _IDS
    decode = staticmethod(postings.decode)
    fill_from_texts = True
    by_length = False  # a band's lengths are within 6 %: its shortest bounds them well

    @property
    def postings_per_text(self) -> int:
        return topk.POSTINGS_PER_TEXT  # read when the loop asks: a test may change it

    def __init__(
        self,
        terms: list[str],
        files: RecallFiles,
        now_ms: float | None,
        local_offset_ms: Callable[[float], float],
    ) -> None:
        self.terms = terms
        self.width = len(terms)
        self.coverage = [matched / self.width for matched in range(self.width + 1)]
        self.spaced_terms = [b" " + term.encode("latin-1") + b" " for term in terms]
        self.files = files
        self.now_ms = now_ms
        self.local_offset_ms = local_offset_ms

    def term_ids(self, conn: sqlite3.Connection) -> list[int | None]:
        found = term_ids(conn, self.terms)
        return [found.get(term) for term in self.terms]

    def length(self, row: tuple[Any, ...]) -> int:
        return int(row[4])  # never asked: by_length is False

    def record_weight(self, place: int, tf: int, length: int) -> float:
        return _WEIGHT[tf]  # never asked: by_length is False

    def factor(self, band: int) -> float:
        factor = 1.0 / math.sqrt(postings.shortest_length(band))
        end = postings.bucket_end_ms(band)
        if end is not None and self.now_ms is not None and self.now_ms > end:
            factor *= math.exp((self.now_ms - end) * _FRESHER)
        return factor

    def weights(self, place: int, band: int) -> _Weights:
        return _WEIGHT

    def frequencies(self, row: tuple[Any, ...]) -> tuple[int, ...]:
        # Each token between two spaces, once the spaces are doubled: counting " term "
        # counts the tokens equal to the term, no other token is made.
        spaced = b" " + parse.token_bytes(row[7]).replace(b" ", b"  ") + b" "
        return tuple(map(spaced.count, self.spaced_terms))

    def score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> float | None:
        """libm's score: within an ulp or two of V8's."""
        _, file_id, _, kind, tokens, ts_ms, ts_local = row[:7]
        if self.files.get(file_id) is None:
            return None
        hits = 0.0
        matched = 0
        for frequency in frequencies:
            if frequency:
                matched += 1
                hits += _WEIGHT[frequency]
        value = hits * (matched / len(frequencies)) / math.sqrt(tokens)
        if kind == "event" and self.now_ms is not None:
            event_ms = js.instant_ms(ts_ms, ts_local or 0, self.local_offset_ms)
            if event_ms is not None and self.now_ms > event_ms:
                value *= math.exp((self.now_ms - event_ms) * _FRESHER)
        return value

    def exact(
        self, approximate: float, row: tuple[Any, ...], frequencies: tuple[int, ...]
    ) -> Ranked:
        """V8's score."""
        record_id, file_id, ordinal, kind, tokens, ts_ms, ts_local = row[:7]
        value = score.lexical(frequencies, tokens)
        if kind == "event":
            event_ms = js.instant_ms(ts_ms, ts_local or 0, self.local_offset_ms)
            value = score.decayed(value, event_ms, self.now_ms)
        rank, project = self.files.get(file_id) or (0, "")
        return score.Ranked(value, rank, ordinal, record_id, project)
