"""The one pruned top-k loop: read only the postings that can still change the answer.

Both rankings keep postings in one layout (mem.index.postings): per term, its records
grouped by band (a length class, and for the lexical ranking's dated events a 4-day bucket)
and tf. A ranking hands this loop a scorer (mem.index.lexical, mem.index.bm25) whose score
of a record is at most

    factor(band) × coverage(matched terms) × Σ over its terms of weight(place, band, tf)

where each weight grows with tf, and which scores a record exactly from its row and its
query terms' frequencies. The records of a band not read yet then score at most that sum
over the band's live terms at their next unread tf (a term is live while it has unread
groups there): each frequency is at most the next unread one, else it would have been read.
The records read wait in classes, those of a band known to hold the same (query term -> tf);
a class's bound counts each term it is not known to hold at that term's next unread tf, or
not at all once the term is read to its end.

One priority queue holds every band's unread records and every class, by bound, and the
search takes the best until the limit-th best score so far beats it. From a band it reads
the group that lowers the band's bound most per record read (every group, when they hold
fewer postings than a text costs), and splits the band's classes by the records each group
holds. A class whose terms are all known is scored from its postings. Another is scored
from its text until the top is full (nothing is pruned before) and after, when that costs
less than reading the next group of one of its terms; else that group is read. Bounds
only fall: an entry whose bound fell since it was queued goes back in its new place. The
records within a relative 1e-9 of the last place are scored again by the scorer's exact
arithmetic (the lexical ranking's is V8's: mem.core.javascript.jsmath), so scores, ties and order
are
the exhaustive scorer's.

Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from mem.core.ranking.score import Ranked

    class Scorer(Protocol):
        """What a ranking hands the loop: its terms, postings, bounds and scores."""

        width: int  # query terms, repeats included: frequencies are in query order

        @property
        def table(self) -> str:
            """Its postings' table (mem.index.postings.Tables.postings)."""

        @property
        def rows(self) -> str:
            """A statement of one parameter, a JSON array of record ids, that gives each
            record's row, its id first."""

        @property
        def texts(self) -> str:
            """As rows, with what `frequencies` counts."""

        @property
        def postings_per_text(self) -> int:
            """What scoring a record from its text costs, in postings read instead."""

        @property
        def fill_from_texts(self) -> bool:
            """Whether the top is filled from texts first (nothing is pruned before it is
            full), or by reading groups as after: for texts that cost far more than a group."""

        @property
        def coverage(self) -> Sequence[float]:
            """The bound's factor by the number of query terms a record holds (0..width)."""

        def term_ids(self, conn: sqlite3.Connection) -> list[int | None]:
            """Each query term's id in the postings (None: no record holds it)."""

        def decode(self, blob: bytes) -> Sequence[int]:
            """The record ids of a group's postings."""

        @property
        def by_length(self) -> bool:
            """Whether a record's own length bounds it much tighter than its band's shortest
            (bm25's bands span a factor of 2): the loop then bounds each record about to be
            scored from its text by its own length first."""

        def length(self, row: tuple[Any, ...]) -> int:
            """A record's length, from its row of `rows` (by_length only)."""

        def record_weight(self, place: int, tf: int, length: int) -> float:
            """The term's weight bound in a record of that length (by_length only)."""

        def factor(self, band: int) -> float:
            """What a band's records' score is at most, per unit of coverage × Σ weight."""

        def weights(self, place: int, band: int) -> Mapping[int, float]:
            """tf -> the term's weight bound in the band, growing with tf."""

        def frequencies(self, row: tuple[Any, ...]) -> tuple[int, ...]:
            """Each query term's tf, counted from a row of `texts`."""

        def score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> float | None:
            """The record's score to within EPSILON (None: not a record asked for)."""

        def exact(
            self, approximate: float, row: tuple[Any, ...], frequencies: tuple[int, ...]
        ) -> Ranked: ...


# Far wider than any rounding difference between libm, V8 and the bound's own arithmetic.
EPSILON = 1e-9
# Groups up to this size come with the term's first statement; bigger ones when read.
LOADED_BYTES = 4096
# Scoring a note from its text costs about as much as reading this many postings (a
# scorer's postings_per_text: a commit's costs more).
POSTINGS_PER_TEXT = 128


class _Term:
    """One query term's groups in one band, highest tf first."""

    __slots__ = ("term_id", "place", "band", "groups", "position", "weight", "weights", "loaded")

    def __init__(self, term_id: int, place: int, band: int, weights: Mapping[int, float]) -> None:
        self.term_id = term_id
        self.place = place  # position in the query
        self.band = band
        self.groups: list[tuple[int, int]] = []  # (tf, records)
        self.loaded: list[bytes | None] = []  # each group's postings, when read with it
        self.position = 0  # the next group to read
        self.weights = weights  # tf -> the term's weight in the band (the scorer's)
        self.weight = 0.0  # of the next group's tf; 0 once the term is read to its end


