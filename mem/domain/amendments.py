"""Amendments: active notes that a later note on the same subject likely amends.

The measure is mem.core.ranking.amendments' (term weights with the index's bm25 document
frequencies; newer by mem.index.notes_by_recency). Every reader that shows notes to an
agent calls this module, so they all follow one rule: the newer comes first, just before
the older, and the older is marked with the newer's id and the command that retires it once
a person has confirmed it (`mem supersede OLD --with NEW --reason ...`). The session brief
and the prompt hook bring the newer in when they show the older (in_brief); a recall only
reorders the notes it shows, and only where the query is about the newer too (in_recall).
Readers: `recall --ranking bm25`, `recall --with-evidence`, MCP `recall`, the session brief
and the prompt hook. `mem check amendments` lists the pairs over a whole project. Retired
notes are never paired.
"""

from __future__ import annotations

from mem import index, layout
from mem.core.ranking import amendments
from mem.index import bm25

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a bm25 recall more to import than the rest of this module
    from collections.abc import Callable, Mapping, Sequence, Set
    from typing import Protocol, TypeVar

    class _Entry(Protocol):
        """What in_brief needs of mem.domain.brief's BriefUnit."""

        id: str | None  # the memory id
        marks: dict[str, str] | None

    Shown = TypeVar("Shown", bound=_Entry)

# Of the older's score, what a recall's newer note must have to be moved above it (unless
# the two are one decision taken again: amendments.SAME_DECISION). On bench/amendments/ and
# bench/quality/, 0.5 puts the newer first in 29 of 36 cases but costs bm25 recall@1 0.803 ->
# 0.752 (siblings on one subject displace the answer); 0.65, 24 of 36 and 0.803 (0.795 with
# no amendments). No other feature of the texts tried told the two apart (bench/README.md).
QUERY_SHARE = 0.65
# A prompt's few memories: the notes most like each are looked for by its heaviest terms.
LOOKUP_TERMS = 4
LOOKUP = 4
LOOKUP_AROUND = 3  # at most this many memories shown (a prompt's); a brief's pool is enough
BRIEF_POOL = 12  # a brief's first notes paired: a session brief shows about 10 within its budget


class Pairing:
    """Pairs among some notes, and the notes read to find them."""

    __slots__ = ("amended", "records")

    def __init__(
        self,
        amended: dict[int, list[amendments.Amendment]],
        records: dict[int, index.StoredRecord],
    ) -> None:
        self.amended = amended  # older record id -> its, likeliest first
        self.records = records  # the notes considered, by record id


def find(
    conn: index.Connection,
    ids: Sequence[int],
    olders: Set[int] | None = None,
    around: Sequence[int] = (),
    ranks: Mapping[int, int] | None = None,
    hidden: Set[int] = frozenset(),
) -> Pairing:
    """The likely amendments among these records' notes (of files whose candidate ranks are
    `ranks`), of `olders` only when given. For each note of `around`, the notes most like
    it are looked for too (a bm25 search for its heaviest terms, `hidden` left out), where
    a few notes were chosen by a query that its newer note may not match."""
    notes = _notes(conn, ids)
    if around and ranks:
        files = index.RecallFiles.given(ranks)
        looked = {record_id: notes[record_id] for record_id in around if record_id in notes}
        for item in _subjects(conn, looked):
            terms = amendments.heaviest(item, LOOKUP_TERMS)
            found = bm25.search(conn, terms, files, None, LOOKUP, _no_offset)
            ids = [*ids, *(hit.id for hit in found if hit.id not in hidden)]
        notes = _notes(conn, ids)
    if len(notes) < 2:
        return Pairing({}, notes)
    newest = index.newest_first(conn, list(notes))
    if olders is not None:
        # A note older than every note of `olders` amends none of them: left unread (a
        # brief's pool past the newest notes it shows).
        in_olders = (place for place, record_id in enumerate(newest) if record_id in olders)
        newest = newest[: max(in_olders, default=-1) + 1]
    subjects = _subjects(conn, {record_id: notes[record_id] for record_id in newest})
    return Pairing(amendments.among(subjects, newest, olders), notes)


def _notes(conn: index.Connection, ids: Sequence[int]) -> dict[int, index.StoredRecord]:
    stored = index.fetch(conn, list(dict.fromkeys(ids)))
    return {
        record_id: record
        for record_id, record in stored.items()
        if record.kind == "note" and layout.is_memory_file(record.path)
    }


def _no_offset(_: float) -> float:
    return 0.0  # notes carry no local time


def _subjects(
    conn: index.Connection, notes: Mapping[int, index.StoredRecord]
) -> list[amendments.Subject]:
    counted = {
        record_id: amendments.counts(record.ref, record.text) for record_id, record in notes.items()
    }
    terms = sorted({term for found in counted.values() for term in found})
    df = bm25.document_frequencies(conn, terms)
    records = bm25.Stats(conn).records
    return [
        amendments.subject(record_id, notes[record_id].ref, counted[record_id], df, records)
        for record_id in notes
    ]


