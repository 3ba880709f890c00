"""Bring an index in step with its root's canonical files: apply what the plan found.

Every source the plan (mem.index.freshness) could not trust is hashed; only sources whose
hash changed are re-parsed, a journal that only grew has just its new lines parsed, and
an edited notes file just the sections around the edit (mem.index.resync).

A recall after a `mem write` runs through here, so the module stays plain (no typing at
run time); what only a rebuild or the writers' lock needs (mem.index.building) is
imported where that path starts.
"""

from __future__ import annotations

import os
import time

import xxhash

from mem.files import index_sources
from mem.files.index_sources import SourceSpec, SourceStat
from mem.index import connection, records, resync, tables
from mem.index.freshness import (
    ARCHIVE_KIND,
    STORE_KINDS,
    Plan,
    is_archive,
    plan,
    specs_for,
    store_group,
)
from mem.index.rows import ONLY_PROJECT, FileRow, file_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from mem.index.connection import Connection
    from mem.index.resync import Records

TableRows = list[tuple[str, dict[str, object]]]


def store_rows(kind: str, data: bytes, archived: frozenset[str] = frozenset()) -> TableRows:
    """The table rows of a store's bytes, but those of lines its archives hold (`archived`,
    deviation D14). Each loader is imported only when its store changed: a recall never
    pays for them."""
    if kind == ARCHIVE_KIND:
        return []  # what an archive holds shows in the live store's rows, left out
    if kind in ("evidence", "lifecycle"):
        from mem.index import memory_rows

        return (
            memory_rows.evidence_rows(data, archived)
            if kind == "evidence"
            else memory_rows.lifecycle_rows(data, archived)
        )
    if kind in ("pattern-scores", "promotions"):
        from mem.index import pattern_rows

        if kind == "pattern-scores":
            return pattern_rows.score_rows(data)
        return pattern_rows.promotion_rows(data, archived)
    if kind == "outcomes":
        from mem.core.rules import receipts

        return receipts.index_rows(data, archived)
    assert kind == "registry", f"no loader for the store kind {kind!r}"
    from mem.core.rules import registry

    return registry.index_rows(data)


def file_hash(data: bytes | memoryview) -> str:
    """A file's bytes as the files table keeps them (its `hash`); a record's is records.digest."""
    return "xxh3:" + xxhash.xxh3_128_hexdigest(data)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class FileChanges:
    """What a sync of one root did to its files' rows."""

    __slots__ = ("added", "changed", "appended", "removed", "rebuilt")

    def __init__(
        self,
        added: int = 0,
        changed: int = 0,
        appended: int = 0,
        removed: int = 0,
        rebuilt: bool = False,
    ) -> None:
        self.added = added
        self.changed = changed
        self.appended = appended
        self.removed = removed
        self.rebuilt = rebuilt

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileChanges) and self._values() == other._values()

    def __repr__(self) -> str:
        added, changed, appended, removed, rebuilt = self._values()
        return (
            f"FileChanges(added={added}, changed={changed}, appended={appended},"
            f" removed={removed}, rebuilt={rebuilt})"
        )

    def _values(self) -> tuple[int, int, int, int, bool]:
        return self.added, self.changed, self.appended, self.removed, self.rebuilt


class Read:
    """A source's bytes as read in this sync, with when and at which stat they were read."""

    __slots__ = ("source", "data", "hash", "checked_ns")

    def __init__(self, source: SourceStat, data: bytes, hash: str, checked_ns: int) -> None:
        self.source = source
        self.data = data
        self.hash = hash
        self.checked_ns = checked_ns


# Bytes already read in this sync, by real path: a file is read and hashed once per command.
Reads = dict[str, Read]


def _read(source: SourceStat, reads: Reads, keep: bool = True) -> Read:
    """The source's bytes: those this sync already read at the same stat, else read now.

    `keep` leaves them for a later step; the step that indexes a file takes them out, so
    a build holds one file's bytes at a time.
    """
    earlier = reads.get(source.real) if keep else reads.pop(source.real, None)
    if earlier is not None and earlier.source.same_stat(source):
        return earlier
    checked_ns = time.time_ns()
    data = index_sources.read_source(source.real)
    read = Read(source, data, file_hash(data), checked_ns)
    if keep:
        reads[source.real] = read
    return read


