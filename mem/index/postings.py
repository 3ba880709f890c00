"""The postings: for each term, its records grouped by (band, tf), and their upkeep.

A record's lexical score for a query is coverage × Σ(1 + ln tf) / √n, times a recency decay
for dated events. Grouping a term's records by band (the length n, and for dated events the
4-day bucket of their ts) and by tf gives recall, per band, a bound on the score of every
record it has not read yet (mem.index.topk): 1/√(shortest n of the band) × the best decay of
the bucket × Σ over the query terms of 1 + ln(highest tf not yet read). Coverage and decay
never raise a score, so the bound is safe; reading a group only ever lowers it.
"""

from __future__ import annotations

import sqlite3
import sys
from collections import defaultdict, deque
from itertools import chain, islice, repeat
from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Final

# Exact lengths below this; above, classes an eighth of a power of two wide: a class's
# bound is at most 6 % above its longest record's, and a common term has few groups.
EXACT_LENGTHS = 16
LENGTH_CLASSES = 4096
BUCKET_MS = 4 * 86_400_000
# Buckets of every ts JavaScript can represent (±8.64e15 ms) are positive from here.
BUCKET_BASE = -25_000_001
ITEM: Final = "q"  # record ids in a group: 8-byte integers
ITEM_SIZE = 8


def length_class(length: int) -> int:
    if length < EXACT_LENGTHS:
        return length
    exponent = length.bit_length() - 1
    return EXACT_LENGTHS + (exponent - 4) * 8 + (length >> (exponent - 3)) - 8


def shortest_length(band: int) -> int:
    """The smallest token count of a band's records: it bounds 1/√n from above."""
    cls = band % LENGTH_CLASSES
    if cls < EXACT_LENGTHS:
        return cls
    exponent = 4 + (cls - EXACT_LENGTHS) // 8
    return (8 + (cls - EXACT_LENGTHS) % 8) << (exponent - 3)