def marks(found: Pairing) -> dict[int, dict[str, str]]:
    """Record id -> what its entry says: the older `amendedBy` the newer's id, with the
    `supersede` command; the newer which note it `amends`."""
    said: dict[int, dict[str, str]] = {}
    for older, pairs in found.amended.items():
        older_id = _memory_id(found.records[older])
        newer_id = _memory_id(found.records[pairs[0].newer])
        said.setdefault(older, {}).update(
            amendedBy=newer_id, supersede=amendments.supersede_command(older_id, newer_id)
        )
        for pair in pairs:
            said.setdefault(pair.newer, {}).setdefault("amends", older_id)
    return said


def _memory_id(record: index.StoredRecord) -> str:
    from mem.core.rules.memory_ids import memory_id  # hashlib: only once a pair is found

    return memory_id(record.path, record.ref)


def in_recall(
    conn: index.Connection, shown: list[int], scores: Mapping[int, float]
) -> tuple[list[int], dict[int, dict[str, str]]]:
    """A recall's shown record ids (with their `scores`) with each amended note's newer note
    just before it, where both are shown; nothing else moves, nothing is added. The newer
    must match the query at least QUERY_SHARE as well as the older, unless the two are one
    decision taken again: a query that only grazes a sibling decision on the same subject
    is not about what it amends. Only the shown notes are paired: a few, so a warm recall
    pays little. With the marks of each record shown."""
    found = find(conn, shown, set(shown))
    relevant = {}
    for older, pairs in found.amended.items():
        matching = [
            pair
            for pair in pairs
            if scores[pair.newer] >= QUERY_SHARE * scores[older]
            or pair.likeness.score >= amendments.SAME_DECISION
        ]
        if matching:
            relevant[older] = matching
    if not relevant:
        return shown, {}
    order = amendments.newer_first(shown, relevant)
    said = marks(Pairing(relevant, found.records))
    return order, {record_id: said[record_id] for record_id in order if record_id in said}


def in_brief(
    root: str,
    conn: index.Connection,
    files: Mapping[int, index.FileRow],
    entries: list[Shown],
    pool: list[int],
    entry_of: Callable[[index.StoredRecord], Shown],
) -> list[Shown]:
    """A brief's (or a prompt's) memory entries with each amended memory's newer memory just
    before it, taken from `pool` (the notes they were chosen from) even when it was not
    chosen; both marked. Retired notes are never paired."""
    if not entries:
        return entries  # most prompts bring nothing: nothing to pair
    retired: set[int] = set()
    if index.has_lifecycle_events(conn):
        from mem.domain import lifecycle_events  # only where something was ever retired

        paths = {file_id: row.path for file_id, row in files.items()}
        retired = set(lifecycle_events.retired_in_index(root, conn, paths))
    pool = [record_id for record_id in pool if record_id not in retired][:BRIEF_POOL]
    chosen = {entry.id for entry in entries}
    shown = [
        record_id
        for record_id, record in _notes(conn, pool).items()
        if _memory_id(record) in chosen
    ]
    ranks = {file_id: row.rank for file_id, row in files.items()}
    around = shown if len(shown) <= LOOKUP_AROUND else []
    found = find(conn, pool, set(shown), around, ranks, retired)
    if not found.amended:
        return entries
    record_of = {_memory_id(record): record_id for record_id, record in found.records.items()}
    by_record = {record_of[entry.id]: entry for entry in entries if entry.id in record_of}
    relevant = {
        older: amendment for older, amendment in found.amended.items() if older in by_record
    }
    if not relevant:
        return entries
    said = marks(Pairing(relevant, found.records))
    arranged = []
    for record_id in amendments.newer_first(by_record, relevant):
        entry = by_record.get(record_id) or entry_of(found.records[record_id])
        entry.marks = said.get(record_id)
        arranged.append(entry)
    return arranged + [entry for entry in entries if entry.id not in record_of]


def over(
    conn: index.Connection, notes: Mapping[int, index.StoredRecord]
) -> list[amendments.Amendment]:
    """The likely amendments among many notes (a project's, or each of a portfolio's
    projects'), likeliest first: candidates from each note's heaviest terms, never all pairs."""
    if len(notes) < 2:
        return []
    counted = {
        record_id: amendments.counts(record.ref, record.text) for record_id, record in notes.items()
    }
    df = bm25.document_frequencies(conn, None)  # every term's: one read of the postings
    records = bm25.Stats(conn).records
    subjects = [
        amendments.subject(record_id, notes[record_id].ref, counted[record_id], df, records)
        for record_id in notes
    ]
    return amendments.likely_pairs(subjects, index.newest_first(conn, list(notes)))
