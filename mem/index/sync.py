"""Keep an index in step with its root's canonical files.

Freshness costs one stat per source: a file whose size, mtime and inode match the index
is trusted unless it is racily clean (modified too close to when it was last hashed,
where a same-size rewrite could hide behind an unchanged mtime). Everything else is
hashed; only sources whose hash changed are re-parsed, and a journal that only grew has
just its new lines parsed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import NamedTuple

from mem import index, layout
from mem.core import parse
from mem.files import index_sources
from mem.files.index_sources import SourceSpec, SourceStat

# Filesystem timestamps can be as coarse as 2 s (FAT); within that window a stat proves nothing.
RACY_WINDOW_NS = 2_000_000_000

PROJECT_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.PROJECT)]
BRAIN_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.BRAIN)]
SOURCES = {"project": PROJECT_SOURCES, "brain": BRAIN_SOURCES}
ARCHIVED_JOURNALS = layout.ARCHIVE_DIR


def archived_journal_specs(root: str) -> list[SourceSpec]:
    """Journals moved by `mem archive journal`, oldest name first; recall reads them on request."""
    names = [
        name
        for name in index_sources.listing(os.path.join(root, ARCHIVED_JOURNALS))
        if name.startswith("journal-") and name.endswith(".ndjson")
    ]
    return [
        SourceSpec(layout.ARCHIVE_RANK_BASE + position, f"{ARCHIVED_JOURNALS}/{name}", "journal")
        for position, name in enumerate(names)
    ]


def specs_for(root: str, role: str) -> list[SourceSpec]:
    if role == "project":
        return SOURCES[role] + archived_journal_specs(root)
    return SOURCES[role]


TableRows = list[tuple[str, dict[str, object]]]


def _loader(module: str, function: str) -> Callable[[bytes], TableRows]:
    """A store's loader, imported only when that store changed: a recall never pays for it."""

    def load(data: bytes) -> TableRows:
        import importlib

        rows: TableRows = getattr(importlib.import_module(module), function)(data)
        return rows

    return load


# Stores other than notes and the journal: source kind -> rows for their own tables.
# A store adds a SourceSpec above, its tables (with file_id) to schema.sql and
# index.FILE_TABLES, and its loader here.
LOADERS: dict[str, Callable[[bytes], TableRows]] = {
    "evidence": _loader("mem.index.memory_rows", "evidence_rows"),
    "lifecycle": _loader("mem.index.memory_rows", "lifecycle_rows"),
    "outcomes": _loader("mem.core.receipts", "index_rows"),
    "pattern-scores": _loader("mem.index.pattern_rows", "score_rows"),
    "promotions": _loader("mem.index.pattern_rows", "promotion_rows"),
    "registry": _loader("mem.core.registry", "index_rows"),
}


class Plan(NamedTuple):
    check: list[SourceStat]  # new, or stat changed, or racily clean: hash them
    removed: list[str]  # indexed paths that are no longer sources

    @property
    def empty(self) -> bool:
        return not self.check and not self.removed


def plan(present: list[SourceStat], indexed: dict[str, index.FileRow]) -> Plan:
    check = []
    for source in present:
        row = indexed.get(source.spec.relative)
        if row is None or not _trusted(source, row):
            check.append(source)
    wanted = {source.spec.relative for source in present}
    return Plan(check, sorted(path for path in indexed if path not in wanted))


def _trusted(source: SourceStat, row: index.FileRow) -> bool:
    return (
        row.size == source.size
        and row.mtime_ns == source.mtime_ns
        and row.ctime_ns == source.ctime_ns
        and row.inode == source.inode
        and row.real_path == source.real
        and row.rank == source.spec.rank
        and row.mtime_ns < row.checked_ns - RACY_WINDOW_NS
    )


def digest(data: bytes) -> str:
    import xxhash  # only paid when bytes must be hashed

    return "xxh3:" + xxhash.xxh3_128_hexdigest(data)


