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
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any, Final

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


def bm25_class(length: int) -> int:
    """bm25's length class: lengths within a power of two share one (few groups to build)."""
    return length.bit_length()


def bm25_shortest(band: int) -> int:
    """The smallest bm25_length of a bm25 class's records: it bounds their weight from above."""
    return 1 << (band - 1) if band else 0


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

    def __init__(self, id: int, band: int, counts: Mapping[Any, int]) -> None:
        self.id = id
        self.band = band
        self.counts = counts  # token (Latin-1 bytes; bm25: str) -> tf


def dated_ms(kind: str, ts_ms: float | None, ts_local: int | None) -> float | None:
    """The ts an event's decay is bounded by: zoned ts only (a local one depends on the reader)."""
    if kind != "event" or ts_ms is None or ts_local:
        return None
    return ts_ms


class Tables:
    """Where one ranking's postings live: the lexical ranking's, or bm25's (mem.index.bm25).

    Both keep the same layout (a term's records grouped by band and tf); their terms are
    keyed by Latin-1 bytes (the contract's tokens) or by text (bm25's terms of any script).
    """

    __slots__ = ("postings", "terms", "staged", "latin1", "key", "upsert")

    def __init__(self, postings: str, terms: str, latin1: bool, key: str) -> None:
        self.postings = postings
        self.terms = terms
        # Where a fresh index's batches of postings wait until they are all written.
        self.staged = f"temp.staged_{postings}"
        self.latin1 = latin1  # terms are Latin-1 bytes, else str
        self.key = key  # a group's key columns, `part` aside
        self.upsert = (
            f" ON CONFLICT ({key}, part) DO UPDATE"
            # `||` makes TEXT of two BLOBs (bytes kept as they are); the CAST makes it a BLOB.
            " SET records = CAST(records || excluded.records AS BLOB)"
        )

    def text(self, term: bytes | str) -> str:
        return term.decode("latin-1") if isinstance(term, bytes) else term

    def term_key(self, text: str) -> bytes | str:
        return text.encode("latin-1") if self.latin1 else text


LEXICAL = Tables("postings", "terms", latin1=True, key="term, band, tf")
# bm25's groups are a term's records holding it tf times, whatever their length: each
# record is there as a pair (its id, its bm25_length), PAIR's two 4-byte unsigned integers.
# A group is one length class's (band: bm25_class of the bm25_length, no time bucket).
BM25 = Tables("bm25_postings", "bm25_terms", latin1=False, key="term, band, tf")
PAIR_ITEM: Final = "I"  # a bm25 pair's two numbers, read in place: memoryview.cast(PAIR_ITEM)
_sink: deque[object] = deque(maxlen=0)
_consume = _sink.extend  # runs an iterator to its end, keeping nothing


class Groups:
    """Postings gathered in memory, written in one batch: the build flushes them as it goes."""

    def __init__(self) -> None:
        # band -> (term, tf) -> record ids, already in the blob's format (ITEM, machine
        # order): keyed by the very pairs counts.items() yields. A bytearray also binds as
        # it is, where bytes would first be offered to the sqlite3 module's adapters.
        self.bands: dict[int, defaultdict[tuple[Any, int], bytearray]] = {}
        self.size = 0

    def add(self, record_id: int, band: int, counts: Mapping[Any, int]) -> None:
        groups = self.bands.get(band)
        if groups is None:
            groups = self.bands[band] = defaultdict(bytearray)
        # In C: every (term, tf) pair's group gets the record id's bytes appended.
        item = record_id.to_bytes(ITEM_SIZE, sys.byteorder, signed=True)
        _consume(map(bytearray.extend, map(groups.__getitem__, counts.items()), repeat(item)))
        self.size += len(counts)

    def rows(self, ids: Mapping[Any, int], part: int) -> list[tuple[int, int, int, int, bytearray]]:
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
        tables = term_ids.tables
        _write(conn, tables, rows, staged, fresh)


def _write(
    conn: sqlite3.Connection,
    tables: Tables,
    rows: Sequence[tuple[object, ...]],
    staged: bool,
    fresh: bool,
) -> None:
    """Write groups' rows (key columns, part, records) as Groups.flush says."""
    if staged:
        columns = ", ".join(f"{column} INTEGER" for column in tables.key.split(", "))
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {tables.staged} ({columns}, part INTEGER, records BLOB)"
        )
        insert_rows(conn, f"INSERT INTO {tables.staged} VALUES ", "", rows)
    else:
        # A fresh index's only batch meets no group already there: no upsert needed.
        tail = "" if fresh else tables.upsert
        head = f"INSERT INTO {tables.postings} ({tables.key}, part, records) VALUES "
        insert_rows(conn, head, tail, rows)


