"""Which active notes likely amend an earlier one: the same subject, and newer. Pure.

Two notes cover the same subject when their words weigh alike: the cosine of their term
vectors (mem.core.text.tokens' terms, each weighted (1 + ln tf) × idf, function words and
numbers left out; a heading's words count tokens.HEADING_WEIGHT times, as in bm25), plus
half the share of heading words they have in common (Jaccard). On bench/amendments/ (real
decision records whose authors marked 20 later records as superseding or amending earlier
ones) a marked pair scores from 0.14 to 0.9; two unrelated records of the same project
score below 0.1 nine times out of ten. Which one is newer is the caller's: the index orders
notes by the date a heading starts with, then the later section (mem.index.notes_by_recency).
"""

from __future__ import annotations

import functools
import heapq
import math

from mem.core.text import parse, tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence, Set

SAME_SUBJECT = 0.24  # a likeness from which two notes are taken to cover the same subject
# ... and to be one decision taken again (most heading words and much of the text in common:
# on bench/amendments/, a record repeated under its title scores 0.64 to 0.91).
SAME_DECISION = 0.6
HEADING_SHARE = 0.5  # the weight of the share of heading words in common
SHOWN_TERMS = 5  # shared terms a reason names, heaviest first
# `mem check amendments`, which looks for pairs over every note: each note's heaviest terms
# find its candidates, of which the likeliest few are scored exactly.
SIGNATURE_TERMS = 16
CANDIDATES = 6
HOLDERS_AT_MOST = 64  # a heavy term of more notes than this finds no candidates
# A pair is listed when one of its notes is among the other's NEIGHBOURS likeliest. One
# note may decide again what several earlier ones decided (FAC's "UEI required for
# submission" supersedes four), and those are more like one another than like it. Of
# bench/amendments/' 26 marked pairs, at 2: 23 listed among 326 pairs; at 3: 25 among 358;
# at 4: 25 among 371.
NEIGHBOURS = 3


# Plain classes rather than NamedTuples: a bm25 recall imports this module, and typing
# (with re and enum) would be most of what it costs to import.
class Subject:
    """What a note is about: its heading's terms and its unit vector of term weights."""

    __slots__ = ("id", "heading", "weights")

    def __init__(self, record_id: int, heading: frozenset[str], weights: dict[str, float]) -> None:
        self.id = record_id
        self.heading = heading
        self.weights = weights


class Likeness:
    __slots__ = ("score", "shared", "heading")

    def __init__(self, score: float, shared: tuple[str, ...], heading: tuple[str, ...]) -> None:
        self.score = score  # cosine + HEADING_SHARE × heading words in common / heading words
        # Below SAME_SUBJECT, both empty:
        self.shared = shared  # the terms that weigh most in both, heaviest first
        self.heading = heading  # the heading terms both have, in order


class Amendment:
    __slots__ = ("older", "newer", "likeness")

    def __init__(self, older: int, newer: int, likeness: Likeness) -> None:
        self.older = older
        self.newer = newer
        self.likeness = likeness


@functools.cache
def _stop_terms() -> frozenset[str]:
    return frozenset(tokens.terms(" ".join(parse.FUNCTION_WORDS)))


def _content(term: str) -> bool:
    return len(term) > 1 and not term.isdigit() and term not in _stop_terms()


def counts(heading: str, text: str) -> dict[str, int]:
    """A note's content terms -> weighted frequency (heading words count more, as in bm25)."""
    return {term: tf for term, tf in tokens.counts(text, heading).items() if _content(term)}


def subject(
    record_id: int, heading: str, counted: Mapping[str, int], df: Mapping[str, int], records: int
) -> Subject:
    """A note's subject from its counts, idf from `records` notes of which `df[t]` hold t."""
    weights = {}
    for term, tf in counted.items():
        held = min(max(df.get(term, 1), 1), records)
        weights[term] = (1 + math.log(tf)) * math.log(1 + (records - held + 0.5) / (held + 0.5))
    norm = math.sqrt(math.fsum(value * value for value in weights.values())) or 1.0
    unit = {term: value / norm for term, value in weights.items()}
    heading_terms = frozenset(term for term in tokens.terms(heading) if _content(term))
    return Subject(record_id, heading_terms, unit)


def heaviest(item: Subject, count: int) -> list[str]:
    """A note's `count` heaviest terms, heaviest first (ties by term)."""
    return [term for term, _ in heapq.nlargest(count, item.weights.items(), key=_weight_then_term)]


