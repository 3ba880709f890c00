"""Exact top-k recall: read only the postings that can still change the answer.

Every band (mem.index.postings) keeps, per query term, its groups in descending tf. The
records of a band not read yet score at most

    decay bound × 1/√(shortest n) × (live terms / |Q|) × Σ over live terms of (1 + ln tf)

where tf is the highest not yet read and a term is live while it has unread groups in the
band: a record's coverage counts only the terms it holds, and each of its frequencies is
at most the next unread one (else it would have been read). The search reads, in the band
whose bound is highest, the group that lowers that bound most per record read (or the whole
band, when its postings are fewer than what scoring that group from text would cost); it
stops when no band's bound can reach the `limit`-th best score. Until the top is full every
record read is scored; after that a record read from one group only waits with what it is
known to hold, and at the end only the waiting records whose own bound (known frequencies,
and the band's last frontiers for the rest) still reaches the top are scored from their
text. The records within a relative 1e-9 of the last place are rescored with V8's
arithmetic (mem.core.jsmath), so scores, ties and order are the reference's.

Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import _sqlite3 as sqlite3  # the sqlite3 package without its datetime import (mem.index)
import heapq
import json
import math
from collections.abc import Callable, Iterable, Mapping
from itertools import repeat

from mem.core import parse, score
from mem.index import postings
from mem.tuples import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any

# Far wider than any rounding difference between libm, V8 and the bound's own arithmetic.
EPSILON = 1e-9
_FRESHER = math.log(0.5) / (score.HALF_LIFE_DAYS * score.DAY_MS)
_COLUMNS = "id, file_id, ordinal, kind, tokens, ts_ms, ts_local"


class Candidate(NamedTuple):
    approximate: float  # libm's score: within an ulp or two of V8's
    frequencies: tuple[int, ...]  # of each query term, in query order
    tokens: int
    kind: str
    ts_ms: float | None
    ts_local: int
    rank: int
    ordinal: int
    id: int
    project: str = ""  # across a portfolio: the root's real path, which orders equal scores


class _Term:
    """One query term's groups in one band, highest tf first."""

    __slots__ = ("term_id", "place", "groups", "position")

    def __init__(self, term_id: int, place: int) -> None:
        self.term_id = term_id
        self.place = place  # position in the query
        self.groups: list[tuple[int, int]] = []  # (tf, records)
        self.position = 0


class _Band:
    __slots__ = ("band", "factor", "terms", "live", "total")

    def __init__(self, band: int, factor: float) -> None:
        self.band = band
        self.factor = factor
        self.terms: list[_Term] = []
        self.live = 0
        self.total = 0.0  # Σ (1 + ln tf) over the live terms' next groups

    def bound(self, width: int) -> float:
        return self.factor * (self.live / width) * self.total


def _weight(tf: int) -> float:
    return 1.0 + math.log(tf)