class _Band:
    __slots__ = ("band", "factor", "terms", "places", "live", "total", "unread", "classes")

    def __init__(self, band: int, factor: float) -> None:
        self.band = band
        self.factor = factor
        self.terms: list[_Term] = []
        self.places: dict[int, _Term] = {}  # by query position
        self.live = 0
        self.total = 0.0  # Σ weight over the live terms' next groups
        self.unread = 0  # postings in the groups not read
        self.classes: list[_Class] = []  # every record read, each in one


class _Class:
    """Waiting records of a band known to hold the same: query position -> tf."""

    __slots__ = ("known", "ids", "bound", "done")

    def __init__(self, known: dict[int, int], ids: set[int], bound: float) -> None:
        self.known = known
        self.ids = ids
        self.bound = bound  # at most: bounds only fall
        self.done = False  # scored, or out of the top


def _json_ids(ids: Iterable[int]) -> str:
    """A JSON array of record ids, for json_each (what json.dumps writes, without json)."""
    return "[" + ",".join(map(str, ids)) + "]"


def search(
    conn: sqlite3.Connection, scorer: Scorer, limit: int | None, floor: float = 0.0
) -> list[Ranked]:
    """The records that can be among the best `limit` (all: None), by the scorer's exact score.

    Unordered: the caller merges indexes and orders with score.order. With a `floor` (and a
    limit), a record whose score cannot reach it may be left out.
    """
    bands: dict[int, _Band] = {}
    width = scorer.width
    for place, term_id in enumerate(scorer.term_ids(conn)):
        if term_id is not None:
            _load_groups(conn, scorer, bands, term_id, place, width > 1)
    searcher = _Searcher(conn, scorer, limit, floor)
    searcher.run(bands.values())
    return searcher.exact()


