"""The portfolio index: one database for a brain and every project registered in it.

It is a project index with more than one root: the same schema (one `projects` row per
root, every other row reaching its root through `files.project_id`), filled and queried
by the same functions (`freshness.plan`, `sync.apply`, `index.candidates`). Only the choice
of roots is its own: the brain, whose `projects/*.yaml` registry entries are indexed as
sources too, and each project an entry names.

Freshness costs one `stat` per watched path of every root and no path resolution: each
root keeps the stat signature of the paths that vouch for its sources (`watch_paths`:
its sources, the folders a new one would appear in, the checkout files its evidence
names), and the check compares each root's signature with those paths' stat data now,
root by root. Only a root whose signature changed is planned file by file; a missing
project, only once its folder is back; a changed brain (its notes or its registry) has
every root reconciled with the registry. A root whose files were hashed too recently to
trust their stat (racily clean) keeps no signature, so it is planned every time until it
settles.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from mem import layout
from mem.core.rules import registry
from mem.files import index_sources
from mem.files.index_sources import SourceSpec
from mem.index import connection, freshness, location, queries, sync, tables
from mem.index.rows import ProjectRow, file_rows, project_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mem.index import segments

ROLE = location.PORTFOLIO  # of the index file, keyed by the brain's real path
REGISTRY_RANK = 200  # registry entries are indexed for audits, never recalled

# (projects done, projects in all, files read so far)
Progress = Callable[[int, int, int], None]


def brain_specs(brain: str) -> list[SourceSpec]:
    """The brain's notes and its registry entries, in name order."""
    folder = os.path.join(brain, registry.ENTRY_DIRECTORY)
    return freshness.BRAIN_SOURCES + [
        SourceSpec(REGISTRY_RANK, f"{registry.ENTRY_DIRECTORY}/{name}", "registry")
        for name in index_sources.listing(folder)
        # Only files are entries: anything else in projects/ is not mem's, and is left alone.
        if name.endswith(registry.ENTRY_SUFFIX)
        and index_sources.is_file(os.path.join(folder, name))
    ]


def root_specs(row: ProjectRow) -> list[SourceSpec]:
    if row.role == "brain":
        return brain_specs(row.path)
    return freshness.specs_for(row.path, "project")


class RootChanges:
    """What a sync of a portfolio index did to its roots."""

    __slots__ = ("projects", "files", "rebuilt")

    def __init__(self, projects: int = 0, files: int = 0, rebuilt: bool = False) -> None:
        self.projects = projects  # roots whose files were planned
        self.files = files  # files read and hashed
        self.rebuilt = rebuilt

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RootChanges) and (self.projects, self.files, self.rebuilt) == (
            other.projects,
            other.files,
            other.rebuilt,
        )

    def __repr__(self) -> str:
        return f"RootChanges(projects={self.projects}, files={self.files}, rebuilt={self.rebuilt})"


def open_portfolio_index(
    brain: str, path: str, progress: Progress | None, bm25: bool = False
) -> tuple[connection.Connection, RootChanges]:
    """The portfolio index at `path` brought in step with the brain and every project its
    registry names, and what that took; `bm25`: with the bm25 ranking's postings (an index
    without them is built again, with them). Callers go through mem.index.opening, which
    decides what a damaged cache costs."""
    conn = connection.usable(connection.connect(path), bm25)
    if conn is None:
        from mem.index import building  # a first sync: never a warm recall

        with building.write_lock(path):
            conn = connection.usable(connection.connect(path), bm25)
            if conn is None:
                building.remove(path)
                building.remove_other_versions(path)
                changes = build_portfolio(brain, path, progress, bm25)
                return connection.connect_built(path), changes
    stale = _stale_roots(conn, brain)
    if stale is None:
        return conn, RootChanges()
    # BEGIN IMMEDIATE serialises the writers; each re-plans against the rows as they are
    # inside its transaction, so a root another process just brought up to date costs nothing.
    return conn, tables.write_transaction(conn, lambda: _update(conn, brain, progress, stale))


