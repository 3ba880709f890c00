"""`mem check findability`'s queries and measures. Pure.

For every note, the queries a user could type for it: the heading's content words, the
identifiers and paths the note names, and the entries of its own aliases line. A ranking
finds a note when one of its queries puts it in the top 5; it shadows a note when the same
other note ranks above it for every one of its queries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from mem.core.text import parse

TOP = 5
IDENTIFIERS_PER_NOTE = 3
# Words no one types to find a note: English function words (the headings of the notes
# mem serves are mostly English) and a heading's usual verbs of choice.
STOP_WORDS = parse.FUNCTION_WORDS | frozenset(
    "may must use used uses using via within without".split()
)
# An identifier or path: word characters joined by - _ . / (uuid-v7, server_idle_timeout,
# src/app.py, 12-factor), or a camelCase word. Dates and version numbers are left out.
_IDENTIFIER = re.compile(r"(?<![\w./-])(?:\w+(?:[-_./]\w+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)(?![\w/-])")
_NUMBERS_ONLY = re.compile(r"[\d._/-]+")
_ALIASES = re.compile(
    r"^[ \t>*_-]*aliases?[*_]*[ \t]*:[*_]*[ \t]*(.+)$", re.IGNORECASE | re.MULTILINE
)


class Query(NamedTuple):
    kind: str  # "heading", "identifier" or "alias"
    text: str


# A word as a person types it, in any script: letters and digits, joined by - or '.
_WORD = re.compile(r"\w+(?:['’-]\w+)*")


def _words(text: str) -> list[str]:
    """The distinct words of a text, lower-cased, in order: not a ranking's tokens, so that
    a query is what a person would type, whichever ranking then searches it."""
    return [word for word in dict.fromkeys(_WORD.findall(text.lower())) if len(word) > 1]


def _content_words(text: str) -> list[str]:
    return [
        word
        for word in _words(text)
        if word not in STOP_WORDS and not _NUMBERS_ONLY.fullmatch(word)
    ]


def queries(heading: str, text: str) -> list[Query]:
    """A note's queries, in a fixed order, none twice (by their words)."""
    found: list[Query] = []
    seen: set[tuple[str, ...]] = set()

    def add(kind: str, query: str) -> None:
        terms = tuple(_words(query))
        if terms and terms not in seen:
            seen.add(terms)
            found.append(Query(kind, query))

    add("heading", " ".join(_content_words(heading)))
    identifiers = 0
    for match in _IDENTIFIER.finditer(text):
        if identifiers == IDENTIFIERS_PER_NOTE:
            break
        word = match.group(0).strip("._/-")
        if not _NUMBERS_ONLY.fullmatch(word):
            before = len(found)
            add("identifier", word)
            identifiers += len(found) - before
    for line in _ALIASES.findall(text):
        for alias in re.split(r"[,;]", line):
            add("alias", alias.strip(" \t*_`\"'"))
    return found


class Note(NamedTuple):
    id: int
    project: str  # the project's path; "" within one project
    file: str
    heading: str
    text: str


class Outcome(NamedTuple):
    """Where one query put its note, and the notes that ranked above it."""

    place: int | None  # 1-based place among the results, None when not in the top
    above: tuple[int, ...]  # ids of the notes ranked above it (in the top when not found)


def measure(
    notes: Sequence[Note], outcomes: dict[int, list[Outcome]], by_id: dict[int, Note]
) -> dict[str, object]:
    """One ranking's figures over the notes that have queries (`outcomes[note.id]`)."""
    asked = [note for note in notes if outcomes.get(note.id)]
    places = [outcome.place for note in asked for outcome in outcomes[note.id]]
    best = [_best(outcomes[note.id]) for note in asked]
    unfound = [note for note, place in zip(asked, best, strict=True) if place is None]
    shadowed = []
    for note in asked:
        common = set.intersection(*(set(outcome.above) for outcome in outcomes[note.id]))
        if common:
            first = next(i for i in outcomes[note.id][0].above if i in common)
            shadowed.append({**where(note), "by": where(by_id[first])})
    return {
        "notesTop1": _share(sum(place == 1 for place in best), len(asked)),
        "notesTop5": _share(sum(place is not None for place in best), len(asked)),
        "queriesTop1": _share(sum(place == 1 for place in places), len(places)),
        "queriesTop5": _share(sum(place is not None for place in places), len(places)),
        "unfound": [where(note) for note in unfound],
        "shadowed": shadowed,
    }


def near_duplicates(notes: Iterable[Note]) -> list[dict[str, object]]:
    """Notes of different projects whose headings have the same content words, with how
    alike their texts are (the share of distinct words they have in common)."""
    groups: dict[frozenset[str], list[Note]] = {}
    for note in notes:
        words = frozenset(_content_words(note.heading))
        if words:
            groups.setdefault(words, []).append(note)
    found: list[tuple[float, str, dict[str, object]]] = []
    for group in groups.values():
        for place, first in enumerate(group):
            for second in group[place + 1 :]:
                if first.project != second.project:
                    similarity = round(_jaccard(first.text, second.text), 2)
                    named = [where(first), where(second)]
                    found.append(
                        (-similarity, str(named), {"notes": named, "similarity": similarity})
                    )
    return [pair for _, _, pair in sorted(found, key=lambda item: item[:2])]


def _best(outcomes: list[Outcome]) -> int | None:
    places = [outcome.place for outcome in outcomes if outcome.place is not None]
    return min(places) if places else None


def _share(part: int, whole: int) -> float | None:
    """part / whole to 4 places; None when there is nothing to count (no note, no query)."""
    return round(part / whole, 4) if whole else None


def _jaccard(first: str, second: str) -> float:
    one, two = set(_words(first)), set(_words(second))
    return len(one & two) / len(one | two) if one | two else 1.0


def where(note: Note) -> dict[str, str]:
    """Where a note is, as the report names it."""
    where = {"file": note.file, "heading": note.heading}
    return {"project": note.project, **where} if note.project else where
