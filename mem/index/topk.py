"""Exact top-k recall: read only the postings that can still change the answer.

Every band (mem.index.postings) keeps, per query term, its groups in descending tf. The
records of a band not read yet score at most

    decay bound × 1/√(shortest n) × (live terms / |Q|) × Σ over live terms of (1 + ln tf)

where tf is the highest not yet read and a term is live while it has unread groups in the
band: a record's coverage counts only the terms it holds, and each of its frequencies is
at most the next unread one (else it would have been read). The records read wait in
classes, those of a band known to hold the same (query term -> tf); a class's bound counts
each term it is not known to hold at that term's next unread tf, or not at all once the
term is read to its end.

One priority queue holds every band's unread records and every class, by bound, and the
search takes the best until the limit-th best score so far beats it. From a band it reads
the group that lowers the band's bound most per record read (every group, when they hold
fewer postings than a text costs), and splits the band's classes by the records each group
holds. A class whose terms are all known is scored from its postings. Another is scored
from its text until the top is full (nothing is pruned before) and after, when that costs
less than reading the next group of one of its terms; else that group is read. Bounds only
fall: an entry whose bound fell since it was queued goes back in its new place. The records
within a relative 1e-9 of the last place are rescored with V8's arithmetic
(mem.core.javascript.jsmath),
so scores, ties and order are the reference's.

Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat

from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import parse
from mem.index import postings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.queries import RecallFiles

# Far wider than any rounding difference between libm, V8 and the bound's own arithmetic.
EPSILON = 1e-9
_FRESHER = math.log(0.5) / (score.HALF_LIFE_DAYS * score.DAY_MS)
_COLUMNS = "id, file_id, ordinal, kind, tokens, ts_ms, ts_local"
# Groups up to this size come with the term's first statement; bigger ones when read.
LOADED_BYTES = 4096
# Scoring a record from its text costs about as much as reading this many postings.
POSTINGS_PER_TEXT = 128


class Candidate:
    """A record that may reach the top, with what its exact score is computed from."""

    __slots__ = (
        "approximate",
        "frequencies",
        "tokens",
        "kind",
        "ts_ms",
        "ts_local",
        "rank",
        "ordinal",
        "id",
        "project",
    )

    def __init__(
        self,
        approximate: float,
        frequencies: tuple[int, ...],
        tokens: int,
        kind: str,
        ts_ms: float | None,
        ts_local: int,
        rank: int,
        ordinal: int,
        id: int,
        project: str = "",
    ) -> None:
        self.approximate = approximate  # libm's score: within an ulp or two of V8's
        self.frequencies = frequencies  # of each query term, in query order
        self.tokens = tokens
        self.kind = kind
        self.ts_ms = ts_ms
        self.ts_local = ts_local
        self.rank = rank
        self.ordinal = ordinal
        self.id = id
        self.project = project  # across a portfolio: the root's path, which orders equal scores


class _Term:
    """One query term's groups in one band, highest tf first."""

    __slots__ = ("term_id", "place", "band", "groups", "position", "weight", "loaded")

    def __init__(self, term_id: int, place: int, band: int) -> None:
        self.term_id = term_id
        self.place = place  # position in the query
        self.band = band
        self.groups: list[tuple[int, int]] = []  # (tf, records)
        self.loaded: list[bytes | None] = []  # each group's record ids, when read with it
        self.position = 0  # the next group to read
        self.weight = 0.0  # its 1 + ln tf; 0 once the term is read to its end

    def records(self, conn: sqlite3.Connection, group: int) -> Sequence[int]:
        """The record ids of a group (by its position)."""
        blob = self.loaded[group]
        if blob is None:
            parts = conn.execute(
                "SELECT records FROM postings WHERE term = ? AND band = ? AND tf = ?",
                (self.term_id, self.band, self.groups[group][0]),
            )
            blob = b"".join(part for (part,) in parts)
        return postings.decode(blob)


class _Band:
    __slots__ = ("band", "factor", "terms", "places", "live", "total", "unread", "classes")

    def __init__(self, band: int, factor: float) -> None:
        self.band = band
        self.factor = factor
        self.terms: list[_Term] = []
        self.places: dict[int, _Term] = {}  # by query position
        self.live = 0
        self.total = 0.0  # Σ (1 + ln tf) over the live terms' next groups
        self.unread = 0  # postings in the groups not read
        self.classes: list[_Class] = []  # every record read, each in one

    def bound(self, width: int) -> float:
        return self.factor * (self.live / width) * self.total


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