def likeness(one: Subject, two: Subject) -> Likeness:
    small, large = sorted((one.weights, two.weights), key=len)
    products = {term: value * large[term] for term, value in small.items() if term in large}
    cosine = math.fsum(products.values())
    both = one.heading | two.heading
    common = one.heading & two.heading
    share = len(common) / len(both) if both else 0.0
    score = round(cosine + HEADING_SHARE * share, 4)
    if score < SAME_SUBJECT:  # no reason to give: most pairs met are of no subject
        return Likeness(score, (), ())
    heaviest = sorted(products, key=lambda term: (-products[term], term))[:SHOWN_TERMS]
    return Likeness(score, tuple(heaviest), tuple(sorted(common)))


def among(
    subjects: Sequence[Subject], newest_first: Sequence[int], olders: Set[int] | None = None
) -> dict[int, list[Amendment]]:
    """Older note id (of `olders` when given) -> the newer notes on its subject, likeliest
    first, within a few notes (a recall's candidates, a brief): every such pair is scored."""
    place = {record_id: position for position, record_id in enumerate(newest_first)}
    ordered = sorted((item for item in subjects if item.id in place), key=lambda s: place[s.id])
    found: dict[int, list[Amendment]] = {}
    for position, newer in enumerate(ordered):
        for older in ordered[position + 1 :]:
            if olders is not None and older.id not in olders:
                continue
            alike = likeness(newer, older)
            if alike.score >= SAME_SUBJECT:
                found.setdefault(older.id, []).append(Amendment(older.id, newer.id, alike))
    for pairs in found.values():
        pairs.sort(key=lambda pair: (-pair.likeness.score, place[pair.newer]))
    return found


def newer_first(order: Iterable[int], amended: Mapping[int, Sequence[Amendment]]) -> list[int]:
    """`order` with each amended note's newer notes just before it, likeliest first (taken
    from where they were, or added when they were not there); nothing else moves."""
    placed: list[int] = []
    seen: set[int] = set()

    def place(record_id: int, chain: tuple[int, ...]) -> None:
        for amendment in amended.get(record_id, ()):
            if amendment.newer not in chain and amendment.newer not in seen:
                place(amendment.newer, (*chain, record_id))
        if record_id not in seen:
            seen.add(record_id)
            placed.append(record_id)

    for record_id in order:
        place(record_id, ())
    return placed


def likely_pairs(subjects: Sequence[Subject], newest_first: Sequence[int]) -> list[Amendment]:
    """The likely amendments over many notes, likeliest first, without scoring every pair:
    each note's candidates share one of its SIGNATURE_TERMS heaviest terms; the CANDIDATES
    of them with the most of its weight are scored exactly. A pair is kept when it covers
    the same subject and one of its notes is among the other's NEIGHBOURS likeliest."""
    place = {record_id: position for position, record_id in enumerate(newest_first)}
    by_id = {item.id: item for item in subjects if item.id in place}
    signatures = {
        item.id: [(term, item.weights[term]) for term in heaviest(item, SIGNATURE_TERMS)]
        for item in by_id.values()
    }
    holders: dict[str, list[tuple[int, float]]] = {}
    for record_id, signature in signatures.items():
        for term, value in signature:
            holders.setdefault(term, []).append((record_id, value))
    neighbours: dict[int, list[tuple[float, int]]] = {}
    scored: dict[tuple[int, int], Likeness] = {}
    for record_id in sorted(by_id, key=place.__getitem__):
        overlap: dict[int, float] = {}
        for term, value in signatures[record_id]:
            if len(holders[term]) > HOLDERS_AT_MOST:
                continue  # a word of so many notes names no subject
            for other, other_value in holders[term]:
                if other != record_id:
                    overlap[other] = overlap.get(other, 0.0) + value * other_value
        nearest = heapq.nlargest(CANDIDATES, overlap.items(), key=lambda item: (item[1], -item[0]))
        ranked = []
        for other, _ in nearest:
            key = (min(record_id, other), max(record_id, other))
            if key not in scored:
                scored[key] = likeness(by_id[key[0]], by_id[key[1]])
            ranked.append((scored[key].score, other))
        ranked.sort(key=lambda item: (-item[0], item[1]))
        neighbours[record_id] = ranked[:NEIGHBOURS]
    near = {record_id: {other for _, other in ranked} for record_id, ranked in neighbours.items()}
    pairs = []
    for (first, second), alike in scored.items():
        if alike.score >= SAME_SUBJECT and (second in near[first] or first in near[second]):
            newer, older = sorted((first, second), key=place.__getitem__)
            pairs.append(Amendment(older, newer, alike))
    return sorted(
        pairs, key=lambda pair: (-pair.likeness.score, place[pair.older], place[pair.newer])
    )


def _weight_then_term(item: tuple[str, float]) -> tuple[float, str]:
    return item[1], item[0]


def supersede_command(older_id: str, newer_id: str) -> str:
    """The command that retires the older note once a person has confirmed it."""
    return f'mem supersede {older_id} --with {newer_id} --reason "amended by {newer_id}"'