def apply(
    conn: Connection,
    project_id: int,
    work: Plan,
    indexed: dict[str, FileRow],
    reads: Reads | None = None,
    inserter: Records | None = None,
) -> FileChanges:
    """Carry out a plan for one indexed root, inside the caller's transaction.

    A caller syncing many roots passes one `inserter` for all and flushes it at the end:
    each flush rewrites the postings groups it adds to.
    """
    reads = {} if reads is None else reads
    done = FileChanges(removed=len(work.removed))
    forced, archived = _archive_changes(work, indexed, reads)
    for path in work.removed:
        tables.delete_file(conn, indexed[path].id)
    shared = inserter is not None
    inserter = inserter or tables.Inserter(conn)
    since = inserter.next_id if isinstance(inserter, tables.Inserter) else 0
    for source in work.check:
        read = _read(source, reads, keep=False)
        data, hashed = read.data, read.hash
        row = indexed.get(source.spec.relative)
        spec = source.spec
        stat_args = (len(data), source.mtime_ns, source.inode, read.checked_ns)
        if _same_file_and_bytes(row, source, hashed) and spec.relative not in forced:
            tables.touch_file(conn, project_id, spec.relative, hashed, *stat_args, source.ctime_ns)
            continue
        grew = row is not None and spec.relative not in forced and _is_append(spec.kind, row, data)
        stretch, blocks = None, None
        if spec.kind == "notes":
            stretch, blocks = resync.edited_stretch(conn, row, data, hashed)
        if stretch is not None and row is not None and row.utf8:
            # The unchanged start and end were valid UTF-8 and end and start at headings:
            # the file is valid UTF-8 iff what lies between them is.
            utf8 = _is_utf8(data[stretch.start : stretch.stop])
        elif grew and row is not None:
            # What grew after a complete line is valid UTF-8 with it iff the tail is.
            utf8 = bool(row.utf8) and _is_utf8(data[row.size :])
        else:
            utf8 = _is_utf8(data)
        file_id = tables.upsert_file(
            conn,
            project_id,
            spec.relative,
            spec.kind,
            spec.rank,
            source.real,
            hashed,
            *stat_args,
            utf8,
            source.ctime_ns,
        )
        if blocks is not None:
            tables.set_file_blocks(conn, file_id, blocks)
        if grew and row is not None:
            tail = list(records.records_for(spec.kind, data[row.size :], row.size))
            # A line already above is the same event (deviation D11), as a full parse finds.
            above = [record.line for record in tail if _maybe_above(record.line, data, row.size)]
            known = tables.known_lines(conn, file_id, above)
            inserter.insert(file_id, [record for record in tail if record.line not in known])
            done.appended += 1
            continue
        if spec.kind in STORE_KINDS:
            if row is not None:
                tables.clear_file(conn, file_id)
            rows = store_rows(spec.kind, data, archived.get(spec.relative, frozenset()))
            tables.insert_table_rows(conn, file_id, rows)
        elif row is None:
            if isinstance(inserter, tables.Inserter):
                inserter.insert(file_id, records.records_for(spec.kind, data, 0, spec.relative))
            else:  # a segments.Builder takes the bytes, to parse them where it sends them
                inserter.add_file(file_id, spec.kind, spec.relative, data, utf8)
        else:
            resync.resync_records(conn, inserter, file_id, spec, data, utf8, stretch)
        if row is None:
            done.added += 1
        else:
            done.changed += 1
    if not shared:
        inserter.flush()
        if _journals_touched(work):
            tables.drop_archived_repeats(conn, project_id, since)
    return done


def _journals_touched(work: Plan) -> bool:
    """Whether a sync may have made a journal line repeat one of an archive (D14)."""
    return bool(work.removed) or any(source.spec.kind == "journal" for source in work.check)


def _archive_changes(
    work: Plan, indexed: dict[str, FileRow], reads: Reads
) -> tuple[set[str], dict[str, frozenset[str]]]:
    """Deviation D14: (the sources to read again in full, though their bytes may be as
    indexed: the files of a store one of whose archives is new, changed or gone; the lines
    of its archives each live store other than the journal leaves out).

    freshness.plan puts a store's files in the plan together, so all of them are here."""
    if not work.removed and not any(is_archive(source.spec.relative) for source in work.check):
        return set(), {}
    changed = {store_group(relative) for relative in work.removed if is_archive(relative)}
    for source in work.check:
        relative = source.spec.relative
        if not is_archive(relative):
            continue
        if not _same_file_and_bytes(indexed.get(relative), source, _read(source, reads).hash):
            changed.add(store_group(relative))
    forced = {
        source.spec.relative
        for source in work.check
        if store_group(source.spec.relative) in changed
    }
    archived: dict[str, frozenset[str]] = {}
    for source in work.check:
        group = store_group(source.spec.relative)
        if group is None or group == "journal" or is_archive(source.spec.relative):
            continue
        from mem.files import archives  # only a store with archives needs it

        lines: set[str] = set()
        for other in work.check:
            if is_archive(other.spec.relative) and store_group(other.spec.relative) == group:
                lines |= archives.trimmed_lines(_read(other, reads).data)
        archived[source.spec.relative] = frozenset(lines)
    return forced, archived


