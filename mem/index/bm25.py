"""The bm25 ranking: Okapi BM25 over mem.core.tokens' terms, heading words weighted (BM25F).

    score = Σ over query terms t of idf(t) × tf (k1 + 1) / (tf + k1 (1 - b + b × len / avglen))
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))

tf is a record's weighted frequency of t (a note's heading words count
tokens.HEADING_WEIGHT times), len its bm25_length, N the records of the index and avglen
their mean length. Events then lose half their score every 30 days, as in the lexical
ranking. The postings (bm25_postings) are grouped by tf, each record there with its length,
so the top-k is exact without reading any record's text.

This round scores every record that holds a query term (exhaustive, hence exact); block-max
style pruning over the groups is left for later (see bench/README.md's figures).
Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable

from mem.core import score
from mem.index import postings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.queries import RecallFiles

K1 = 1.2
B = 0.75


class Stats:
    """What IDF and length normalisation need of the whole index."""

    __slots__ = ("records", "average")

    def __init__(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT records, length FROM bm25_stats").fetchone()
        records, total = row if row is not None else (0, 0)
        self.records = int(records)
        self.average = total / records if records else 1.0


def idf(records: int, df: int) -> float:
    return math.log(1 + (records - df + 0.5) / (df + 0.5))


def weight(tf: int, length: int, average: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))


def term_groups(conn: sqlite3.Connection, terms: list[str]) -> list[list[tuple[int, memoryview]]]:
    """Per query term, its groups (tf, pairs: id, length, id, ...); [] for a term no record
    holds."""
    found: list[list[tuple[int, memoryview]]] = []
    for term in terms:
        row = conn.execute("SELECT id FROM bm25_terms WHERE term = ?", (term,)).fetchone()
        if row is None:
            found.append([])
            continue
        found.append(
            [
                (tf, postings.decode_pairs(blob))
                for tf, blob in conn.execute(
                    "SELECT tf, records FROM bm25_postings WHERE term = ?", (row[0],)
                )
            ]
        )
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
) -> list[score.Ranked]:
    """The records of `files` that hold a query term, with their scores (unordered: the
    caller orders with score.order). `limit` is not needed for exactness here."""
    del limit  # every record holding a term is scored
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
    shown = []
    total = 0.0
    for term, groups in zip(terms, term_groups(conn, terms), strict=True):
        df = document_frequency(groups)
        tf = next((tf for tf, pairs in groups if record_id in pairs[::2]), 0)
        term_idf = idf(stats.records, df) if df else 0.0
        value = term_idf * weight(tf, length, stats.average) if tf else 0.0
        total += value
        shown.append({"term": term, "tf": tf, "df": df, "idf": term_idf, "weight": value})
    decay = 1.0 if age_days is None or age_days <= 0 else 0.5 ** (age_days / 30)
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
