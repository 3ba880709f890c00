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
text. Settling them (resolve) goes in rounds against a falling guess of the top's floor:
in each band it reads the groups of the common terms that leave the least to do (their
postings, plus a text for each record still above the guess: _plan), and a round's texts
are scored best first across the bands, so the floor rises before the next, lower guess.
A record whose bound cannot reach the guess is never read for, only for the floor, in the
last round. With three query terms or more, the first records read rarely hold most of them and
the top they fill is low: the small groups read after that also wait in the queue, at
their own bound, and when no band can beat it they are scored from their text (a few
dozen records), which raises the top's floor before the long settling. A query whose
postings are few and all loaded skips the queue: every band is read in one pass
(read_all). The records within a relative 1e-9 of the last place are rescored with V8's
arithmetic (mem.core.jsmath), so scores, ties and order are the reference's.

Functions take a connection and return ranked records: no state outlives a call.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain, repeat
from operator import itemgetter

from mem.core import parse, score
from mem.index import postings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import KeysView
    from typing import Any

# Far wider than any rounding difference between libm, V8 and the bound's own arithmetic.
EPSILON = 1e-9
_FRESHER = math.log(0.5) / (score.HALF_LIFE_DAYS * score.DAY_MS)
_COLUMNS = "id, file_id, ordinal, kind, tokens, ts_ms, ts_local"


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

    __slots__ = ("term_id", "place", "band", "groups", "position", "unread", "loaded")

    def __init__(self, term_id: int, place: int, band: int) -> None:
        self.term_id = term_id
        self.place = place  # position in the query
        self.band = band
        self.groups: list[tuple[int, int]] = []  # (tf, records)
        self.loaded: list[bytes | None] = []  # each group's record ids, when read with it
        self.position = 0
        self.unread = 0  # records in the groups from `position` on

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
    __slots__ = ("band", "factor", "terms", "live", "total")

    def __init__(self, band: int, factor: float) -> None:
        self.band = band
        self.factor = factor
        self.terms: list[_Term] = []
        self.live = 0
        self.total = 0.0  # Σ (1 + ln tf) over the live terms' next groups

    def bound(self, width: int) -> float:
        return self.factor * (self.live / width) * self.total


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
        if term_id is not None:
            _load_groups(conn, bands, term_id, place, now_ms, width > 1)
    searcher = _Searcher(conn, terms, files, now_ms, limit, local_offset_ms, projects or {})
    if width > 1 and _all_loaded_and_few(bands):
        searcher.read_all(bands)
        return searcher.exact()
    # (-bound, band, -1) for a band's unread records; (-bound, band, slot) for a small group
    # read once the top was full, whose records wait in `early[slot]`: when no band can
    # beat its bound they are scored from their text, which raises the top's floor sooner
    # than waiting for resolve would.
    queue = [(-state.bound(width), band, -1) for band, state in bands.items()]
    heapq.heapify(queue)
    early: list[Sequence[int]] = []
    while queue:
        highest, band, slot = heapq.heappop(queue)
        if searcher.settled(-highest):
            break
        if slot >= 0:
            # With the other waiting groups no band can beat either: one statement for all.
            groups = [early[slot]]
            while queue and queue[0][2] >= 0 and not searcher.settled(-queue[0][0]):
                groups.append(early[heapq.heappop(queue)[2]])
            searcher.score_early(chain.from_iterable(groups))
            continue
        state = bands[band]
        chosen = _cheapest(state, width)
        tf, size = chosen.groups[chosen.position]
        if width > 1 and _whole_band_is_cheaper(state, size):
            searcher.read_band(state)
            continue
        group = chosen.records(conn, chosen.position)
        waits = searcher.read(group, tf, band, chosen.place)
        chosen.position += 1
        chosen.unread -= size
        state.total -= _WEIGHT[tf]
        if chosen.position < len(chosen.groups):
            following = _WEIGHT[chosen.groups[chosen.position][0]]
            state.total += following
            matched = state.live
        else:
            following = 0.0
            state.live -= 1
            matched = state.live + 1
        if waits and size <= EARLY_TEXT and searcher.early_budget > 0:
            searcher.early_budget -= size
            # Its records hold the term with this tf, the band's other terms at most at
            # their frontiers (a priority: resolve bounds them exactly).
            bound = state.factor * (matched / width) * (state.total - following + _WEIGHT[tf])
            heapq.heappush(queue, (-bound, band, len(early)))
            early.append(group)
        if state.live:
            heapq.heappush(queue, (-state.bound(width), band, -1))
    searcher.resolve(bands)
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
            state = bands.get(band)
            if state is None:
                state = bands[band] = _Band(band, _factor(band, now_ms))
            current = _Term(term_id, place, band)
            groups = current.groups
            state.terms.append(current)
            state.live += 1
            state.total += _WEIGHT[tf]
        elif tf == last_tf:
            # Another part of the group: its records are loaded only if every part was.
            count = groups[-1][1] + size // 8
            groups[-1] = (tf, count)
            loaded = current.loaded[-1]
            both = loaded + blob if loaded is not None and blob is not None else None
            current.loaded[-1] = both if both is not None and len(both) <= LOADED_BYTES else None
            current.unread += size // 8
            continue
        last_tf = tf
        groups.append((tf, size // 8))
        current.loaded.append(blob)
        current.unread += size // 8


# Groups up to this size come with the term's first statement; bigger ones when read.
LOADED_BYTES = 4096
# Scoring a record from its text costs about as much as reading this many postings.
TEXT_COST = 16
# ... or as checking this many postings against a set of waiting records (in C).
POSTINGS_PER_TEXT = 128
# Groups read once the top was full of up to this many records are scored early.
EARLY_TEXT = 32
EARLY_RECORDS = 64
# Reads of a band's groups for its waiting records, before the rest are scored from text.
SETTLE_STEPS = 8
# Waiting records of a band this few are scored from their text without planning reads.
FEW_TEXTS = 4
# Waiting records scored from their text per statement, before the floor is looked at again.
TEXT_CHUNK = 16
# Each round of settling guesses the top's floor this much lower than the last.
GUESS_RATIO = 0.8
# Records of a band held with two terms or more: found pairwise up to this many terms.
PAIRWISE_TERMS = 8


_BAND_SHIFT = 32
_TF = (1 << _BAND_SHIFT) - 1


# A query whose postings are all loaded and this few reads them all at once, every band in
# one pass: fewer statements and less bookkeeping than the band-by-band search.
FEW_POSTINGS = 4096


def _all_loaded_and_few(bands: Mapping[int, _Band]) -> bool:
    total = 0
    for state in bands.values():
        for term in state.terms:
            if None in term.loaded:
                return False
            total += term.unread
    return total <= FEW_POSTINGS


def _whole_band_is_cheaper(state: _Band, size: int) -> bool:
    """Read every unread group of the band at once rather than one group and its texts?"""
    return sum(term.unread for term in state.terms) <= TEXT_COST * size


def _cheapest(state: _Band, width: int) -> _Term:
    """The live term whose next group lowers the band's bound most per record read."""
    best: _Term | None = None
    best_gain = -1.0
    total = state.total
    live = state.live
    now = live * total  # the bound over factor / width, the same for every term
    for term in state.terms:
        groups = term.groups
        position = term.position
        if position == len(groups):
            continue
        tf, size = groups[position]
        if position + 1 < len(groups):
            after = live * (total - _WEIGHT[tf] + _WEIGHT[groups[position + 1][0]])
        else:
            after = (live - 1) * (total - _WEIGHT[tf])
        gain = (now - after) / (size or 1)
        if gain > best_gain:
            best, best_gain = term, gain
    assert best is not None, "a band in the queue has a live term"
    return best


# Waiting records known to hold the same: (query position -> tf, their ids).
_Class = tuple[dict[int, int], set[int]]


def _split(
    classes: list[_Class], groups: list[tuple[int, int, Sequence[int]]], waiting: set[int]
) -> list[_Class]:
    """The classes refined by the groups read: those a group holds know its term's tf.

    `waiting` holds every record of the classes (and may hold more).
    """
    for place, tf, records in groups:
        # Only the waiting records a group holds: a big group is never made a set.
        members = waiting.intersection(records)
        if not members:
            continue
        refined = []
        for known, ids in classes:
            if place in known or members.isdisjoint(ids):
                refined.append((known, ids))
                continue
            held = ids & members
            refined.append(({**known, place: tf}, held))
            if len(held) < len(ids):
                ids -= held  # in place: a class's set is its own (see resolve)
                refined.append((known, ids))
        classes = refined
    return classes


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
        self.spaced_terms = [b" " + term + b" " for term in self.terms]
        self.files = files
        self.now_ms = now_ms
        self.limit = limit
        self.seen: set[int] = set()  # scored, or proven out of the top
        # Groups read once the top was full, by band: (query position, tf, record ids). Their
        # records wait with what they are known to hold until the bounds have fallen as far
        # as they will.
        self.pending: dict[int, list[tuple[int, int, Sequence[int]]]] = {}
        self.found: list[Candidate] = []
        # Records that may still be scored early, from their text (see search): with three
        # terms or more, the first records read rarely hold most of them, and the top's
        # floor they set stays far below the answer's.
        early = EARLY_RECORDS if limit is None else min(EARLY_RECORDS, 8 * limit)
        self.early_budget = early if len(terms) >= 3 else 0
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

    def read(self, group: Sequence[int], tf: int, band: int, place: int) -> bool:
        """A group's new records: scored at once while the top is not full, else pending.

        True when they wait.
        """
        seen = self.seen
        if len(self.terms) > 1 and self.threshold() > -math.inf:
            self.pending.setdefault(band, []).append((place, tf, group))
            return True
        new = [record_id for record_id in group if record_id not in seen]
        if new:
            seen.update(new)
            self._score_records(new, (tf,) if len(self.terms) == 1 else None)
        return False

    def score_early(self, records: Iterable[int]) -> None:
        """Score waiting records from their text now (those not scored yet)."""
        seen = self.seen
        new = list(dict.fromkeys(record_id for record_id in records if record_id not in seen))
        if new:
            seen.update(new)
            self._score_records(new, None)

    def _score_records(self, ids: list[int], frequencies: tuple[int, ...] | None) -> None:
        """Score records from their text (or with the frequencies given for them all)."""
        rows = self.conn.execute(
            f"SELECT {_COLUMNS}{'' if frequencies else ', text'} FROM records"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (_json_ids(ids),),
        )
        for row in rows:
            if frequencies is None:
                # Each token between two spaces, once the spaces are doubled: counting
                # " term " counts the tokens equal to the term, no other token is made.
                spaced = b" " + parse.token_bytes(row[7]).replace(b" ", b"  ") + b" "
                self._score(row, tuple(map(spaced.count, self.spaced_terms)))
            else:
                self._score(row, frequencies)

    def resolve(self, bands: Mapping[int, _Band]) -> None:
        """Settle the waiting records: the best bounds first, each band's on its own.

        A waiting record's bound counts each term it was not read with at the band's
        frontier; reading that term's next group (its highest tf still unread, usually
        few records) lowers the frontier for all of them at once, so it is read while that
        costs less than scoring the records from their text. Records known to hold the
        same are bounded together, as one class.
        """
        pending = self.pending
        self.pending = {}
        queue = []
        held: dict[int, set[int]] = {}  # by band: its waiting records (and some scored since)
        for band, groups in pending.items():
            state = bands[band]
            waiting = set().union(*(records for _, _, records in groups)).difference(self.seen)
            bounded = self._bounded(state, _split([({}, set(waiting))], groups, waiting))
            if bounded:
                queue.append((bounded[0][0], band, bounded))
                held[band] = waiting
        # The top's floor is still low here; settled against it, the bands would read
        # and score far more than the answer needs. Each round settles every band down to a
        # guess of the floor (a share of the best bound left), scoring what reaches the
        # guess: the floor rises with it, and the records below the guess wait for the next,
        # lower one. The last round's guess is the floor itself.
        guess = max((best for best, _, _ in queue), default=0.0)
        while queue:
            guess *= GUESS_RATIO
            queue.sort(key=itemgetter(0), reverse=True)
            later = []
            texts = []
            for best, band, bounded in queue:
                if self.settled(best):
                    continue
                bounded = self._settle(bands[band], bounded, guess, held[band])
                floor = max(guess, self.threshold()) * (1 - 4 * EPSILON)
                texts += [(bound, ids) for bound, (_, ids) in bounded if bound >= floor]
                left = [item for item in bounded if item[0] < floor]
                if left:
                    later.append((left[0][0], band, left))
            # Scored best first across the bands, so that the floor rises the soonest.
            records = sorted((bound, record_id) for bound, ids in texts for record_id in ids)
            records.reverse()
            for start in range(0, len(records), TEXT_CHUNK):
                chunk = records[start : start + TEXT_CHUNK]
                if self.settled(chunk[0][0]):
                    break
                least = self.threshold() * (1 - 4 * EPSILON)
                self._score_records(
                    [record_id for bound, record_id in chunk if bound >= least], None
                )
            queue = later

    def _bounded(self, state: _Band, classes: list[_Class]) -> list[tuple[float, _Class]]:
        """(bound, class) of the classes of waiting records that can reach the top, best first."""
        frontier = [0.0] * len(self.terms)  # by query position: 0 once a term is read
        for term in state.terms:
            if term.position < len(term.groups):
                frontier[term.place] = _WEIGHT[term.groups[term.position][0]]
        unknown = sum(frontier)
        live = len(frontier) - frontier.count(0.0)
        factor = state.factor / len(self.terms)
        floor = self.threshold() * (1 - 4 * EPSILON)
        bounded = []
        for held in classes:
            total = unknown
            matched = live
            for place, tf in held[0].items():
                weight = frontier[place]
                if weight:
                    total -= weight
                else:
                    matched += 1
                total += _WEIGHT[tf]
            bound = total * matched * factor
            if bound >= floor:
                bounded.append((bound, held))
        bounded.sort(key=itemgetter(0), reverse=True)
        return bounded

    def _settle(
        self, state: _Band, bounded: list[tuple[float, _Class]], guess: float, waiting: set[int]
    ) -> list[tuple[float, _Class]]:
        """Lower the frontiers of a band until the records that may reach `guess` are known.

        Each step reads the groups that leave the least to do (see _plan): a term read to
        its end is known for every waiting record, and those that lack it lose its coverage
        too. Returns the classes that may still reach the top, best first: those above the
        guess are then scored from their text.
        """
        for _ in range(SETTLE_STEPS):
            floor = max(guess, self.threshold()) * (1 - 4 * EPSILON)
            if not bounded or bounded[0][0] < floor:
                break
            if all(term.position == len(term.groups) for term in state.terms):
                # Every group of the band was read: what they are known to hold is all.
                self._score_known([held for _, held in bounded])
                return []
            active = [item for item in bounded if item[0] >= floor]
            if sum(len(ids) for _, (_, ids) in active) <= FEW_TEXTS:
                break  # fewer texts than a plan and its reads cost in Python
            plan = self._plan(state, active, floor)
            if not plan:
                break
            groups = []
            for term, end in plan:
                groups += [
                    (term.place, term.groups[group][0], term.records(self.conn, group))
                    for group in range(term.position, end)
                ]
                term.unread -= sum(size for _, size in term.groups[term.position : end])
                term.position = end
            bounded = self._bounded(state, _split([held for _, held in bounded], groups, waiting))
        return bounded

    def _plan(
        self, state: _Band, bounded: list[tuple[float, _Class]], floor: float
    ) -> list[tuple[_Term, int]]:
        """The reads that leave the least to settle: (term, groups up to) of each; [] for none.

        Settling costs the postings read plus POSTINGS_PER_TEXT for each waiting record
        whose bound still reaches the top, which is then scored from its text. Reads are
        added one group at a time, the one that lowers the best remaining class's bound most
        per record read: no single term lowers it far enough when the class holds several
        common ones. The plan is the cheapest point on that path. The estimate takes no
        waiting record to be in the groups read (few are): the bounds are then recomputed
        from what the groups hold.
        """
        live = [term for term in state.terms if term.position < len(term.groups)]
        factor = state.factor / len(self.terms)
        # Per class: records, Σ weights known, terms known, the live terms it does not know.
        classes = []
        waiting = 0
        for _, (known, ids) in bounded:
            unknown = [index for index, term in enumerate(live) if term.place not in known]
            classes.append(
                (len(ids), sum(map(_WEIGHT.__getitem__, known.values())), len(known), unknown)
            )
            waiting += len(ids)
        positions = [term.position for term in live]
        weights = [_WEIGHT[term.groups[term.position][0]] for term in live]

        def remaining(weights: list[float]) -> tuple[int, list[int], float, int]:
            """Records still above the floor, and the best lowerable class's terms, Σ, count."""
            left = 0
            top = -1.0
            top_unknown: list[int] = []
            top_total = 0.0
            top_matched = 0
            for count, total, matched, unknown in classes:
                lowerable = False
                for index in unknown:
                    weight = weights[index]
                    if weight:
                        total += weight
                        matched += 1
                        lowerable = True
                bound = total * matched * factor
                if bound >= floor:
                    left += count
                    if lowerable and bound > top:
                        top, top_unknown, top_total, top_matched = bound, unknown, total, matched
            return left, top_unknown, top_total, top_matched

        best = list(positions)
        best_cost = POSTINGS_PER_TEXT * waiting
        spent = 0
        left, top_unknown, top_total, top_matched = remaining(weights)
        while top_unknown:
            # Each next group of the best class's terms: is stopping after it the cheapest
            # yet? The path goes on with the one that lowers that class's bound most per
            # record read.
            now = top_matched * top_total
            choice = -1
            gain = -1.0
            for index in top_unknown:
                weight = weights[index]
                if not weight:
                    continue
                groups = live[index].groups
                position = positions[index]
                size = groups[position][1]
                if spent + size >= best_cost:
                    continue
                following = _WEIGHT[groups[position + 1][0]] if position + 1 < len(groups) else 0.0
                weights[index] = following
                cost = spent + size + POSTINGS_PER_TEXT * remaining(weights)[0]
                weights[index] = weight
                if cost < best_cost:
                    best, best_cost = list(positions), cost
                    best[index] += 1
                if following:
                    after = top_matched * (top_total - weight + following)
                else:
                    after = (top_matched - 1) * (top_total - weight)
                per_record = (now - after) / (size or 1)
                if per_record > gain:
                    choice, gain = index, per_record
            if choice < 0:
                break
            groups = live[choice].groups
            position = positions[choice]
            spent += groups[position][1]
            positions[choice] = position = position + 1
            weights[choice] = _WEIGHT[groups[position][0]] if position < len(groups) else 0.0
            left, top_unknown, top_total, top_matched = remaining(weights)
        return [
            (term, best[index]) for index, term in enumerate(live) if best[index] > term.position
        ]

    def _score_known(self, classes: list[_Class]) -> None:
        """Score records whose frequencies are all known (a term not among them: 0)."""
        known = {record_id: held for held, ids in classes for record_id in ids}
        places = range(len(self.terms))
        for row in self.conn.execute(
            f"SELECT {_COLUMNS} FROM records WHERE id IN (SELECT value FROM json_each(?))",
            (_json_ids(known),),
        ):
            frequencies = known[row[0]]
            self._score(row, tuple(frequencies.get(place, 0) for place in places))

    def read_band(self, state: _Band) -> None:
        """Every unread group of a band at once: frequencies from the postings, no text read."""
        width = len(self.terms)
        seen = self.seen
        live = []
        for term in state.terms:
            if term.position < len(term.groups):
                # A term with no group left: every record of the band holding it was read.
                live.append(term)
                term.position = len(term.groups)
                term.unread = 0
        state.live = 0
        found: list[dict[int, int]] = [{} for _ in range(width)]
        waiting = self.pending.pop(state.band, [])
        for place, tf, records in waiting:
            found[place].update(zip(records, repeat(tf)))
        for term in live:
            for group, (tf, _) in enumerate(term.groups):
                found[term.place].update(zip(term.records(self.conn, group), repeat(tf)))
        lookups = [frequencies.get for frequencies in found if frequencies]
        factor = state.factor / width
        floor = self.threshold() * (1 - 4 * EPSILON)
        if floor == -math.inf:
            everyone = set().union(*found)
        else:
            # A record held with one term only scores at most (1 + ln tf) × factor: the
            # groups whose tf cannot reach the top are passed over whole.
            everyone = _held_by_several([counts.keys() for counts in found if counts])
            for term in live:
                for group, (tf, _) in enumerate(term.groups):
                    if _WEIGHT[tf] * factor >= floor:
                        everyone.update(term.records(self.conn, group))
            for _, tf, records in waiting:
                if _WEIGHT[tf] * factor >= floor:
                    everyone.update(records)
        # Bounds from the postings alone (exact for notes of an exact-length band), best first.
        bounded = []
        for record_id in everyone.difference(seen):
            hits = 0.0
            matched = 0
            for lookup in lookups:
                tf = lookup(record_id, 0)
                if tf:
                    matched += 1
                    hits += _WEIGHT[tf]
            bounded.append((hits * matched * factor, record_id))
        bounded.sort(reverse=True)
        self._score_bounded(bounded, found)

    def read_all(self, bands: Mapping[int, _Band]) -> None:
        """Every group of every band at once (all loaded): frequencies from the postings.

        The records held with two terms or more are bounded and scored first, best first;
        then the records held with one term only, group by group while a group's bound
        (1 + ln tf) × the band's factor / |Q| still reaches the top.
        """
        width = len(self.terms)
        # record id -> its band's position in `factors` << 32 | tf: one dict per term
        # holds both, as a record lies in one band only.
        found: list[dict[int, int]] = [{} for _ in range(width)]
        factors: list[float] = []
        singles = []
        for state in bands.values():
            factor = state.factor / width
            code = len(factors) << _BAND_SHIFT
            factors.append(factor)
            for term in state.terms:
                into = found[term.place]
                for group, (tf, _) in enumerate(term.groups):
                    records = term.records(self.conn, group)
                    into.update(zip(records, repeat(code | tf)))
                    singles.append((_WEIGHT[tf] * factor, records))
                term.position = len(term.groups)
                term.unread = 0
            state.live = 0
        lookups = [frequencies.get for frequencies in found if frequencies]
        several = _held_by_several([frequencies.keys() for frequencies in found if frequencies])
        bounded = []
        for record_id in several:
            hits = 0.0
            matched = 0
            coded = 0
            for lookup in lookups:
                value = lookup(record_id, 0)
                if value:
                    matched += 1
                    hits += _WEIGHT[value & _TF]
                    coded = value
            bounded.append((hits * matched * factors[coded >> _BAND_SHIFT], record_id))
        bounded.sort(reverse=True)
        self._score_bounded(bounded, found, _TF)
        # Held with one term only: scores at most the group's bound.
        singles.sort(key=itemgetter(0), reverse=True)
        floor = self.threshold() * (1 - 4 * EPSILON)
        bounded = []
        seen = self.seen
        for bound, records in singles:
            if bound < floor:
                break
            bounded.extend((bound, record_id) for record_id in records if record_id not in seen)
        self._score_bounded(bounded, found, _TF)

    def _score_bounded(
        self, bounded: list[tuple[float, int]], found: list[dict[int, int]], mask: int = -1
    ) -> None:
        """Score records, best bound first, with their frequencies from `found` (by place).

        The first chunk is as big as the top, so that the next ones are already pruned.
        """
        self.seen.update(record_id for _, record_id in bounded)
        width = len(self.terms)
        places = [(place, held.get) for place, held in enumerate(found) if held]
        start = 0
        size = self.limit or 64
        while start < len(bounded):
            chunk = bounded[start : start + size]
            start += size
            size = 64
            if self.settled(chunk[0][0]):
                break
            floor = self.threshold() * (1 - 4 * EPSILON)
            wanted = [record_id for bound, record_id in chunk if bound >= floor]
            for row in self.conn.execute(
                f"SELECT {_COLUMNS} FROM records WHERE id IN (SELECT value FROM json_each(?))",
                (_json_ids(wanted),),
            ):
                frequencies = [0] * width
                for place, lookup in places:
                    frequencies[place] = lookup(row[0], 0) & mask
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
                hits += _WEIGHT[frequency]
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


def _held_by_several(present: list[KeysView[int]]) -> set[int]:
    """The records that more than one of the terms' record sets hold."""
    if len(present) <= PAIRWISE_TERMS:
        several: set[int] = set()
        for first, held in enumerate(present):
            for other in present[first + 1 :]:
                several |= held & other
        return several
    held_by = Counter(chain.from_iterable(present))
    return {record_id for record_id, terms in held_by.items() if terms > 1}