def _same_file_and_bytes(row: FileRow | None, source: SourceStat, hashed: str) -> bool:
    """The indexed rows still hold: same real file, same candidate rank, same bytes."""
    return (
        row is not None
        and row.hash == hashed
        and row.real_path == source.real
        and row.rank == source.spec.rank
    )


def touched_only(
    conn: Connection,
    project_id: int,
    work: Plan,
    indexed: dict[str, FileRow],
    reads: Reads | None = None,
) -> bool:
    """Racily clean files whose bytes did not change need only a new stat: no parse, no lock."""
    if work.removed:
        return False
    reads = {} if reads is None else reads
    touches = []
    for source in work.check:
        row = indexed.get(source.spec.relative)
        if row is None:
            return False
        read = _read(source, reads)
        if not _same_file_and_bytes(row, source, read.hash):
            return False
        touches.append(
            (
                project_id,
                source.spec.relative,
                row.hash,
                len(read.data),
                source.mtime_ns,
                source.inode,
                read.checked_ns,
                source.ctime_ns,
            )
        )

    def touch_all() -> None:
        for touch in touches:
            tables.touch_file(conn, *touch)

    tables.write_transaction(conn, touch_all)
    return True


def _quick_only(conn: Connection, work: Plan, indexed: dict[str, FileRow], reads: Reads) -> bool:
    """Every change is a journal that grew, a notes file edited in a short stretch, or a
    file whose bytes did not change."""
    if work.removed:
        return False
    for source in work.check:
        row = indexed.get(source.spec.relative)
        if row is None or row.real_path != source.real or row.rank != source.spec.rank:
            return False
        read = _read(source, reads)
        data = read.data
        if not (
            _same_file_and_bytes(row, source, read.hash)
            or _is_append(source.spec.kind, row, data)
            or (source.spec.kind == "notes" and resync.short_edit(conn, row, data, read.hash))
        ):
            return False
    return True


def _is_append(kind: str, row: FileRow, data: bytes) -> bool:
    """A journal that only grew after a complete line: its old records all stay valid."""
    return (
        kind == "journal"
        and len(data) > row.size
        and (row.size == 0 or data[row.size - 1 : row.size] == b"\n")
        and file_hash(memoryview(data)[: row.size]) == row.hash
    )


def _maybe_above(line: str | None, data: bytes, size: int) -> bool:
    """Whether a journal line may also stand in data[:size]; False is certain.

    A line decoded without replacement characters has its bytes among those above if it
    stands there; one byte search saves looking the line up among the indexed records.
    """
    if line is None:
        return False
    return "\ufffd" in line or data.find(line.encode("utf-8", "surrogatepass"), 0, size) >= 0


def would_change(work: Plan, indexed: dict[str, FileRow]) -> bool:
    """Whether syncing would change the index's rows, not just refresh stat data.

    Recall's own rule (see touched_only): a racily clean file whose bytes hash as indexed
    changes nothing. `mem status` reports freshness with it.
    """
    if work.removed:
        return True
    for source in work.check:
        row = indexed.get(source.spec.relative)
        data = index_sources.read_source(source.real)
        if row is None or not _same_file_and_bytes(row, source, file_hash(data)):
            return True
    return False