class _Weights(dict[int, float]):
    """1 + ln tf by tf, computed on first use: a look-up costs less than a call."""

    def __missing__(self, tf: int) -> float:
        weight = self[tf] = 1.0 + math.log(tf)
        return weight


_WEIGHT = _Weights()


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
    files: RecallFiles,
    now_ms: float | None,
    limit: int | None,
    local_offset_ms: Callable[[float], float],
    floor: float = 0.0,
) -> list[score.Ranked]:
    """The records of `files` that can be among the best `limit` (all: None).

    Exact scores, unordered: the caller merges indexes and orders with score.order. In a
    portfolio index, each record's root (from `files`) orders equal scores. With a `floor`
    (and a limit), a record whose score cannot reach it may be left out.
    """
    width = len(terms)
    if not width or not files:
        return []
    ids = term_ids(conn, terms)
    bands: dict[int, _Band] = {}
    for place, term in enumerate(terms):
        term_id = ids.get(term)
        if term_id is not None:
            _load_groups(conn, bands, term_id, place, now_ms, width > 1)
    searcher = _Searcher(conn, terms, files, now_ms, limit, local_offset_ms, floor)
    searcher.run(bands.values())
    return searcher.exact()


def _load_groups(
    conn: sqlite3.Connection,
    bands: dict[int, _Band],
    term_id: int,
    place: int,
    now_ms: float | None,
    with_records: bool,
) -> None:
    """A term's groups in every band, highest tf first; the small ones with their records.

    A one-term query reads a few groups only: it takes none of their records up front.
    """
    current = _Term(term_id, place, -1)  # no band is negative
    # One row per part, in key order: a group's parts are consecutive and merged here, which
    # costs less than SQLite's GROUP BY and group_concat (most groups have a single part).
    if with_records:
        rows = conn.execute(
            "SELECT band, tf, length(records), CASE WHEN length(records) <= ? THEN records END"
            " FROM postings WHERE term = ? ORDER BY band DESC, tf DESC",
            (LOADED_BYTES, term_id),
        )
    else:
        rows = conn.execute(
            "SELECT band, tf, length(records), NULL FROM postings WHERE term = ?"
            " ORDER BY band DESC, tf DESC",
            (term_id,),
        )
    groups = current.groups
    last_tf = 0
    for band, tf, size, blob in rows:
        if band != current.band:
            state = bands.get(band) or bands.setdefault(band, _Band(band, _factor(band, now_ms)))
            current = _Term(term_id, place, band)
            current.weight = _WEIGHT[tf]
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


def _cheapest(terms: list[_Term], matched: int, total: float) -> _Term:
    """The term whose next group lowers matched × total most per record read.

    `total` holds each live term's next weight; a term read to its end no longer counts.
    """
    best = terms[0]
    best_gain = -1.0
    now = matched * total
    for term in terms:
        groups = term.groups
        position = term.position
        if position == len(groups):
            continue  # read to its end
        tf, size = groups[position]
        if position + 1 < len(groups):
            after = matched * (total - _WEIGHT[tf] + _WEIGHT[groups[position + 1][0]])
        else:
            after = (matched - 1) * (total - _WEIGHT[tf])
        gain = (now - after) / (size or 1)
        if gain > best_gain:
            best, best_gain = term, gain
    return best