def records_for(
    kind: str, data: bytes, base_offset: int = 0, relative: str = ""
) -> list[index.RecordRow]:
    """The recall rows of a source's bytes (or of a journal's appended tail).

    Notes of a project's six memory files also carry their memory id and revision, so
    audits can join them with evidence, lifecycle events and receipts in SQL.
    """
    if kind == "journal":
        return [_event_row(event) for event in parse.parse_journal(data, base_offset)]
    text = data.decode("utf-8", errors="replace")
    if relative not in layout.MEMORY_FILES:
        return [
            index.RecordRow(
                note.ordinal, "note", note.heading, note.display, parse.tokenize(note.text)
            )
            for note in parse.split_sections(text)
        ]
    from mem.core import memory  # hashing ids and revisions: only when memory files changed

    return [
        index.RecordRow(
            note.ordinal,
            "note",
            note.heading,
            note.display,
            parse.tokenize(note.text),
            memory_id=memory.memory_id(relative, note.heading),
            revision=memory.revision_of(note.display),
        )
        for note in parse.split_sections(text)
    ]


def _event_row(event: parse.Event) -> index.RecordRow:
    text = event.text
    moment = event.timestamp()
    ts = event.data.get("ts")
    return index.RecordRow(
        ordinal=event.offset,
        kind="event",
        ref=event.ref,
        text=text,
        terms=parse.tokenize(text),
        agent=event.agent,
        ts=None if ts is None else parse.to_js_string(ts),
        ts_ms=None if moment is None else moment.ms,
        ts_local=None if moment is None else int(moment.local),
        line=event.line,
    )


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Report(NamedTuple):
    added: int = 0
    changed: int = 0
    appended: int = 0
    removed: int = 0
    rebuilt: bool = False


def apply(
    conn: index.Connection, project_id: int, work: Plan, indexed: dict[str, index.FileRow]
) -> Report:
    """Carry out a plan for one indexed root, inside the caller's transaction."""
    added = changed = appended = 0
    for path in work.removed:
        index.delete_file(conn, indexed[path].id)
    for source in work.check:
        checked_ns = time.time_ns()
        data = index_sources.read_source(source.real)
        hashed = digest(data)
        row = indexed.get(source.spec.relative)
        spec = source.spec
        stat_args = (len(data), source.mtime_ns, source.inode, checked_ns)
        if _same_file_and_bytes(row, source, hashed):
            index.touch_file(conn, project_id, spec.relative, hashed, *stat_args, source.ctime_ns)
            continue
        file_id = index.upsert_file(
            conn,
            project_id,
            spec.relative,
            spec.kind,
            spec.rank,
            source.real,
            hashed,
            *stat_args,
            _is_utf8(data),
            source.ctime_ns,
        )
        if row is not None and _is_append(spec.kind, row, data):
            tail = records_for(spec.kind, data[row.size :], row.size, spec.relative)
            # A line already above is the same event (deviation D11), as a full parse finds.
            known = index.known_lines(conn, file_id, [record.line for record in tail])
            index.insert_records(conn, file_id, [r for r in tail if r.line not in known])
            appended += 1
            continue
        if row is None:
            added += 1
        else:
            changed += 1
            index.clear_file(conn, file_id)
        if spec.kind in LOADERS:
            index.insert_table_rows(conn, file_id, LOADERS[spec.kind](data))
        else:
            index.insert_records(conn, file_id, records_for(spec.kind, data, 0, spec.relative))
    return Report(added, changed, appended, len(work.removed))


def _same_file_and_bytes(row: index.FileRow | None, source: SourceStat, hashed: str) -> bool:
    """The indexed rows still hold: same real file, same candidate rank, same bytes."""
    return (
        row is not None
        and row.hash == hashed
        and row.real_path == source.real
        and row.rank == source.spec.rank
    )