def band_of(length: int, dated_ms: float | None) -> int:
    """The band of a record; `dated_ms` is the ts of an event whose decay it bounds, else None."""
    cls = length_class(length)
    if dated_ms is None:
        return cls
    return cls + LENGTH_CLASSES * (int(dated_ms // BUCKET_MS) - BUCKET_BASE)


def bucket_end_ms(band: int) -> float | None:
    """Where a dated band's bucket ends (its events are older); None for undated bands."""
    bucket = band // LENGTH_CLASSES
    if bucket == 0:
        return None
    return float((bucket + BUCKET_BASE + 1) * BUCKET_MS)


class Posted:
    """What one record contributes to the postings."""

    __slots__ = ("id", "band", "counts")

    def __init__(self, id: int, band: int, counts: Mapping[bytes, int]) -> None:
        self.id = id
        self.band = band
        self.counts = counts  # token (Latin-1 bytes) -> tf


def dated_ms(kind: str, ts_ms: float | None, ts_local: int | None) -> float | None:
    """The ts an event's decay is bounded by: zoned ts only (a local one depends on the reader)."""
    if kind != "event" or ts_ms is None or ts_local:
        return None
    return ts_ms


# Where a fresh index's batches of postings wait until they are all written (see flush).
STAGED = "temp.staged_postings"
_UPSERT = (
    " ON CONFLICT (term, band, tf, part) DO UPDATE"
    # `||` makes TEXT of two BLOBs (bytes kept as they are); the CAST makes it a BLOB again.
    " SET records = CAST(records || excluded.records AS BLOB)"
)
_sink: deque[object] = deque(maxlen=0)
_consume = _sink.extend  # runs an iterator to its end, keeping nothing


class Groups:
    """Postings gathered in memory, written in one batch: the build flushes them as it goes."""

    def __init__(self) -> None:
        # band -> (term, tf) -> record ids, already in the blob's format (ITEM, machine
        # order): keyed by the very pairs counts.items() yields. A bytearray also binds as
        # it is, where bytes would first be offered to the sqlite3 module's adapters.
        self.bands: dict[int, defaultdict[tuple[bytes, int], bytearray]] = {}
        self.size = 0

    def add(self, record_id: int, band: int, counts: Mapping[bytes, int]) -> None:
        groups = self.bands.get(band)
        if groups is None:
            groups = self.bands[band] = defaultdict(bytearray)
        # In C: every (term, tf) pair's group gets the record id's bytes appended.
        item = record_id.to_bytes(ITEM_SIZE, sys.byteorder, signed=True)
        _consume(map(bytearray.extend, map(groups.__getitem__, counts.items()), repeat(item)))
        self.size += len(counts)

    def rows(
        self, ids: Mapping[bytes, int], part: int
    ) -> list[tuple[int, int, int, int, bytearray]]:
        """(term id, band, tf, part, records) of every group, in term order."""
        groups: list[tuple[int, int, int, int, bytearray]] = []
        for band, band_groups in self.bands.items():
            keys = band_groups.keys()
            # Built in C: a batch holds hundreds of thousands of groups.
            groups += zip(
                map(ids.__getitem__, map(_TERM, keys)),
                repeat(band),
                map(_TF, keys),
                repeat(part),
                band_groups.values(),
            )
        # In term order SQLite fills each B-tree page once instead of splitting pages all
        # over (a full key order costs the sort more than it saves SQLite).
        groups.sort(key=_TERM)
        return groups

    def flush(
        self,
        conn: sqlite3.Connection,
        term_ids: TermIds,
        part: int = 0,
        staged: bool = False,
        fresh: bool = False,
    ) -> None:
        """Write the groups as `part` of each: a build gives each batch its own part.

        `staged` batches go to a temporary table, moved into the postings by `unstage`;
        `fresh` says the postings table is empty.
        """
        if not self.bands:
            return
        terms = set(map(_TERM, chain.from_iterable(self.bands.values())))
        rows = self.rows(term_ids.resolve(conn, terms), part)
        self.bands = {}
        self.size = 0
        if staged:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {STAGED}"
                " (term INTEGER, band INTEGER, tf INTEGER, part INTEGER, records BLOB)"
            )
            _insert(conn, f"INSERT INTO {STAGED} VALUES ", "", rows)
        else:
            # A fresh index's only batch meets no group already there: no upsert needed.
            tail = "" if fresh else _UPSERT
            _insert(
                conn, "INSERT INTO postings (term, band, tf, part, records) VALUES ", tail, rows
            )


# Rows per INSERT: one statement step for many rows costs SQLite and Python less per row.
ROWS_PER_INSERT = 100
_ROW = "(?, ?, ?, ?, ?)"


def _insert(
    conn: sqlite3.Connection,
    head: str,
    tail: str,
    rows: Iterable[tuple[int, int, int, int, bytes | bytearray]],
) -> None:
    """`head` VALUES of every row, then `tail`, as a few multi-row INSERTs."""
    many = head + ",".join([_ROW] * ROWS_PER_INSERT) + tail
    remaining = iter(rows)
    while chunk := list(islice(remaining, ROWS_PER_INSERT)):
        if len(chunk) == ROWS_PER_INSERT:
            conn.execute(many, list(chain.from_iterable(chunk)))
        else:
            conn.executemany(head + _ROW + tail, chunk)


def unstage(conn: sqlite3.Connection) -> None:
    """Move staged batches into the postings at once, each group whole, in key order.

    Written batch by batch, each batch's groups would land between every earlier one's and
    split B-tree pages all over the table, and recall would read every group in as many
    parts as there were batches. A merged group is part 1: a later sync's part 0 stays
    apart and small instead of rewriting the whole group.
    """
    # group_concat joins the parts' bytes whole (a BLOB read as TEXT keeps its bytes, NULs
    # included; the CAST makes it a BLOB again). Whatever order it met the parts in, a
    # group holds the same records: readers never rely on their order.
    conn.execute(
        "INSERT INTO postings (term, band, tf, part, records)"
        f" SELECT term, band, tf, {MERGED_PART}, CAST(group_concat(records, '') AS BLOB)"
        f" FROM {STAGED}"
        # WHERE true: SQLite's upsert after a SELECT needs one to parse unambiguously.
        " WHERE true GROUP BY term, band, tf" + _UPSERT
    )
    conn.execute(f"DROP TABLE {STAGED}")


def merge_segment(conn: sqlite3.Connection, schema: str) -> None:
    """Add the postings of another database attached as `schema` (a build's segment, its
    terms already copied into the main one by text): a group both hold becomes one."""
    conn.execute(
        "INSERT INTO main.postings (term, band, tf, part, records)"
        " SELECT t.id, p.band, p.tf, p.part, p.records"
        f" FROM {schema}.postings AS p JOIN {schema}.terms AS s ON s.id = p.term"
        " JOIN main.terms AS t ON t.term = s.term"
        " WHERE true" + _UPSERT
    )


MERGED_PART = 1
_TERM = itemgetter(0)
_TF = itemgetter(1)


class TermIds:
    """Term -> id, assigned on first sight; remembers what it looked up or created."""

    def __init__(self) -> None:
        self.known: dict[bytes, int] = {}

    def resolve(self, conn: sqlite3.Connection, terms: Iterable[bytes]) -> dict[bytes, int]:
        known = self.known
        missing = [term for term in terms if term not in known]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            texts = [term.decode("latin-1") for term in chunk]
            marks = ",".join("?" * len(chunk))
            for term_id, text in conn.execute(
                f"SELECT id, term FROM terms WHERE term IN ({marks})", texts
            ):
                known[text.encode("latin-1")] = term_id
        new = [term for term in missing if term not in known]
        if new:
            next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM terms").fetchone()[0]
            rows = [(next_id + offset, term.decode("latin-1")) for offset, term in enumerate(new)]
            conn.executemany("INSERT INTO terms (id, term) VALUES (?, ?)", rows)
            for offset, term in enumerate(new):
                known[term] = next_id + offset
        return known


# Above this many groups to edit, one pass over every group is cheaper than a look-up each.
BULK_GROUPS = 20_000


def remove(conn: sqlite3.Connection, posted: Iterable[Posted]) -> None:
    """Take records out of their groups (a group left empty is deleted)."""
    doomed: dict[tuple[bytes, int, int], set[int]] = {}
    for record in posted:
        for term, tf in record.counts.items():
            doomed.setdefault((term, record.band, tf), set()).add(record.id)
    if not doomed:
        return
    if len(doomed) > BULK_GROUPS:
        _remove_everywhere(conn, {record_id for ids in doomed.values() for record_id in ids})
        return
    ids = TermIds().resolve(conn, {term for term, _, _ in doomed})
    for (term, band, tf), gone in doomed.items():
        for part, blob in conn.execute(
            "SELECT part, records FROM postings WHERE term = ? AND band = ? AND tf = ?",
            (ids[term], band, tf),
        ).fetchall():
            group = decode(blob)
            if not gone.isdisjoint(group):
                _rewrite(conn, (ids[term], band, tf, part), group, gone)


def _remove_everywhere(conn: sqlite3.Connection, gone: set[int]) -> None:
    changed = []
    for term, band, tf, part, blob in conn.execute(
        "SELECT term, band, tf, part, records FROM postings"
    ):
        group = decode(blob)
        if not gone.isdisjoint(group):
            changed.append(((term, band, tf, part), group))
    for key, group in changed:
        _rewrite(conn, key, group, gone)


def _rewrite(
    conn: sqlite3.Connection, key: tuple[int, int, int, int], group: Iterable[int], gone: set[int]
) -> None:
    from array import array

    kept = array(ITEM, (record_id for record_id in group if record_id not in gone))
    where = "WHERE term = ? AND band = ? AND tf = ? AND part = ?"
    if kept:
        conn.execute(f"UPDATE postings SET records = ? {where}", (kept.tobytes(), *key))
    else:
        conn.execute(f"DELETE FROM postings {where}", key)


def decode(blob: bytes) -> memoryview:
    """A group's record ids, read in place (importing array would cost a recall 0.5 ms)."""
    return memoryview(blob).cast(ITEM)
