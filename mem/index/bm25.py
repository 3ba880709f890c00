"""The bm25 ranking: Okapi BM25 over mem.core.text.tokens' terms, heading words weighted (BM25F).

    score = Σ over query terms t of idf(t) × tf (k1 + 1) / (tf + k1 (1 - b + b × len / avglen))
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))

tf is a record's weighted frequency of t (a note's heading words count
tokens.HEADING_WEIGHT times), len its bm25_length, N the records of the index and avglen
their mean length. Events then lose half their score every 30 days, as in the lexical
ranking. The postings (bm25_postings) are grouped by tf, each record there with its length,
so the top-k is exact without reading any record's text.

A group is one length class's: its class's shortest length bounds the weight of every
record in it, so a top-k search reads groups best bound first and stops early (search).
Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from bisect import bisect_left
from collections.abc import Callable

from mem.core.ranking import score
from mem.core.text import tokens
from mem.index import postings
from mem.index.queries import in_chunks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.queries import RecallFiles

K1 = 1.2
B = 0.75
PAIR_BYTES = 8  # a posting: (id, length), two 4-byte unsigned integers
READ_ON = 64  # past the stop, groups of at most 1/READ_ON the records met are still read
SLACK = 1 + 1e-9  # over a plain sum of bounds: the relative error of a few additions
ROW_BATCH = 8  # records whose rows are read at once when one is needed (most are not)


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
    query = (
        "SELECT t.term, sum(length(p.records)) FROM bm25_terms AS t"
        " JOIN bm25_postings AS p ON p.term = t.id"
    )
    if terms is None:
        rows = conn.execute(query + " GROUP BY t.id")
        return {term: size // PAIR_BYTES for term, size in rows}
    found: dict[str, int] = {}
    for chunk, marks in in_chunks(terms):
        rows = conn.execute(query + f" WHERE t.term IN ({marks}) GROUP BY t.id", chunk)
        found.update((term, size // PAIR_BYTES) for term, size in rows)
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

    The groups are read in decreasing order of their bound (the term's idf times its weight at
    the group's tf and the shortest length of its class), until the limit-th best score known
    is above what a record not met yet can reach: the sum of each term's highest bound left.
    A record met then has its missing terms looked up in the groups of its own class left.
    Scores are the exhaustive scorer's, to the bit (same values, same fsum in query order).
    """
    if limit is None or limit < 1 or not terms or not files:
        return exhaustive(conn, terms, files, now_ms, local_offset_ms, emphasis)
    return _Pruned(conn, terms, files, now_ms, local_offset_ms, emphasis).top(limit, floor)