def open_project_index(
    root: str, role: str, path: str, kept: Connection | None = None, bm25: bool = False
) -> tuple[Connection, FileChanges, dict[str, FileRow]]:
    """The index at `path` (or the `kept` connection to it) brought in step with the files
    of a project or brain: its connection, what the sync did, and its files rows. `bm25`:
    with the bm25 ranking's postings (an index without them is built again, with them).

    Callers go through mem.index.opening, which decides what a damaged cache costs.
    """
    specs = specs_for(root, role)
    conn = connection.usable(kept or connection.connect(path), bm25)
    reads: Reads = {}
    resync.checked_blocks.clear()  # what an earlier sync checked and did not re-sync
    if conn is not None:
        try:
            found = _without_writers_lock(conn, root, specs, reads)
        except BaseException:
            conn.close()
            raise
        if found is not None:
            return found
    try:
        return _under_writers_lock(root, role, path, conn, reads, bm25)
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def _without_writers_lock(
    conn: Connection, root: str, specs: list[SourceSpec], reads: Reads
) -> tuple[Connection, FileChanges, dict[str, FileRow]] | None:
    """The sync when it is short (nothing, new stat data, appends, a short edit); None when
    it needs the writers' lock."""
    indexed = file_rows(conn)
    work = plan(index_sources.stat_sources(root, specs), indexed)
    if work.empty:
        return conn, FileChanges(), indexed
    if touched_only(conn, ONLY_PROJECT, work, indexed, reads):
        return conn, FileChanges(), file_rows(conn)
    # A journal that grew is the common change (every `mem write`), a notes file edited
    # in one place the next: SQLite's own write lock serialises such short work, so it
    # needs neither the file lock nor its import. A writer that holds SQLite's lock past
    # the busy timeout sends it the long way round.
    if not (_quick_only(conn, work, indexed, reads) and tables.begin_immediate(conn)):
        return None
    try:
        indexed = file_rows(conn)
        work = plan(index_sources.stat_sources(root, specs), indexed)
        if _quick_only(conn, work, indexed, reads):
            done = apply(conn, ONLY_PROJECT, work, indexed, reads)
            conn.execute("COMMIT")
            return conn, done, file_rows(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("ROLLBACK")
    return None


def _under_writers_lock(
    root: str, role: str, path: str, conn: Connection | None, reads: Reads, bm25: bool
) -> tuple[Connection, FileChanges, dict[str, FileRow]]:
    from mem.index import building  # a rebuild, or a long sync: never a warm recall

    with building.write_lock(path):
        if conn is None:
            conn = connection.usable(connection.connect(path), bm25)
        if conn is None:
            building.remove(path)
            building.remove_other_versions(path)
            done = _build_fresh(root, role, path, reads, bm25)
            conn = connection.connect_built(path)
            return conn, FileChanges(done.added, rebuilt=True), file_rows(conn)
        with building.transaction(conn):
            indexed = file_rows(conn)
            work = plan(index_sources.stat_sources(root, specs_for(root, role)), indexed)
            done = apply(conn, ONLY_PROJECT, work, indexed, reads)
        return conn, done, file_rows(conn)


def build_fresh(root: str, role: str, path: str, bm25: bool = False) -> FileChanges:
    """A whole new index of the root's files at `path` (replacing any file there); `bm25`:
    with the bm25 ranking's postings."""
    return _build_fresh(root, role, path, {}, bm25)


def _build_fresh(root: str, role: str, path: str, reads: Reads, bm25: bool) -> FileChanges:
    from mem.index import building

    with building.build(path, root) as fresh:
        project_id = tables.add_project(fresh, root, os.path.basename(root), role, found=True)
        assert project_id == ONLY_PROJECT
        present = index_sources.stat_sources(root, specs_for(root, role))
        return fill(fresh, project_id, present, path, reads, bm25)


def record_bytes(sources: Iterable[SourceStat]) -> int:
    """The bytes of notes and journals among `sources`: what a build parses into records
    (the other stores are loaded as rows), and so what it may share among processes."""
    return sum(source.size for source in sources if source.spec.kind not in STORE_KINDS)


def fill(
    conn: Connection,
    project_id: int,
    present: list[SourceStat],
    path: str,
    reads: Reads | None = None,
    bm25: bool = False,
) -> FileChanges:
    """Index a root's files in the index being built at `path`: as apply does, or, when
    its notes and journals are big enough, in several processes (mem.index.segments);
    `bm25`: with the bm25 ranking's postings."""
    from mem.index import build_progress, segments

    sized = record_bytes(present)
    workers = segments.workers(sized)
    shown = build_progress.shown
    inserter = tables.Inserter(conn, bm25)
    inserter.progress = shown
    try:
        if workers == 1:
            done = apply(conn, project_id, Plan(present, []), {}, reads, inserter)
            inserter.flush()
        else:
            with segments.Builder(inserter, path, workers, sized) as builder:
                done = apply(conn, project_id, Plan(present, []), {}, reads, builder)
                builder.flush()
    finally:
        if shown is not None:
            shown.clear()
    tables.drop_archived_repeats(conn, project_id, 0)
    return done