def touched_only(
    conn: index.Connection, project_id: int, work: Plan, indexed: dict[str, index.FileRow]
) -> bool:
    """Racily clean files whose bytes did not change need only a new stat: no parse, no lock."""
    if work.removed:
        return False
    touches = []
    for source in work.check:
        row = indexed.get(source.spec.relative)
        if row is None:
            return False
        checked_ns = time.time_ns()
        data = index_sources.read_source(source.real)
        if not _same_file_and_bytes(row, source, digest(data)):
            return False
        touches.append(
            (
                project_id,
                source.spec.relative,
                row.hash,
                len(data),
                source.mtime_ns,
                source.inode,
                checked_ns,
                source.ctime_ns,
            )
        )
    with index.transaction(conn):
        for touch in touches:
            index.touch_file(conn, *touch)
    return True


def _is_append(kind: str, row: index.FileRow, data: bytes) -> bool:
    """A journal that only grew after a complete line: its old records all stay valid."""
    return (
        kind == "journal"
        and len(data) > row.size
        and (row.size == 0 or data[row.size - 1 : row.size] == b"\n")
        and digest(data[: row.size]) == row.hash
    )


@contextlib.contextmanager
def synced(
    root: str, role: str = "project", directory: str | None = None
) -> Iterator[tuple[index.Connection, Report]]:
    """An index connection that reflects the root's files as they are now.

    The index lives in `directory` when given, else in the user's cache. Callers go through
    mem.index.healing, which decides what a damaged cache costs.
    """
    directory = directory or index.usable_cache_dir()
    if directory is None:
        # No writable cache: answer from a throwaway index rather than not at all.
        with index.temporary_directory() as scratch:
            conn, report = _sync(root, role, index.index_path(root, role, scratch))
            try:
                yield conn, report
            finally:
                conn.close()
        return
    conn, report = _sync(root, role, index.index_path(root, role, directory))
    try:
        yield conn, report
    finally:
        conn.close()


def sync_project(root: str) -> Report:
    """Bring the project's index up to date; cheap when nothing changed."""
    with synced(root) as (_, report):
        return report


def would_change(work: Plan, indexed: dict[str, index.FileRow]) -> bool:
    """Whether syncing would change the index's rows, not just refresh stat data.

    Recall's own rule (see _touched_only): a racily clean file whose bytes hash as indexed
    changes nothing. `mem status` reports freshness with it.
    """
    if work.removed:
        return True
    for source in work.check:
        row = indexed.get(source.spec.relative)
        data = index_sources.read_source(source.real)
        if row is None or not _same_file_and_bytes(row, source, digest(data)):
            return True
    return False


def _sync(root: str, role: str, path: str) -> tuple[index.Connection, Report]:
    specs = specs_for(root, role)
    conn = index.connect(path)
    if conn is not None:
        indexed = index.file_rows(conn)
        work = plan(index_sources.stat_sources(root, specs), indexed)
        if work.empty or touched_only(conn, index.ONLY_PROJECT, work, indexed):
            return conn, Report()
    with index.write_lock(path):
        if conn is None:
            conn = index.connect(path)
        if conn is None:
            index.remove(path)
            index.remove_other_versions(path)
            report = build_fresh(root, role, path)
            conn = index.connect(path)
            assert conn is not None, "a freshly built index must open"
            return conn, Report(report.added, rebuilt=True)
        with index.transaction(conn):
            indexed = index.file_rows(conn)
            work = plan(index_sources.stat_sources(root, specs), indexed)
            report = apply(conn, index.ONLY_PROJECT, work, indexed)
        return conn, report


def build_fresh(root: str, role: str, path: str) -> Report:
    """A whole new index of the root's files at `path` (replacing any file there)."""
    with index.build(path, root) as fresh:
        project_id = index.add_project(fresh, root, os.path.basename(root), role, found=True)
        assert project_id == index.ONLY_PROJECT
        present = index_sources.stat_sources(root, specs_for(root, role))
        return apply(fresh, project_id, Plan(present, []), {})