def _factor(band: int, now_ms: float | None) -> float:
    factor = 1.0 / math.sqrt(postings.shortest_length(band))
    end = postings.bucket_end_ms(band)
    if end is not None and now_ms is not None and now_ms > end:
        factor *= math.exp((now_ms - end) * _FRESHER)
    return factor


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
    files: Mapping[int, int],
    now_ms: float | None,
    limit: int | None,
    local_offset_ms: Callable[[float], float],
    projects: Mapping[int, str] | None = None,
) -> list[score.Ranked]:
    """The records of `files` (id -> rank) that can be among the best `limit` (all: None).

    Exact scores, unordered: the caller merges indexes and orders with score.order. In a
    portfolio index, `projects` (file id -> the root's path) gives each its project.
    """
    width = len(terms)
    if not width or not files:
        return []
    ids = term_ids(conn, terms)
    bands: dict[int, _Band] = {}
    for place, term in enumerate(terms):
        term_id = ids.get(term)
        if term_id is None:
            continue
        current = _Term(term_id, place)
        previous = None
        for band, tf, size in conn.execute(
            "SELECT band, tf, sum(length(records)) FROM postings WHERE term = ?"
            " GROUP BY band, tf ORDER BY band DESC, tf DESC",
            (term_id,),
        ):
            if band != previous:
                previous = band
                state = bands.get(band)
                if state is None:
                    state = bands[band] = _Band(band, _factor(band, now_ms))
                current = _Term(term_id, place)
                state.terms.append(current)
                state.live += 1
                state.total += _weight(tf)
            current.groups.append((tf, size // 8))
    searcher = _Searcher(conn, terms, files, now_ms, limit, local_offset_ms, projects or {})
    queue = [(-state.bound(width), band) for band, state in bands.items()]
    heapq.heapify(queue)
    while queue:
        highest, band = heapq.heappop(queue)
        if searcher.settled(-highest):
            break
        state = bands[band]
        chosen = _cheapest(state, width)
        tf, size = chosen.groups[chosen.position]
        if width > 1 and _whole_band_is_cheaper(state, size):
            searcher.read_band(state)
            continue
        parts = conn.execute(
            "SELECT records FROM postings WHERE term = ? AND band = ? AND tf = ?",
            (chosen.term_id, band, tf),
        )
        searcher.read(postings.decode(b"".join(blob for (blob,) in parts)), tf, band, chosen.place)
        chosen.position += 1
        state.total -= _weight(tf)
        if chosen.position < len(chosen.groups):
            state.total += _weight(chosen.groups[chosen.position][0])
        else:
            state.live -= 1
        if state.live:
            heapq.heappush(queue, (-state.bound(width), band))
    searcher.resolve(bands)
    return searcher.exact()


# Scoring a record from its text costs about as much as reading this many postings.
TEXT_COST = 16


def _whole_band_is_cheaper(state: _Band, size: int) -> bool:
    """Read every unread group of the band at once rather than one group and its texts?"""
    unread = sum(
        groups_size for term in state.terms for _, groups_size in term.groups[term.position :]
    )
    return unread <= TEXT_COST * size


def _cheapest(state: _Band, width: int) -> _Term:
    """The live term whose next group lowers the band's bound most per record read."""
    best: _Term | None = None
    best_gain = -1.0
    for term in state.terms:
        if term.position == len(term.groups):
            continue
        tf, size = term.groups[term.position]
        total = state.total - _weight(tf)
        live = state.live
        if term.position + 1 < len(term.groups):
            total += _weight(term.groups[term.position + 1][0])
        else:
            live -= 1
        gain = (state.bound(width) - state.factor * (live / width) * total) / max(size, 1)
        if gain > best_gain:
            best, best_gain = term, gain
    assert best is not None, "a band in the queue has a live term"
    return best


class _Searcher:
    """The records read so far, their approximate scores, and the limit-th best of them."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        files: Mapping[int, int],
        now_ms: float | None,
        limit: int | None,
        local_offset_ms: Callable[[float], float],
        projects: Mapping[int, str],
    ) -> None:
        self.conn = conn
        self.projects = projects
        self.local_offset_ms = local_offset_ms
        self.terms = [term.encode("latin-1") for term in terms]
        self.files = files
        self.now_ms = now_ms
        self.limit = limit
        self.seen: set[int] = set()  # scored, or proven out of the top
        # Records read from some groups only, by band: what they are known to hold (query
        # position -> tf). Scoring them waits until the bounds have fallen as far as they will.
        self.pending: dict[int, dict[int, dict[int, int]]] = {}
        self.found: list[Candidate] = []
        self.best: list[float] = []  # min-heap of the limit best approximate scores

    def threshold(self) -> float:
        """The limit-th best score so far (approximate); -inf until there are that many."""
        limit = self.limit
        if limit is None or len(self.best) < limit:
            return -math.inf
        return self.best[0]

    def settled(self, bound: float) -> bool:
        """No unread record can reach the top: every one scores at most `bound`."""
        return bound * (1 + 4 * EPSILON) < self.threshold()

    def read(self, group: Iterable[int], tf: int, band: int, place: int) -> None:
        """A group's new records: scored at once while the top is not full, else pending."""
        seen = self.seen
        if len(self.terms) > 1 and self.threshold() > -math.inf:
            pending = self.pending.setdefault(band, {})
            for record_id in group:
                if record_id not in seen:
                    known = pending.get(record_id)
                    if known is None:
                        pending[record_id] = {place: tf}
                    else:
                        known[place] = tf
            return
        new = [record_id for record_id in group if record_id not in seen]
        if new:
            seen.update(new)
            self._score_records(new, (tf,) if len(self.terms) == 1 else None)

    def _score_records(self, ids: list[int], frequencies: tuple[int, ...] | None) -> None:
        """Score records from their text (or with the frequencies given for them all)."""
        rows = self.conn.execute(
            f"SELECT {_COLUMNS}{'' if frequencies else ', text'} FROM records"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        for row in rows:
            if frequencies is None:
                counts, _ = parse.term_counts(parse.token_bytes(row[7]))
                self._score(row, tuple(counts.get(term, 0) for term in self.terms))
            else:
                self._score(row, frequencies)

    def resolve(self, bands: Mapping[int, _Band]) -> None:
        """Score the pending records that could still reach the top, best bound first."""
        width = len(self.terms)
        bounded = []
        for band, pending in self.pending.items():
            state = bands[band]
            frontier = [
                (term.place, _weight(term.groups[term.position][0]))
                if term.position < len(term.groups)
                else (term.place, 0.0)
                for term in state.terms
            ]
            factor = state.factor / width
            for record_id, known in pending.items():
                total = 0.0
                matched = 0
                for place, weight in frontier:
                    tf = known.get(place)
                    if tf:
                        total += _weight(tf)
                        matched += 1
                    elif weight:
                        total += weight
                        matched += 1
                bounded.append((total * matched * factor, record_id))
        self.pending = {}
        bounded.sort(reverse=True)
        self.seen.update(record_id for _, record_id in bounded)
        for start in range(0, len(bounded), 64):
            chunk = bounded[start : start + 64]
            if self.settled(chunk[0][0]):
                break
            floor = self.threshold() * (1 - 4 * EPSILON)
            self._score_records([record_id for bound, record_id in chunk if bound >= floor], None)

    def read_band(self, state: _Band) -> None:
        """Every unread group of a band at once: frequencies from the postings, no text read."""
        width = len(self.terms)
        seen = self.seen
        places = {}
        for term in state.terms:
            if term.position < len(term.groups):
                # A term with no group left: every record of the band holding it was read.
                places[term.term_id] = term.place
                term.position = len(term.groups)
        state.live = 0
        found: list[dict[int, int]] = [{} for _ in range(width)]
        for record_id, known in self.pending.pop(state.band, {}).items():
            for place, tf in known.items():
                found[place][record_id] = tf
        for term_id, tf, blob in self.conn.execute(
            "SELECT term, tf, records FROM postings"
            " WHERE term IN (SELECT value FROM json_each(?)) AND band = ?",
            (json.dumps(list(places)), state.band),
        ):
            found[places[term_id]].update(zip(postings.decode(blob), repeat(tf)))
        lookups = [frequencies.get for frequencies in found if frequencies]
        places_found = [place for place, frequencies in enumerate(found) if frequencies]
        # Bounds from the postings alone (exact for notes of an exact-length band), best first.
        bounded = []
        factor = state.factor / width
        for record_id in set().union(*found).difference(seen):
            hits = 0.0
            matched = 0
            for lookup in lookups:
                tf = lookup(record_id, 0)
                if tf:
                    matched += 1
                    hits += _weight(tf)
            bounded.append((hits * matched * factor, record_id))
        bounded.sort(reverse=True)
        seen.update(record_id for _, record_id in bounded)
        for start in range(0, len(bounded), 64):
            chunk = bounded[start : start + 64]
            if self.settled(chunk[0][0]):
                break
            floor = self.threshold() * (1 - 4 * EPSILON)
            wanted = [record_id for bound, record_id in chunk if bound >= floor]
            for row in self.conn.execute(
                f"SELECT {_COLUMNS} FROM records WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),),
            ):
                frequencies = [0] * width
                for place, lookup in zip(places_found, lookups, strict=True):
                    frequencies[place] = lookup(row[0], 0)
                self._score(row, tuple(frequencies))

    def _score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> None:
        record_id, file_id, ordinal, kind, tokens, ts_ms, ts_local = row[:7]
        rank = self.files.get(file_id)
        if rank is None:
            return
        hits = 0.0
        matched = 0
        for frequency in frequencies:
            if frequency:
                matched += 1
                hits += _weight(frequency)
        value = hits * (matched / len(frequencies)) / math.sqrt(tokens)
        ts_local = ts_local or 0
        if kind == "event" and ts_ms is not None and self.now_ms is not None:
            event_ms = ts_ms + self.local_offset_ms(ts_ms) if ts_local else ts_ms
            if self.now_ms > event_ms:
                value *= math.exp((self.now_ms - event_ms) * _FRESHER)
        self.found.append(
            Candidate(
                value,
                frequencies,
                tokens,
                kind,
                ts_ms,
                ts_local,
                rank,
                ordinal,
                record_id,
                self.projects.get(file_id, ""),
            )
        )
        self._keep(value)

    def _keep(self, value: float) -> None:
        if self.limit is None:
            return
        if len(self.best) < self.limit:
            heapq.heappush(self.best, value)
        elif value > self.best[0]:
            heapq.heapreplace(self.best, value)

    def exact(self) -> list[score.Ranked]:
        """V8's scores for every record within the band of the limit-th approximate score."""
        floor = -math.inf
        if self.limit is not None and len(self.best) >= self.limit:
            floor = self.best[0] * (1 - EPSILON)
        ranked = []
        for candidate in self.found:
            if candidate.approximate < floor:
                continue
            value = score.lexical(candidate.frequencies, candidate.tokens)
            if candidate.kind == "event":
                event_ms = candidate.ts_ms
                if event_ms is not None and candidate.ts_local:
                    event_ms += self.local_offset_ms(event_ms)
                value = score.decayed(value, event_ms, self.now_ms)
            ranked.append(
                score.Ranked(
                    value, candidate.rank, candidate.ordinal, candidate.id, candidate.project
                )
            )
        return ranked