def build_portfolio(
    brain: str, path: str, progress: Progress | None = None, bm25: bool = False
) -> RootChanges:
    """A whole new portfolio index at `path` (replacing any file there); `bm25`: with the
    bm25 ranking's postings."""
    from mem.index import building

    with building.build(path, brain) as fresh:
        if bm25:
            tables.start_bm25(fresh)
        changes = _update(fresh, brain, progress, None, path)
    changes.rebuilt = True
    return changes


def _stale_roots(conn: connection.Connection, brain: str) -> set[int] | None:
    """The roots whose sources changed since the last sync; None when every one is fresh.

    An empty set means the brain itself (its notes or its registry) changed: then the
    whole set of roots is reconciled with the registry.
    """
    rows = project_rows(conn)
    if not any(row.role == "brain" and row.path == brain for row in rows):
        return set()
    stale = set()
    for row in rows:
        if row.role == "project" and not row.found:
            if index_sources.is_folder(row.path):  # a missing project that is back
                stale.add(row.id)
        elif not _unchanged(row):
            if row.role == "brain":
                return set()
            stale.add(row.id)
    return stale or None


def _watched(row: ProjectRow) -> list[str]:
    """The paths a root's signature covers: its sources', then its checkout files'."""
    return row.watch.replace("\n\n", "\n").split("\n") if row.watch else []


def _unchanged(row: ProjectRow) -> bool:
    """Whether a root's watched paths have the stat data they had when it was last synced."""
    if row.signature is None or row.watch is None:
        return False
    # The sources' stat data, then the checkout files': the order _sync_root takes them in.
    return index_sources.watch_signature(row.path, _watched(row)) == row.signature


def _update(
    conn: connection.Connection,
    brain: str,
    progress: Progress | None,
    stale: set[int] | None,
    fresh_path: str | None = None,
) -> RootChanges:
    """Bring the given roots up to date, or (None, or an empty set) every root; `fresh_path`:
    the path of the fresh index being built, whose projects several processes may parse."""
    # One inserter for every root: its postings are written once, at the end (or whenever
    # it holds too many), not once per project.
    inserter = tables.Inserter(conn)
    since = inserter.next_id  # the records this update adds have ids from here on
    if stale:
        wanted = project_rows(conn, ids=stale)
    else:
        wanted = _reconcile(conn, brain, inserter)
    planned = files = 0
    builder = _builder(inserter, fresh_path, wanted)
    records: tables.Inserter | segments.Builder = inserter if builder is None else builder
    synced = []
    try:
        for done, row in enumerate(wanted, start=1):
            planned_files = _sync_root(conn, row, records)
            if planned_files is not None:
                planned += 1
                files += planned_files
                synced.append(row.id)
            if progress is not None:
                progress(done, len(wanted), files)
        records.flush()
        # Once every record is in (postings too): journal lines an archive holds (D14).
        for project_id in synced:
            tables.drop_archived_repeats(conn, project_id, 0 if builder else since)
    finally:
        if builder is not None:
            builder.close()  # the workers still running, after a failure
    return RootChanges(planned, files)


def _builder(
    inserter: tables.Inserter, fresh_path: str | None, roots: list[ProjectRow]
) -> segments.Builder | None:
    """In a fresh build whose projects hold enough notes and journals, a segments.Builder
    that shares their parsing out (by project, a big file by stretches); else None."""
    if fresh_path is None:
        return None
    from mem.index import segments  # first syncs only

    if segments.workers(1 << 62) == 1:
        return None
    sized = sync.record_bytes(
        source
        for row in roots
        if index_sources.is_folder(row.path)
        for source in index_sources.stat_sources(row.path, root_specs(row))
    )
    workers = segments.workers(sized)
    return None if workers == 1 else segments.Builder(inserter, fresh_path, workers, sized)