class _Searcher:
    """The records read so far, their approximate scores, and the limit-th best of them."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        files: RecallFiles,
        now_ms: float | None,
        limit: int | None,
        local_offset_ms: Callable[[float], float],
        floor: float = 0.0,
    ) -> None:
        self.conn = conn
        self.local_offset_ms = local_offset_ms
        self.terms = [term.encode("latin-1") for term in terms]
        self.spaced_terms = [b" " + term + b" " for term in self.terms]
        self.files = files
        self.now_ms = now_ms
        self.limit = limit
        self.found: list[Candidate] = []
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

    def _push(self, bound: float, state: _Band, waiting: _Class | None) -> None:
        if not self.settled(bound):
            self.pushes += 1
            heapq.heappush(self.queue, (-bound, self.pushes, state, waiting))
        elif waiting is not None:
            waiting.done = True  # out of the top for good: bounds only fall, the top rises

    def run(self, bands: Iterable[_Band]) -> None:
        """Take the best bound of the queue until no entry left can reach the top."""
        width = len(self.terms)
        for state in bands:
            self._push(state.bound(width), state, None)
        queue = self.queue
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
                bound = state.bound(width)
                if bound < following:
                    self._push(bound, state, None)
                    continue
                if state.unread <= POSTINGS_PER_TEXT:
                    # All of it costs less than a text: no bound is looked at in between.
                    for term in state.terms:
                        while term.weight:
                            self._read(state, term)
                    continue
                self._read(state, _cheapest(state.terms, state.live, state.total))
                self._push(state.bound(width), state, None)
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
            term = _cheapest(unknown, matched, total)
            # Without a limit nothing is ever pruned and every posting is read in the end.
            if self.limit is not None and (
                self.threshold == -math.inf
                or len(waiting.ids) * POSTINGS_PER_TEXT <= term.groups[term.position][1]
            ):
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
            weight = places[place].weight
            if weight:
                total -= weight  # live: counted in the band's
            else:
                matched += 1
            total += _WEIGHT[tf]
        return state.factor * (matched / len(self.terms)) * total, matched, total

    def _read(self, state: _Band, term: _Term) -> None:
        """A term's next group in a band: its records are known to hold the term with its tf.

        Each class it meets splits in two; the records no class holds make a new one.
        """
        before = state.bound(len(self.terms))  # of the new records: they were unread
        groups = term.groups
        position = term.position
        tf, size = groups[position]
        fresh = set(term.records(self.conn, position))
        state.unread -= size
        term.position = position = position + 1
        if position < len(groups):
            term.weight = _WEIGHT[groups[position][0]]
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
        places = range(len(self.terms))
        known = {
            record_id: tuple(map(waiting.known.get, places, repeat(0)))
            for waiting in self.known
            for record_id in waiting.ids
        }
        if known:
            for row in self.conn.execute(
                f"SELECT {_COLUMNS} FROM records WHERE id IN (SELECT value FROM json_each(?))",
                (_json_ids(known),),
            ):
                self._score(row, known[row[0]])
        texts = [record_id for waiting in self.texts for record_id in waiting.ids]
        if texts:
            for row in self.conn.execute(
                f"SELECT {_COLUMNS}, text FROM records"
                " WHERE id IN (SELECT value FROM json_each(?))",
                (_json_ids(texts),),
            ):
                # Each token between two spaces, once the spaces are doubled: counting
                # " term " counts the tokens equal to the term, no other token is made.
                spaced = b" " + parse.token_bytes(row[7]).replace(b" ", b"  ") + b" "
                self._score(row, tuple(map(spaced.count, self.spaced_terms)))
        self.known = []
        self.texts = []
        self.taken = 0

    def _score(self, row: tuple[Any, ...], frequencies: tuple[int, ...]) -> None:
        record_id, file_id, ordinal, kind, tokens, ts_ms, ts_local = row[:7]
        source = self.files.get(file_id)
        if source is None:
            return
        rank, project = source
        hits = 0.0
        matched = 0
        for frequency in frequencies:
            if frequency:
                matched += 1
                hits += _WEIGHT[frequency]
        value = hits * (matched / len(frequencies)) / math.sqrt(tokens)
        ts_local = ts_local or 0
        if kind == "event" and self.now_ms is not None:
            event_ms = js.instant_ms(ts_ms, ts_local, self.local_offset_ms)
            if event_ms is not None and self.now_ms > event_ms:
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
                project,
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
        else:
            return
        if len(self.best) == self.limit:
            self.threshold = max(self.best[0], self.floor)

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
                event_ms = js.instant_ms(candidate.ts_ms, candidate.ts_local, self.local_offset_ms)
                value = score.decayed(value, event_ms, self.now_ms)
            ranked.append(
                score.Ranked(
                    value, candidate.rank, candidate.ordinal, candidate.id, candidate.project
                )
            )
        return ranked