class PairGroups(Groups):
    """bm25's postings gathered in memory (see BM25), written as Groups writes its own."""

    def __init__(self) -> None:
        # band -> (term, tf) -> the pairs of its records, in the blob's format.
        super().__init__()
        from struct import Struct  # builds and syncs only

        self.pack = Struct("=" + PAIR_ITEM * 2).pack

    def add(self, record_id: int, length: int, counts: Mapping[Any, int]) -> None:
        # Raises struct.error past 2**32 - 1 (an id or a length no index reaches).
        item = self.pack(record_id, length)
        band = bm25_class(length)
        groups = self.bands.get(band)
        if groups is None:
            groups = self.bands[band] = defaultdict(bytearray)
        _consume(map(bytearray.extend, map(groups.__getitem__, counts.items()), repeat(item)))
        self.size += len(counts)


# Rows per INSERT: one statement step for many rows costs SQLite and Python less per row.
ROWS_PER_INSERT = 100


def insert_rows(
    conn: sqlite3.Connection,
    head: str,
    tail: str,
    rows: Sequence[tuple[object, ...]],
) -> None:
    """`head` VALUES of every row, then `tail`, as a few multi-row INSERTs."""
    if not rows:
        return
    row = "(" + ", ".join("?" * len(rows[0])) + ")"
    many = head + ",".join([row] * ROWS_PER_INSERT) + tail
    remaining = iter(rows)
    while chunk := list(islice(remaining, ROWS_PER_INSERT)):
        if len(chunk) == ROWS_PER_INSERT:
            conn.execute(many, list(chain.from_iterable(chunk)))
        else:
            conn.executemany(head + row + tail, chunk)


def unstage(conn: sqlite3.Connection) -> None:
    """Move the lexical postings' staged batches into them at once, each group whole, in
    key order (bm25's batches are parts of their own: Inserter._spill_bm25).

    Written batch by batch, each batch's groups would land between every earlier one's and
    split B-tree pages all over the table, and recall would read every group in as many
    parts as there were batches. A merged group is part 1: a later sync's part 0 stays
    apart and small instead of rewriting the whole group.
    """
    # group_concat joins the parts' bytes whole (a BLOB read as TEXT keeps its bytes, NULs
    # included; the CAST makes it a BLOB again). Whatever order it met the parts in, a
    # group holds the same records: readers never rely on their order.
    tables = LEXICAL
    key = tables.key
    conn.execute(
        f"INSERT INTO {tables.postings} ({key}, part, records)"
        f" SELECT {key}, {MERGED_PART}, CAST(group_concat(records, '') AS BLOB)"
        f" FROM {tables.staged}"
        # WHERE true: SQLite's upsert after a SELECT needs one to parse unambiguously.
        f" WHERE true GROUP BY {key}" + tables.upsert
    )
    conn.execute(f"DROP TABLE {tables.staged}")


def merge_segment(
    conn: sqlite3.Connection, schema: str, tables: Tables = LEXICAL, part_offset: int = 0
) -> None:
    """Add the postings of another database attached as `schema` (a build's segment, its
    terms already copied into the main one by text): a group both hold becomes one; with a
    `part_offset` no part of the segment's meets one already there, and its groups stay
    apart (nothing of the main database is rewritten)."""
    rest = tables.key.removeprefix("term, ")
    selected = ", ".join(f"p.{column}" for column in rest.split(", "))
    conn.execute(
        f"INSERT INTO main.{tables.postings} ({tables.key}, part, records)"
        f" SELECT t.id, {selected}, p.part + {int(part_offset)}, p.records"
        f" FROM {schema}.{tables.postings} AS p JOIN {schema}.{tables.terms} AS s ON s.id = p.term"
        f" JOIN main.{tables.terms} AS t ON t.term = s.term"
        " WHERE true" + tables.upsert
    )


MERGED_PART = 1
_TERM = itemgetter(0)
_TF = itemgetter(1)


class TermIds:
    """Term -> id, assigned on first sight; remembers what it looked up or created."""

    def __init__(self, tables: Tables = LEXICAL, empty: bool = False) -> None:
        self.tables = tables
        self.known: dict[Any, int] = {}  # bytes or str, as the tables' terms are keyed
        # The terms table held nothing when this began (a whole history written again):
        # every term not known yet is new, and none is looked up.
        self.empty = empty

    def resolve(self, conn: sqlite3.Connection, terms: Iterable[Any]) -> dict[Any, int]:
        known = self.known
        tables = self.tables
        missing = [term for term in terms if term not in known]
        for start in range(0, 0 if self.empty else len(missing), 500):
            chunk = missing[start : start + 500]
            texts = [tables.text(term) for term in chunk]
            marks = ",".join("?" * len(chunk))
            for term_id, text in conn.execute(
                f"SELECT id, term FROM {tables.terms} WHERE term IN ({marks})", texts
            ):
                known[tables.term_key(text)] = term_id
        # In term order: the terms' unique index is filled in order, as the ids are.
        new = sorted(term for term in missing if term not in known)
        if new:
            next_id = conn.execute(
                f"SELECT coalesce(max(id), 0) + 1 FROM {tables.terms}"
            ).fetchone()[0]
            rows = [(next_id + offset, tables.text(term)) for offset, term in enumerate(new)]
            insert_rows(conn, f"INSERT INTO {tables.terms} (id, term) VALUES ", "", rows)
            for offset, term in enumerate(new):
                known[term] = next_id + offset
        return known