def _reconcile(
    conn: connection.Connection, brain: str, inserter: tables.Inserter
) -> list[ProjectRow]:
    """Sync the brain, then make the other roots its registry's projects; returns those."""
    roots = {(row.path, row.role): row for row in project_rows(conn)}
    brain_row = roots.pop((brain, "brain"), None)
    if brain_row is None:
        brain_row = _added(conn, brain, os.path.basename(brain) or brain, "brain")
    _sync_root(conn, brain_row, inserter)
    wanted: list[ProjectRow] = []
    taken: set[str] = set()  # the wanted projects' paths
    for entry_path, entry_name in registered(conn, brain_row.id):
        real = index_sources.real_path(os.path.join(brain, entry_path))
        name = registry.project_name(entry_name, real)
        row = roots.pop((real, "project"), None)
        if row is None:
            if real in taken:
                continue  # two entries name one project: the first one's name wins
            row = _added(conn, real, name, "project")
        elif row.name != name:
            tables.update_project(conn, row.id, name, bool(row.found), row.signature, row.watch)
            row.name = name
        wanted.append(row)
        taken.add(real)
    for gone in roots.values():
        tables.delete_project(conn, gone.id)
    return wanted


def _added(conn: connection.Connection, path: str, name: str, role: str) -> ProjectRow:
    project_id = tables.add_project(conn, path, name, role, found=False)
    return ProjectRow(project_id, path, name, role, 0, None, None)


def registered(conn: connection.Connection, brain_id: int) -> list[tuple[str, str | None]]:
    """(path, name) of each registry entry that names a folder, in entry-name order."""
    rows = conn.execute(
        "SELECT g.path, g.name FROM registry AS g JOIN files AS f ON f.id = g.file_id"
        " WHERE f.project_id = ? AND g.path IS NOT NULL AND g.path <> '' ORDER BY f.path",
        (brain_id,),
    )
    return [(row[0], row[1]) for row in rows]


def _sync_root(
    conn: connection.Connection, row: ProjectRow, inserter: tables.Inserter | segments.Builder
) -> int | None:
    """Plan and apply one root; the number of files read, None when its signature held."""
    if not index_sources.is_folder(row.path):
        # A project that disappeared is reported and skipped: it keeps its row, not its files.
        tables.clear_project(conn, row.id)
        tables.update_project(conn, row.id, row.name, False, None, None)
        return 0
    if row.found and _unchanged(row):
        return None
    # Stat data is always taken before what it vouches for is read: a change made while
    # syncing then shows at the next check.
    started_ns = time.time_ns()
    settled_ns = started_ns - freshness.RACY_WINDOW_NS
    specs = root_specs(row)
    files = [spec.relative for spec in specs]
    if row.role == "project":
        files.append(layout.SETTINGS)  # its appearing or an edit can change the layout (D13)
    watched = index_sources.watch_paths(row.path, files, _listed(row), settled_ns)
    signature, newest_ns = index_sources.watch_signature_and_newest(row.path, watched)
    indexed = file_rows(conn, row.id)
    work = freshness.plan(index_sources.stat_sources(row.path, specs), indexed)
    sync.apply(conn, row.id, work, indexed, inserter=inserter)
    read = len(work.check)
    watch = "\n".join(watched)
    checkouts_settled = True
    if row.role == "project" and _names_checkout_files(conn, row.id):
        from mem.index import checkout_rows  # only evidence that names files needs this module

        # The checkout files the evidence names, as the evidence now stands.
        paths = checkout_rows.evidence_paths(conn, row.id).get(row.id, [])
        checkout = index_sources.watch_paths(row.path, paths, [], settled_ns)
        if checkout:
            second, newest_checkout = index_sources.watch_signature_and_newest(row.path, checkout)
            signature, newest_ns = signature + second, max(newest_ns, newest_checkout)
            watch += "\n\n" + "\n".join(checkout)
        read += checkout_rows.sync_checkouts(conn, row.id, row.path, paths)
        checkouts_settled = checkout_rows.settled(conn, row.id)
    settled = newest_ns < settled_ns and checkouts_settled
    tables.update_project(conn, row.id, row.name, True, signature if settled else None, watch)
    return read