class _Pruned:
    """One pruned search's state (see search). mem.index.history ranks commits with it: a
    subclass names other tables in bm25_postings' layout (`tables`), their statistics
    (`_stats`) and the rows of what it ranks (`_fetch_rows`)."""

    tables = postings.BM25

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        files: RecallFiles,
        now_ms: float | None,
        local_offset_ms: Callable[[float], float],
        emphasis: list[float] | None = None,
    ) -> None:
        self.conn = conn
        self.files = files
        self.now_ms = now_ms
        self.local_offset_ms = local_offset_ms
        self.width = len(terms)
        stats = self._stats()
        self.average = stats.average
        self.idfs: list[float] = []
        # per query place: its groups left to read, best bound first: (bound, band, tf, parts,
        # records)
        self.left: list[list[tuple[float, int, int, list[int], int]]] = []
        self.term_ids: list[int | None] = []
        for place, term in enumerate(terms):
            groups: dict[tuple[int, int], list[int]] = {}
            sizes: dict[tuple[int, int], int] = {}
            size = 0
            row = conn.execute(
                f"SELECT id FROM {self.tables.terms} WHERE term = ?", (term,)
            ).fetchone()
            if row is not None:
                for band, tf, part, bytes_ in conn.execute(
                    f"SELECT band, tf, part, length(records) FROM {self.tables.postings}"
                    " WHERE term = ?",
                    (row[0],),
                ):
                    groups.setdefault((band, tf), []).append(part)
                    sizes[band, tf] = sizes.get((band, tf), 0) + bytes_ // PAIR_BYTES
                    size += bytes_
            df = size // PAIR_BYTES
            term_idf = idf(stats.records, df) if df else 0.0
            if emphasis is not None:
                term_idf *= emphasis[place]
            self.idfs.append(term_idf)
            self.term_ids.append(None if row is None else row[0])
            self.left.append(
                sorted(
                    (
                        (
                            term_idf * weight(tf, postings.bm25_shortest(band), self.average),
                            band,
                            tf,
                            parts,
                            sizes[band, tf],
                        )
                        for (band, tf), parts in groups.items()
                    ),
                    reverse=True,
                )
            )
        # record id -> its length, and its value per query place (None: not met yet)
        self.lengths: dict[int, int] = {}
        self.parts: dict[int, list[float | None]] = {}
        self.sums: dict[int, float] = {}  # a plain running sum, to pick records by
        self.masks: dict[int, int] = {}  # bit `place` set: the record's value there is known
        self.rows: dict[int, tuple[Any, ...] | None] = {}  # id -> (file_id, ordinal, kind, ...)

    def _stats(self) -> Stats:
        return Stats(self.conn)

    def _remaining(self, place: int) -> float:
        left = self.left[place]
        return left[0][0] if left else 0.0

    def _read(self, place: int) -> int:
        """Read the best group left of the term at `place`; the number of records read."""
        _, band, tf, parts, _ = self.left[place].pop(0)
        term_idf = self.idfs[place]
        values: dict[int, float] = {}
        lengths, found, sums, width = self.lengths, self.parts, self.sums, self.width
        masks, bit = self.masks, 1 << place
        read = 0
        for pairs in self._pairs(place, band, tf, parts):
            for record_id, length in zip(pairs[::2], pairs[1::2], strict=True):
                value = values.get(length)
                if value is None:
                    value = values[length] = term_idf * weight(tf, length, self.average)
                known = found.get(record_id)
                if known is None:
                    known = found[record_id] = [None] * width
                    lengths[record_id] = length
                    sums[record_id] = 0.0
                    masks[record_id] = 0
                known[place] = value
                sums[record_id] += value
                masks[record_id] |= bit
            read += len(pairs) // 2
        return read

    def _pairs(self, place: int, band: int, tf: int, parts: list[int]) -> list[memoryview]:
        return [
            postings.decode_pairs(blob)
            for (blob,) in self.conn.execute(
                f"SELECT records FROM {self.tables.postings} WHERE term = ? AND band = ?"
                f" AND tf = ? AND part IN ({','.join(map(str, parts))})",
                (self.term_ids[place], band, tf),
            )
        ]

    def _fetch_rows(self, ids: list[int]) -> None:
        missing = [record_id for record_id in ids if record_id not in self.rows]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            for record_id in chunk:
                self.rows[record_id] = None
            for row in self.conn.execute(
                "SELECT id, file_id, ordinal, kind, ts_ms, coalesce(ts_local, 0)"
                f" FROM records WHERE id IN ({','.join(map(str, chunk))})"
            ):
                self.rows[row[0]] = row[1:]

    def _score(self, record_id: int, value: float) -> float | None:
        """`value` decayed as the record's would be; None for a record not of `files`."""
        row = self.rows[record_id]
        if row is None or self.files.get(row[0]) is None:
            return None
        _, _, kind, ts_ms, ts_local = row
        if kind == "event":
            event_ms = ts_ms
            if event_ms is not None and ts_local:
                event_ms += self.local_offset_ms(event_ms)
            value = score.decayed(value, event_ms, self.now_ms)
        return value

    def _threshold(self, limit: int) -> float:
        """A lower bound of the limit-th best final score (0.0 when unknown)."""
        sums = self.sums
        picked = limit
        while True:
            best = heapq.nlargest(picked, sums, key=sums.__getitem__)
            self._fetch_rows(best)
            known = []
            for record_id in best:
                value = self._score(record_id, math.fsum(v or 0.0 for v in self.parts[record_id]))
                if value is not None:
                    known.append(value)
            if len(known) >= limit:
                return heapq.nlargest(limit, known)[-1]
            if len(best) < picked:
                return 0.0
            picked *= 4

    def top(self, limit: int, floor: float = 0.0) -> list[score.Ranked]:
        width = self.width
        threshold = floor
        read_since = 0
        while True:
            bounds = [self._remaining(place) for place in range(width)]
            unseen = math.fsum(bounds)
            if not any(bounds):
                break
            place = max(range(width), key=bounds.__getitem__)
            if unseen < threshold:
                # Done; but a small group read on lowers the bound of every record met
                # that lacks its term, each of which would cost a look-up.
                if self.left[place][0][4] * READ_ON > len(self.sums):
                    break
                self._read(place)
                continue
            # The threshold costs a pass over the records met: worked out again once a
            # quarter as many more have been read.
            if (
                read_since * 4 >= len(self.sums)
                and len(self.sums) >= limit
                and max(self.sums.values()) * SLACK >= floor  # else it stays under the floor
            ):
                threshold = max(floor, self._threshold(limit))
                read_since = 0
                if unseen < threshold:
                    continue
            read_since += self._read(place)
        return self._finish(threshold, limit, floor)

    def _finish(self, threshold: float, limit: int, floor: float) -> list[score.Ranked]:
        """The records met that can be among the best `limit` and reach `floor`, scored
        exactly: taken best bound first, each exact score raising the threshold the next
        ones must reach.

        A record met lacks a term's value only if its tf is in a group left of its own
        length class: the highest tf left there, at the record's own length, bounds it.
        """
        average = self.average
        # per place: length class -> the highest tf of its groups left (none: no bound)
        highest: list[dict[int, int]] = []
        for left in self.left:
            tfs: dict[int, int] = {}
            for _, band, group_tf, _, _ in left:
                if group_tf > tfs.get(band, 0):
                    tfs[band] = group_tf
            highest.append(tfs)
        idfs = self.idfs

        def missing_bound(mask: int, band: int) -> float:
            shortest = postings.bm25_shortest(band)
            return sum(
                [
                    idfs[place] * weight(tfs[band], shortest, average)
                    for place, tfs in enumerate(highest)
                    if not mask >> place & 1 and band in tfs
                ]
            )

        masks, lengths = self.masks, self.lengths
        # The bounds of the terms a record was not met in, by the set of those it was and
        # its length class.
        missing: dict[tuple[int, int], float] = {}
        candidates = []
        for record_id, met in self.sums.items():
            key = (masks[record_id], lengths[record_id].bit_length())  # postings.bm25_class
            bound = missing.get(key)
            if bound is None:
                bound = missing[key] = missing_bound(*key)
            # A plain sum (at most `width` roundings) raised by SLACK is above the exact one.
            if (upper := (met + bound) * SLACK) >= threshold:
                candidates.append((upper, record_id))
        candidates.sort(reverse=True)
        best: list[float] = []  # a heap of the best `limit` exact scores so far
        ranked: list[score.Ranked] = []
        lookup = _Lookup(self)
        rows = self.rows
        for at, (upper, record_id) in enumerate(candidates):
            if upper < floor or len(best) >= limit and upper < best[0]:
                break  # neither this record nor any after it reaches the best `limit`
            known = self.parts[record_id]
            length = lengths[record_id]
            band = postings.bm25_class(length)
            # What each missing term can add, at the record's own length (0: no group left).
            cap = [
                idfs[place] * weight(highest[place][band], length, average)
                if value is None and band in highest[place]
                else 0.0
                for place, value in enumerate(known)
            ]
            # Missing terms are looked up cheapest first (fewest records left to search):
            # the bound falls as each is known, and may drop the record before the costly.
            for place in sorted(
                (place for place, value in enumerate(known) if value is None),
                key=lookup.cost.__getitem__,
            ):
                upper = SLACK * sum([cap[p] if v is None else v for p, v in enumerate(known)])
                if upper < floor or len(best) >= limit and upper < best[0]:
                    break
                tf = lookup.tf(place, record_id, length) if cap[place] else None
                known[place] = 0.0 if tf is None else idfs[place] * weight(tf, length, average)
            if None in known:
                continue  # dropped: its bound is below the best `limit` exact scores
            total = math.fsum(v or 0.0 for v in known)
            if total < floor or len(best) >= limit and total < best[0]:
                continue  # decay only lowers it
            if record_id not in rows:
                self._fetch_rows([record_id for _, record_id in candidates[at : at + ROW_BATCH]])
            row = rows[record_id]
            source = None if row is None else self.files.get(row[0])
            if row is None or source is None:
                continue
            value = self._score(record_id, total)
            if value is None:
                continue
            if len(best) < limit:
                heapq.heappush(best, value)
            elif value > best[0]:
                heapq.heapreplace(best, value)
            rank, project = source
            ranked.append(score.Ranked(value, rank, row[1], record_id, project))
        return ranked


class _Lookup:
    """A record's tf in the groups left of a term, found in the groups of its length class:
    each part of a group lists its records in increasing id order (tables.Inserter), so a
    record is found by halves."""

    def __init__(self, search: _Pruned) -> None:
        self.search = search
        # (place, band) -> (tf, the record ids of one part) of the term's groups left there
        self.parts: dict[tuple[int, int], list[tuple[int, memoryview]]] = {}
        self.cost = [sum(group[4] for group in left) for left in search.left]

    def tf(self, place: int, record_id: int, length: int) -> int | None:
        band = postings.bm25_class(length)
        found = self.parts.get((place, band))
        if found is None:
            search = self.search
            found = self.parts[(place, band)] = [
                (tf, pairs[::2])
                for _, group_band, tf, parts, _ in search.left[place]
                if group_band == band
                for pairs in search._pairs(place, band, tf, parts)
            ]
        for tf, ids in found:
            at = bisect_left(ids, record_id)
            if at < len(ids) and ids[at] == record_id:
                return tf
        return None


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