# Above this many groups to edit, one pass over every group is cheaper than a look-up each.
BULK_GROUPS = 20_000


def remove(conn: sqlite3.Connection, posted: Iterable[Posted], tables: Tables = LEXICAL) -> None:
    """Take records out of their groups (a group left empty is deleted)."""
    doomed: dict[tuple[Any, int, int], set[int]] = {}
    for record in posted:
        for term, tf in record.counts.items():
            doomed.setdefault((term, record.band, tf), set()).add(record.id)
    if not doomed:
        return
    if len(doomed) > BULK_GROUPS:
        _remove_everywhere(
            conn, {record_id for ids in doomed.values() for record_id in ids}, tables
        )
        return
    ids = TermIds(tables).resolve(conn, {term for term, _, _ in doomed})
    for (term, band, tf), gone in doomed.items():
        for part, blob in conn.execute(
            f"SELECT part, records FROM {tables.postings} WHERE term = ? AND band = ? AND tf = ?",
            (ids[term], band, tf),
        ).fetchall():
            group = decode(blob)
            if not gone.isdisjoint(group):
                _rewrite(conn, (ids[term], band, tf, part), group, gone, tables)


def remove_pairs(conn: sqlite3.Connection, posted: Iterable[Posted]) -> None:
    """bm25's remove: take records (Posted's band is their bm25_length) out of their groups."""
    keys: set[tuple[str, int, int]] = set()
    gone: set[int] = set()
    for record in posted:
        band = bm25_class(record.band)
        keys.update((term, band, tf) for term, tf in record.counts.items())
        gone.add(record.id)
    if not keys:
        return
    tables = BM25
    found: list[tuple[int, int, int, int, bytes]]
    columns = "term, band, tf, part, records"
    if len(keys) > BULK_GROUPS:
        found = conn.execute(f"SELECT {columns} FROM {tables.postings}").fetchall()
    else:
        term_ids = TermIds(tables).resolve(conn, {term for term, _, _ in keys})
        found = []
        for term, band, tf in keys:
            found += conn.execute(
                f"SELECT {columns} FROM {tables.postings} WHERE term = ? AND band = ? AND tf = ?",
                (term_ids[term], band, tf),
            ).fetchall()
    where = "WHERE term = ? AND band = ? AND tf = ? AND part = ?"
    for term_id, band, tf, part, blob in found:
        pairs = decode_pairs(blob)
        kept = [
            pairs[place : place + 2].tobytes()
            for place in range(0, len(pairs), 2)
            if pairs[place] not in gone
        ]
        if len(kept) * 2 == len(pairs):
            continue
        key = (term_id, band, tf, part)
        if kept:
            conn.execute(
                f"UPDATE {tables.postings} SET records = ? {where}", (b"".join(kept), *key)
            )
        else:
            conn.execute(f"DELETE FROM {tables.postings} {where}", key)


def _remove_everywhere(conn: sqlite3.Connection, gone: set[int], tables: Tables) -> None:
    changed = []
    for term, band, tf, part, blob in conn.execute(
        f"SELECT term, band, tf, part, records FROM {tables.postings}"
    ):
        group = decode(blob)
        if not gone.isdisjoint(group):
            changed.append(((term, band, tf, part), group))
    for key, group in changed:
        _rewrite(conn, key, group, gone, tables)


def _rewrite(
    conn: sqlite3.Connection,
    key: tuple[int, int, int, int],
    group: Iterable[int],
    gone: set[int],
    tables: Tables,
) -> None:
    from array import array

    kept = array(ITEM, (record_id for record_id in group if record_id not in gone))
    where = "WHERE term = ? AND band = ? AND tf = ? AND part = ?"
    if kept:
        conn.execute(f"UPDATE {tables.postings} SET records = ? {where}", (kept.tobytes(), *key))
    else:
        conn.execute(f"DELETE FROM {tables.postings} {where}", key)


def decode_pairs(blob: bytes) -> memoryview:
    """A bm25 group's pairs, read in place: id, length, id, length, ..."""
    return memoryview(blob).cast(PAIR_ITEM)


def decode(blob: bytes) -> memoryview:
    """A group's record ids, read in place (importing array would cost a recall 0.5 ms)."""
    return memoryview(blob).cast(ITEM)