def _names_checkout_files(conn: connection.Connection, project_id: int) -> bool:
    """Whether a project's evidence names a source path, or it still keeps checkout rows.

    Most projects have neither; they then have no checkout files to read, keep or drop.
    """
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM evidence AS e JOIN files AS f ON f.id = e.file_id"
        " WHERE f.project_id = ? AND e.path IS NOT NULL)"
        " OR EXISTS (SELECT 1 FROM checkout_files WHERE project_id = ?)",
        (project_id, project_id),
    ).fetchone()
    return bool(row[0])


def _listed(row: ProjectRow) -> list[str]:
    """The folders whose sources are found by listing them."""
    if row.role == "brain":
        return [registry.ENTRY_DIRECTORY]
    return freshness.listed_folders(row.path)


def snapshot(conn: connection.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every root's content, as `snapshots.snapshot` gives it, keyed `<role> <path>: <table>`."""
    from mem.index import checkout_rows, snapshots  # `mem index check` and the tests only

    vectors = snapshots.postings_vectors(conn)  # decoded once for every root
    found: dict[str, list[tuple[object, ...]]] = {}
    for row in project_rows(conn):
        key = f"{row.role} {row.path}"
        found[f"{key}: project"] = [(row.name, row.found)]
        for table, table_rows in snapshots.snapshot(conn, row.id, vectors).items():
            assert isinstance(table_rows, list)
            found[f"{key}: {table}"] = table_rows
        found[f"{key}: checkout_files"] = checkout_rows.snapshot(conn, row.id)
    found["orphan_postings"] = list(snapshots.orphan_postings(vectors))
    return found


class Summary:
    """One root of the portfolio, for `mem status --portfolio`."""

    __slots__ = (
        "path",
        "name",
        "role",
        "found",
        "notes",
        "events",
        "last_write_ns",
        "retired",
        "evidence_changed",
    )

    def __init__(
        self,
        path: str,
        name: str,
        role: str,
        found: bool,
        notes: int,
        events: int,
        last_write_ns: int | None,
        retired: int,
        evidence_changed: int,
    ) -> None:
        self.path = path
        self.name = name
        self.role = role
        self.found = found
        self.notes = notes
        self.events = events
        self.last_write_ns = last_write_ns  # the newest mtime of its memory files
        self.retired = retired  # notes whose current revision is superseded or retracted
        self.evidence_changed = evidence_changed  # memories whose newest evidence changed


def summaries(conn: connection.Connection) -> list[Summary]:
    changed = dict(
        conn.execute(
            "SELECT project_id, count(DISTINCT memory_id) FROM evidence_state"
            " WHERE state IN ('changed', 'missing') GROUP BY project_id"
        ).fetchall()
    )
    found = []
    for row in project_rows(conn):
        notes, events, last_write = conn.execute(
            "SELECT coalesce(sum(r.kind = 'note'), 0), coalesce(sum(r.kind = 'event'), 0),"
            " (SELECT max(mtime_ns) FROM files WHERE project_id = ?)"
            f" FROM records AS r JOIN files AS f ON f.id = r.file_id"
            f" WHERE f.project_id = ? AND (f.rank < {layout.ARCHIVE_RANK_BASE}"
            f" OR f.rank >= {layout.NOTE_FILE_RANK_BASE})",
            (row.id, row.id),
        ).fetchone()
        found.append(
            Summary(
                row.path,
                row.name,
                row.role,
                bool(row.found),
                notes,
                events,
                last_write,
                len(queries.retired_notes(conn, [row.id])),
                changed.get(row.id, 0),
            )
        )
    return found
