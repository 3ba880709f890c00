"""The bm25 ranking: Okapi BM25 over mem.core.text.tokens' terms, heading words weighted (BM25F).

    score = Σ over query terms t of idf(t) × tf (k1 + 1) / (tf + k1 (1 - b + b × len / avglen))
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))

tf is a record's weighted frequency of t (a note's heading words count
tokens.HEADING_WEIGHT times), len its bm25_length, N the records of the index and avglen
their mean length. Events then lose half their score every 30 days, as in the lexical
ranking. The postings (bm25_postings) are grouped by length class and tf, each record
there with its length, so a term's groups give its df without reading any record.

A class's shortest length bounds the weight of every record in it: the top-k (search) is
mem.index.topk's loop, to which Scorer hands those bounds and the exact scores.
Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence

from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import tokens
from mem.index import postings, topk
from mem.index.queries import in_chunks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.core.ranking.score import Ranked
    from mem.index.queries import RecallFiles

K1 = 1.2
B = 0.75
PAIR_BYTES = 8  # a posting: (id, length), two 4-byte unsigned integers


class Stats:
    """What IDF and length normalisation need of the whole index."""

    __slots__ = ("records", "average")

    def __init__(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT records, length FROM bm25_stats").fetchone()
        if row is None:
            # A bug, not a cache to heal: the index was opened without bm25=True.
            raise RuntimeError("this index keeps no bm25 postings: open it with bm25=True")
        records, total = row
        self.records = int(records)
        self.average = total / records if records else 1.0


def idf(records: int, df: int) -> float:
    return math.log(1 + (records - df + 0.5) / (df + 0.5))


def weight(tf: int, length: int, average: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))


def term_groups(
    conn: sqlite3.Connection, terms: list[str], tables: postings.Tables = postings.BM25
) -> list[list[tuple[int, memoryview]]]:
    """Per query term, its groups (tf, pairs: id, length, id, ...); [] for a term no record
    holds. `tables`: whose postings (the notes', or the commits' of mem.index.history)."""
    found: list[list[tuple[int, memoryview]]] = []
    for term in terms:
        row = conn.execute(f"SELECT id FROM {tables.terms} WHERE term = ?", (term,)).fetchone()
        if row is None:
            found.append([])
            continue
        found.append(
            [
                (tf, postings.decode_pairs(blob))
                for tf, blob in conn.execute(
                    f"SELECT tf, records FROM {tables.postings} WHERE term = ?", (row[0],)
                )
            ]
        )
    return found


def frequencies(
    conn: sqlite3.Connection, terms: list[str], tables: postings.Tables = postings.BM25
) -> list[int]:
    """How many records hold each term (0: none)."""
    found = []
    for term in terms:
        row = conn.execute(
            f"SELECT sum(length(p.records)) FROM {tables.terms} AS t"
            f" JOIN {tables.postings} AS p ON p.term = t.id WHERE t.term = ?",
            (term,),
        ).fetchone()
        found.append((row[0] or 0) // PAIR_BYTES)
    return found


def weights(
    conn: sqlite3.Connection, frequencies: list[int], records: int | None = None
) -> tuple[list[float], float]:
    """The weight at an endless tf, idf × (k1 + 1), of terms held by these many records each
    (0 for a term no record holds); and that weight for a term one record holds, the rarest
    a term can be. `records`: how many there are (default: the notes')."""
    if records is None:
        records = Stats(conn).records
    found = [idf(records, df) * (K1 + 1) if df else 0.0 for df in frequencies]
    return found, idf(records, 1) * (K1 + 1)


def score_of(conn: sqlite3.Connection, terms: list[str], ref: str, text: str) -> float:
    """The bm25 score of a note (its heading `ref` and trimmed `text`) for these terms, as
    search computes it from the postings, without reading them: a lower bound the search
    can start from (floor) when the note's own place is what is asked."""
    stats = Stats(conn)
    counts = tokens.counts(text, ref)
    length = tokens.length(counts.values())
    return math.fsum(
        idf(stats.records, df) * weight(counts[term], length, stats.average)
        for term, df in zip(terms, frequencies(conn, terms), strict=True)
        if df and term in counts
    )


def document_frequencies(conn: sqlite3.Connection, terms: list[str] | None) -> dict[str, int]:
    """term -> how many records hold it, for these terms (None: every term); a term no
    record holds is left out."""
    # Each term's postings summed where they are read: grouped after a join instead, SQLite
    # sorts the rows with their blobs (a note's 190 terms: 40 ms at 200,000 notes, not 5).
    query = (
        "SELECT t.term, (SELECT sum(length(p.records)) FROM bm25_postings AS p"
        " WHERE p.term = t.id) FROM bm25_terms AS t"
    )
    if terms is None:
        rows = conn.execute(query)
        return {term: size // PAIR_BYTES for term, size in rows if size}
    found: dict[str, int] = {}
    for chunk, marks in in_chunks(terms):
        rows = conn.execute(query + f" WHERE t.term IN ({marks})", chunk)
        found.update((term, size // PAIR_BYTES) for term, size in rows if size)
    return found


def document_frequency(groups: list[tuple[int, memoryview]]) -> int:
    return sum(len(pairs) for _, pairs in groups) // 2


def search(
    conn: sqlite3.Connection,
    terms: list[str],
    files: RecallFiles,
    now_ms: float | None,
    limit: int | None,
    local_offset_ms: Callable[[float], float],
    floor: float = 0.0,
    emphasis: list[float] | None = None,
) -> list[score.Ranked]:
    """Every record of `files` that can be among the best `limit` (None: every record holding
    a query term), with its exact score: unordered, the caller orders with score.order.
    With a `floor`, a record whose score cannot reach it may be left out: a caller that
    keeps only the scores above a bar searches no further than that bar. With `emphasis`,
    each query term's idf is multiplied by its value (one per term; None: 1 each).

    Pruned by mem.index.topk: a group's bound is its term's idf times its weight at the
    group's tf and the shortest length of its class. Scores are the exhaustive scorer's, to
    the bit (same values, same fsum in query order).
    """
    if limit is None or limit < 1 or not terms or not files:
        return exhaustive(conn, terms, files, now_ms, local_offset_ms, emphasis)
    scorer = Scorer(conn, terms, files, now_ms, local_offset_ms, emphasis)
    return topk.search(conn, scorer, limit, floor)


# A record's row, and with `_TEXT` what its terms are counted from (tables.bm25_terms).
_NOTES = (
    "SELECT id, file_id, ordinal, kind, bm25_length, ts_ms, coalesce(ts_local, 0){} FROM records"
    " WHERE id IN (SELECT value FROM json_each(?))"
)
_TEXT = ", CASE kind WHEN 'note' THEN ref END, text"


class _Weights(dict[int, float]):
    """A term's weight by tf in one length class, at its shortest length (its bound there)."""

    __slots__ = ("idf", "length", "average")

    def __init__(self, idf: float, length: int, average: float) -> None:
        self.idf = idf
        self.length = length
        self.average = average

    def __missing__(self, tf: int) -> float:
        value = self[tf] = self.idf * weight(tf, self.length, self.average)
        return value


class Scorer:
    """bm25 of one query's records for the pruned top-k (topk.Scorer): the notes', or with
    `tables`, `stats` and `rows` another set's in bm25_postings' layout (mem.index.history's
    commits). A record's score is at most the sum, over its terms, of their weight at its
    class's shortest length: a band is a length class, coverage and decay never raise it.
    `rows` is a statement with one {} where the heading and text columns go."""

    fill_from_texts = True

    @property
    def postings_per_text(self) -> int:
        return topk.POSTINGS_PER_TEXT  # read when the loop asks: a test may change it

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        files: RecallFiles,
        now_ms: float | None,
        local_offset_ms: Callable[[float], float],
        emphasis: list[float] | None = None,
        tables: postings.Tables = postings.BM25,
        stats: Stats | None = None,
        rows: str = _NOTES,
        text: str = _TEXT,
    ) -> None:
        stats = Stats(conn) if stats is None else stats
        self.width = len(terms)
        self.coverage = [1.0] * (self.width + 1)
        self.table = tables.postings
        self.rows = rows.format("")
        self.texts = rows.format(text)
        self.terms = terms
        self.files = files
        self.now_ms = now_ms
        self.local_offset_ms = local_offset_ms
        self.average = stats.average
        self.ids: list[int | None] = []
        self.idfs: list[float] = []
        self.record_weights: dict[tuple[int, int, int], float] = {}
        for place, term in enumerate(terms):
            term_id, size = conn.execute(
                f"SELECT t.id, sum(length(p.records)) FROM {tables.terms} AS t"
                f" JOIN {tables.postings} AS p ON p.term = t.id WHERE t.term = ?",
                (term,),
            ).fetchone()
            df = (size or 0) // PAIR_BYTES
            term_idf = idf(stats.records, df) if df else 0.0
            if emphasis is not None:
                term_idf *= emphasis[place]
            self.ids.append(term_id if df else None)
            self.idfs.append(term_idf)

    def term_ids(self, conn: sqlite3.Connection) -> list[int | None]:
        return self.ids

    by_length = True

    def decode(self, blob: bytes) -> Sequence[int]:
        return postings.decode_pairs(blob)[::2]

    def length(self, row: tuple[Any, ...]) -> int:
        return int(row[4])  # bm25_length

    def record_weight(self, place: int, tf: int, length: int) -> float:
        key = (place, tf, length)
        value = self.record_weights.get(key)
        if value is None:
            value = self.record_weights[key] = self.idfs[place] * weight(tf, length, self.average)
        return value

    def factor(self, band: int) -> float:
        return 1.0

    def weights(self, place: int, band: int) -> _Weights:
        return _Weights(self.idfs[place], postings.bm25_shortest(band), self.average)

    def frequencies(self, row: tuple[Any, ...]) -> tuple[int, ...]:
        """From the record's text, as tables.bm25_terms counts it: a heading weighs more."""
        counts = tokens.counts(row[8], row[7])
        return tuple([counts.get(term, 0) for term in self.terms])

    def score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> float | None:
        """The exact score, as exhaustive's; None for a record not of `files`."""
        _, file_id, _, kind, length, ts_ms, ts_local = row[:7]
        if self.files.get(file_id) is None:
            return None
        idfs, average = self.idfs, self.average
        value = math.fsum(
            [
                idfs[place] * weight(tf, length, average) if tf else 0.0
                for place, tf in enumerate(frequencies)
            ]
        )
        if kind == "event":
            event_ms = js.instant_ms(ts_ms, ts_local, self.local_offset_ms)
            value = score.decayed(value, event_ms, self.now_ms)
        return value

    def exact(
        self, approximate: float, row: tuple[Any, ...], frequencies: tuple[int, ...]
    ) -> Ranked:
        record_id, file_id, ordinal = row[:3]
        rank, project = self.files.get(file_id) or (0, "")
        return score.Ranked(approximate, rank, ordinal, record_id, project)


def exhaustive(
    conn: sqlite3.Connection,
    terms: list[str],
    files: RecallFiles,
    now_ms: float | None,
    local_offset_ms: Callable[[float], float],
    emphasis: list[float] | None = None,
) -> list[score.Ranked]:
    """Every record of `files` that holds a query term, with its score: the reference
    the pruned search equals (tests), and the answer when no limit applies. `emphasis` as
    in search."""
    if not terms or not files:
        return []
    stats = Stats(conn)
    width = len(terms)
    # record id -> its contribution per query term, summed in query order (deterministic).
    parts: dict[int, list[float]] = {}
    for place, groups in enumerate(term_groups(conn, terms)):
        if not groups:
            continue
        term_idf = idf(stats.records, document_frequency(groups))
        if emphasis is not None:
            term_idf *= emphasis[place]
        for tf, pairs in groups:
            values: dict[int, float] = {}  # length -> this term's weight in such a record
            for record_id, length in zip(pairs[::2], pairs[1::2], strict=True):
                value = values.get(length)
                if value is None:
                    value = values[length] = term_idf * weight(tf, length, stats.average)
                found = parts.get(record_id)
                if found is None:
                    found = parts[record_id] = [0.0] * width
                found[place] = value
    ranked: list[score.Ranked] = []
    ids = sorted(parts)
    for start in range(0, len(ids), 500):
        chunk = ",".join(str(record_id) for record_id in ids[start : start + 500])
        for record_id, file_id, ordinal, kind, ts_ms, ts_local in conn.execute(
            "SELECT id, file_id, ordinal, kind, ts_ms, coalesce(ts_local, 0)"
            f" FROM records WHERE id IN ({chunk})"
        ):
            source = files.get(file_id)
            if source is None:
                continue
            rank, project = source
            value = math.fsum(parts[record_id])
            if kind == "event":
                event_ms = ts_ms
                if event_ms is not None and ts_local:
                    event_ms += local_offset_ms(event_ms)
                value = score.decayed(value, event_ms, now_ms)
            ranked.append(score.Ranked(value, rank, ordinal, record_id, project))
    return ranked


def explain(
    conn: sqlite3.Connection, record_id: int, terms: list[str], age_days: float | None
) -> dict[str, Any]:
    """`--explain` for one bm25 result: each query term's tf, df, idf and weight."""
    stats = Stats(conn)
    length = conn.execute("SELECT bm25_length FROM records WHERE id = ?", (record_id,)).fetchone()[
        0
    ]
    shown: list[dict[str, Any]] = []
    for term, groups in zip(terms, term_groups(conn, terms), strict=True):
        df = document_frequency(groups)
        tf = next((tf for tf, pairs in groups if record_id in pairs[::2]), 0)
        term_idf = idf(stats.records, df) if df else 0.0
        value = term_idf * weight(tf, length, stats.average) if tf else 0.0
        shown.append({"term": term, "tf": tf, "df": df, "idf": term_idf, "weight": value})
    total = math.fsum(term["weight"] for term in shown)  # as the ranking sums
    decay = score.decay(age_days)
    return {
        "ranking": "bm25",
        "terms": shown,
        "length": length,
        "averageLength": stats.average,
        "records": stats.records,
        "k1": K1,
        "b": B,
        "bm25": total,
        "decay": decay,
        "score": total * decay,
    }