def _load_groups(
    conn: sqlite3.Connection,
    scorer: Scorer,
    bands: dict[int, _Band],
    term_id: int,
    place: int,
    with_records: bool,
) -> None:
    """A term's groups in every band, highest tf first; the small ones with their records.

    A one-term query reads a few groups only: it takes none of their records up front.
    """
    current = _Term(term_id, place, -1, {})  # no band is negative
    # One row per part, in key order: a group's parts are consecutive and merged here, which
    # costs less than SQLite's GROUP BY and group_concat (most groups have a single part).
    table = scorer.table
    if with_records:
        rows = conn.execute(
            "SELECT band, tf, length(records), CASE WHEN length(records) <= ? THEN records END"
            f" FROM {table} WHERE term = ? ORDER BY band DESC, tf DESC",
            (LOADED_BYTES, term_id),
        )
    else:
        rows = conn.execute(
            f"SELECT band, tf, length(records), NULL FROM {table} WHERE term = ?"
            " ORDER BY band DESC, tf DESC",
            (term_id,),
        )
    groups = current.groups
    last_tf = 0
    for band, tf, size, blob in rows:
        if band != current.band:
            state = bands.get(band) or bands.setdefault(band, _Band(band, scorer.factor(band)))
            current = _Term(term_id, place, band, scorer.weights(place, band))
            current.weight = current.weights[tf]
            groups = current.groups
            state.terms.append(current)
            state.places[place] = current
            state.live += 1
            state.total += current.weight
        elif tf == last_tf:
            # Another part of the group: its records are loaded only if every part was.
            groups[-1] = (tf, groups[-1][1] + size // 8)
            state.unread += size // 8
            loaded = current.loaded[-1]
            both = loaded + blob if loaded is not None and blob is not None else None
            current.loaded[-1] = both if both is not None and len(both) <= LOADED_BYTES else None
            continue
        last_tf = tf
        groups.append((tf, size // 8))
        current.loaded.append(blob)
        state.unread += size // 8


def _cheapest(terms: list[_Term], matched: int, total: float, coverage: Sequence[float]) -> _Term:
    """The term whose next group lowers coverage × total most per record read.

    `total` holds each live term's next weight; a term read to its end no longer counts.
    """
    best = terms[0]
    best_gain = -1.0
    now = coverage[matched] * total
    for term in terms:
        groups = term.groups
        position = term.position
        if position == len(groups):
            continue  # read to its end
        tf, size = groups[position]
        weights = term.weights
        if position + 1 < len(groups):
            after = coverage[matched] * (total - weights[tf] + weights[groups[position + 1][0]])
        else:
            after = coverage[matched - 1] * (total - weights[tf])
        gain = (now - after) / (size or 1)
        if gain > best_gain:
            best, best_gain = term, gain
    return best


class _Searcher:
    """The records read so far, their approximate scores, and the limit-th best of them."""

    def __init__(
        self, conn: sqlite3.Connection, scorer: Scorer, limit: int | None, floor: float
    ) -> None:
        self.conn = conn
        self.scorer = scorer
        self.coverage = scorer.coverage
        self.limit = limit
        # (approximate score, row, frequencies) of every record scored
        self.found: list[tuple[float, tuple[Any, ...], tuple[int, ...]]] = []
        self.best: list[float] = []  # min-heap of the limit best approximate scores
        # Below it nothing is asked for: approximate scores may be above exact ones by EPSILON.
        self.floor = floor * (1 - 4 * EPSILON) if floor > 0 and limit is not None else -math.inf
        # the limit-th best of them, once there are that many (never under the floor)
        self.threshold = self.floor
        # Classes to score (see _take), from their known frequencies or from their text.
        self.known: list[_Class] = []
        self.texts: list[_Class] = []
        self.taken = 0  # their records
        # (-bound, push, band, class): a band's unread records, or one of its classes; the
        # push's number breaks ties (first in, first out) without comparing the two.
        self.queue: list[tuple[float, int, _Band, _Class | None]] = []
        self.pushes = 0

    def settled(self, bound: float) -> bool:
        """No record left can reach the top: every one scores at most `bound`."""
        return bound * (1 + 4 * EPSILON) < self.threshold

    def _band_bound(self, state: _Band) -> float:
        return state.factor * self.coverage[state.live] * state.total

    def _push(self, bound: float, state: _Band, waiting: _Class | None) -> None:
        if not self.settled(bound):
            self.pushes += 1
            heapq.heappush(self.queue, (-bound, self.pushes, state, waiting))
        elif waiting is not None:
            waiting.done = True  # out of the top for good: bounds only fall, the top rises

    def run(self, bands: Iterable[_Band]) -> None:
        """Take the best bound of the queue until no entry left can reach the top."""
        for state in bands:
            self._push(self._band_bound(state), state, None)
        queue = self.queue
        coverage = self.coverage
        while queue:
            negative, _, state, waiting = heapq.heappop(queue)
            if self.settled(-negative):
                break
            # A bound that fell since it was queued is the best still if it beats the next
            # one (queued bounds are at most); else it goes back in its place.
            following = -queue[0][0] if queue else -math.inf
            if waiting is None:  # the band's unread records
                if not state.live:
                    continue
                bound = self._band_bound(state)
                if bound < following:
                    self._push(bound, state, None)
                    continue
                if state.unread <= POSTINGS_PER_TEXT:
                    # All of it costs less than a text: no bound is looked at in between.
                    for term in state.terms:
                        while term.weight:
                            self._read(state, term)
                    continue
                self._read(state, _cheapest(state.terms, state.live, state.total, coverage))
                self._push(self._band_bound(state), state, None)
                continue
            if waiting.done:
                continue
            bound, matched, total = self._bound(state, waiting)
            waiting.bound = bound
            if bound < following:
                self._push(bound, state, waiting)
                continue
            known = waiting.known
            unknown = [term for term in state.terms if term.weight and term.place not in known]
            if not unknown:
                self._take(waiting, self.known)
                continue
            term = _cheapest(unknown, matched, total, coverage)
            # Without a limit nothing is ever pruned and every posting is read in the end.
            if self.limit is not None and (
                (self.threshold == -math.inf and self.scorer.fill_from_texts)
                or len(waiting.ids) * self.scorer.postings_per_text <= term.groups[term.position][1]
            ):
                if self.scorer.by_length and self.threshold > -math.inf:
                    self._trim(state, waiting)
                self._take(waiting, self.texts)
                continue
            self._read(state, term)
            if waiting.ids:  # those the group did not hold
                waiting.bound = self._bound(state, waiting)[0]
                self._push(waiting.bound, state, waiting)
        self._score_taken()

    def _bound(self, state: _Band, waiting: _Class) -> tuple[float, int, float]:
        """A class's bound, coverage and Σ: the band's live terms, with what it knows."""
        total = state.total
        matched = state.live
        places = state.places
        for place, tf in waiting.known.items():
            term = places[place]
            if term.weight:
                total -= term.weight  # live: counted in the band's
            else:
                matched += 1
            total += term.weights[tf]
        # Taking a weight back from the band's sum leaves an error of a few ulps of that sum,
        # which a small remainder may not absorb (bm25's weights span seven decades).
        total += state.total * EPSILON
        return state.factor * self.coverage[matched] * total, matched, total

    def _trim(self, state: _Band, waiting: _Class) -> None:
        """Leave out of a class about to be scored from its text the records their own
        length (from their rows: no text) bounds below the top: a bm25 band spans lengths
        a factor of 2 apart, and tokenizing a text costs far more. They stay read, in a
        class done with."""
        known = waiting.known
        terms = list(known.items())
        terms += [
            (term.place, term.groups[term.position][0])
            for term in state.terms
            if term.weight and term.place not in known
        ]
        scale = state.factor * self.coverage[len(terms)] * (1 + EPSILON)
        scorer = self.scorer
        weight = scorer.record_weight
        ids = waiting.ids
        settled: dict[int, bool] = {}  # by length
        out = set()
        for row in self.conn.execute(scorer.rows, (_json_ids(ids),)):
            length = scorer.length(row)
            below = settled.get(length)
            if below is None:
                bound = scale * sum([weight(place, tf, length) for place, tf in terms])
                below = settled[length] = self.settled(bound)
            if below:
                out.add(row[0])
        if not out:
            return
        ids -= out
        done = _Class(dict(known), out, waiting.bound)
        done.done = True
        state.classes.append(done)

    def _read(self, state: _Band, term: _Term) -> None:
        """A term's next group in a band: its records are known to hold the term with its tf.

        Each class it meets splits in two; the records no class holds make a new one.
        """
        before = self._band_bound(state)  # of the new records: they were unread
        groups = term.groups
        position = term.position
        tf, size = groups[position]
        fresh = set(self._records(term, position))
        state.unread -= size
        term.position = position = position + 1
        if position < len(groups):
            term.weight = term.weights[groups[position][0]]
        else:
            term.weight = 0.0
            state.live -= 1
        # Summed again rather than updated: no rounding error adds up over the reads.
        state.total = math.fsum([term.weight for term in state.terms])
        place = term.place
        for held in state.classes[:]:
            ids = held.ids & fresh
            if not ids:
                continue
            fresh -= ids
            if held.done:
                continue  # scored or out of the top, for good
            if len(ids) == len(held.ids):
                held.known[place] = tf
            else:
                held.ids -= ids
                self._wait(state, _Class({**held.known, place: tf}, ids, held.bound))
        # Records no class holds were unread, or read once the band's unread records could
        # no longer reach the top (then left out, as these are now).
        if fresh and not self.settled(before):
            self._wait(state, _Class({place: tf}, fresh, before))

    def _records(self, term: _Term, group: int) -> Sequence[int]:
        """The record ids of a term's group (by its position)."""
        blob = term.loaded[group]
        if blob is None:
            parts = self.conn.execute(
                f"SELECT records FROM {self.scorer.table} WHERE term = ? AND band = ? AND tf = ?",
                (term.term_id, term.band, term.groups[group][0]),
            )
            blob = b"".join(part for (part,) in parts)
        return self.scorer.decode(blob)

    def _wait(self, state: _Band, waiting: _Class) -> None:
        state.classes.append(waiting)
        self._push(waiting.bound, state, waiting)

    def _take(self, waiting: _Class, kind: list[_Class]) -> None:
        """Score a class from its known frequencies or from its text (`kind`).

        Until the top is full none of them could be pruned: those taken are scored together
        once they hold as many records as the top (without a limit, at the end). After, each
        at once, so that the top's floor rises before the next entry is looked at.
        """
        waiting.done = True
        kind.append(waiting)
        self.taken += len(waiting.ids)
        if self.limit is not None and (self.threshold > -math.inf or self.taken >= self.limit):
            self._score_taken()

    def _score_taken(self) -> None:
        """Score the classes taken: a term not among a class's known frequencies is 0."""
        scorer = self.scorer
        places = range(scorer.width)
        known = {
            record_id: tuple(map(waiting.known.get, places, repeat(0)))
            for waiting in self.known
            for record_id in waiting.ids
        }
        if known:
            for row in self.conn.execute(scorer.rows, (_json_ids(known),)):
                self._score(row, known[row[0]])
        texts = [record_id for waiting in self.texts for record_id in waiting.ids]
        if texts:
            for row in self.conn.execute(scorer.texts, (_json_ids(texts),)):
                self._score(row, scorer.frequencies(row))
        self.known = []
        self.texts = []
        self.taken = 0

    def _score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> None:
        value = self.scorer.score(row, frequencies)
        if value is None:
            return
        self.found.append((value, row, frequencies))
        if self.limit is None:
            return
        if len(self.best) < self.limit:
            heapq.heappush(self.best, value)
        elif value > self.best[0]:
            heapq.heapreplace(self.best, value)
        else:
            return
        if len(self.best) == self.limit:
            self.threshold = max(self.best[0], self.floor)

    def exact(self) -> list[Ranked]:
        """Exact scores for every record within the band of the limit-th approximate score."""
        floor = -math.inf
        if self.limit is not None and len(self.best) >= self.limit:
            floor = self.best[0] * (1 - EPSILON)
        exact = self.scorer.exact
        return [
            exact(approximate, row, frequencies)
            for approximate, row, frequencies in self.found
            if approximate >= floor
        ]
