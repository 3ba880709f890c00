"""The portfolio index: one database for a brain and every project registered in it.

It is a project index with more than one root: the same schema (one `projects` row per
root, every other row reaching its root through `files.project_id`), filled and queried
by the same functions (`freshness.plan`, `sync.apply`, `index.candidates`). Only the choice
of roots is its own: the brain, whose `projects/*.yaml` registry entries are indexed as
sources too, and each project an entry names.

Freshness costs one `stat` per source of every root and no path resolution: each root
keeps the stat signature of its sources, and only a root whose signature changed is
planned file by file. A root whose files were hashed too recently to trust their stat
(racily clean) keeps no signature, so it is planned every time until it settles.

Every sync ends by keeping, in `meta`, where each root's watched paths are (the
`WATCH_KEYS` rows: the roots in order with their number of paths, every watched path
joined to its root, the missing projects' paths), rewritten only when those change, and
the digest of every root's signature end to end (`SIGNATURES_KEY`). A check then stats
every path in one batch: with nothing changed the batch has that digest, and the check
has read one `meta` query; otherwise it compares the batch with the roots' signatures,
and a root whose slice differs is stale without being asked again.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable

import xxhash

from mem import layout
from mem.core import registry
from mem.files import index_sources
from mem.files.index_sources import SourceSpec
from mem.index import connection, freshness, location, queries, sync, tables
from mem.index.rows import ProjectRow, file_rows, project_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mem.index import segments

ROLE = location.PORTFOLIO  # of the index file, keyed by the brain's real path
REGISTRY_RANK = 200  # registry entries are indexed for audits, never recalled

# meta rows of the freshness check's fast path, written in the same transaction as the roots.
WATCH_KEYS = ("watched_brain", "watched_roots", "watched_paths", "watched_missing")
SIGNATURES_KEY = "watched_signatures"  # and the digest of every root's signature, end to end
STAT_DATA_KEY = "watched_stat_data"  # and those signatures themselves, read when it differs

# (projects done, projects in all, files read so far)
Progress = Callable[[int, int, int], None]


def index_path(brain: str, directory: str | None = None) -> str:
    return location.index_path(brain, ROLE, directory)


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
    brain: str, path: str, progress: Progress | None
) -> tuple[connection.Connection, RootChanges]:
    """The portfolio index at `path` brought in step with the brain and every project its
    registry names, and what that took. Callers go through mem.index.opening, which decides
    what a damaged cache costs."""
    conn = connection.connect(path)
    if conn is None:
        from mem.index import building  # a first sync: never a warm recall

        with building.write_lock(path):
            conn = connection.connect(path)
            if conn is None:
                building.remove(path)
                building.remove_other_versions(path)
                changes = build_portfolio(brain, path, progress)
                return connection.connect_built(path), changes
    decided, stale = _quick_check(conn, brain)
    if not decided:
        stale = _stale_roots_one_by_one(conn, brain)
        if stale is None:  # an index synced before these rows were kept (or not in step)
            _remember_watch_unless_busy(conn, brain)
    if stale is None:
        return conn, RootChanges()
    # BEGIN IMMEDIATE serialises the writers; each re-plans against the rows as they are
    # inside its transaction, so a root another process just brought up to date costs nothing.
    return conn, tables.write_transaction(conn, lambda: _update(conn, brain, progress, stale))


def build_portfolio(brain: str, path: str, progress: Progress | None = None) -> RootChanges:
    """A whole new portfolio index at `path` (replacing any file there)."""
    from mem.index import building

    with building.build(path, brain) as fresh:
        changes = _update(fresh, brain, progress, None, path)
    changes.rebuilt = True
    return changes


def _stale_roots(conn: connection.Connection, brain: str) -> set[int] | None:
    """The roots whose sources changed since the last sync; None when every one is fresh.

    An empty set means the brain itself (its notes or its registry) changed: then the
    whole set of roots is reconciled with the registry.
    """
    decided, stale = _quick_check(conn, brain)
    return stale if decided else _stale_roots_one_by_one(conn, brain)


def _stale_roots_one_by_one(conn: connection.Connection, brain: str) -> set[int] | None:
    """_stale_roots from every root's own row."""
    rows = project_rows(conn)
    if not any(row.role == "brain" and row.path == brain for row in rows):
        return set()
    stale = set()
    kept: list[ProjectRow] = []
    for row in rows:
        if row.role == "project" and not row.found:
            if index_sources.is_folder(row.path):
                stale.add(row.id)
        elif row.signature is None or row.watch is None:
            if row.role == "brain":
                return set()
            stale.add(row.id)
        else:
            kept.append(row)
    for row in _changed(kept):
        if row.role == "brain":
            return set()
        stale.add(row.id)
    return stale or None


def _layout(watched_roots: str) -> list[tuple[int, str]]:
    """The `watched_roots` row: each root's id, in order, with its number of watched paths
    ("-" for a missing project, which has none)."""
    if not watched_roots:
        return []
    entries = watched_roots.replace(":", ",").split(",")
    return list(zip(map(int, entries[0::2]), entries[1::2], strict=True))


def _quick_check(conn: connection.Connection, brain: str) -> tuple[bool, set[int] | None]:
    """(decided, _stale_roots) from the `WATCH_KEYS` rows and the roots' signatures alone.

    Undecided when the rows are not kept, do not match the roots, or a root keeps no
    signature (or one the batch cannot give): the check then goes root by root.
    """
    undecided: tuple[bool, set[int] | None] = (False, None)
    keys = (*WATCH_KEYS, SIGNATURES_KEY)
    marks = ",".join("?" * len(keys))
    kept = dict(conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", keys))
    if any(key not in kept for key in WATCH_KEYS):
        return undecided
    brain_id, _, brain_path = kept["watched_brain"].partition("\n")
    if brain_path != brain:
        return undecided
    paths = kept["watched_paths"].split(b"\0") if kept["watched_paths"] else []
    missing = kept["watched_missing"].split(b"\0") if kept["watched_missing"] else []
    # Without the row a root keeps no signature (it is planned anyway), or the index
    # predates the row: the roots' rows decide, and the batch is taken only if they can.
    batched = SIGNATURES_KEY in kept
    now = index_sources.watch_signatures(paths) if batched else None
    if (
        now is not None
        and xxhash.xxh3_128_digest(now) == kept[SIGNATURES_KEY]
        and not any(map(index_sources.is_folder, missing))
    ):
        return True, None  # the common case, decided without reading a root's row
    if now is not None:
        kept_stat_data = _kept_stat_data(conn, kept[SIGNATURES_KEY])
        if kept_stat_data is not None and len(kept_stat_data) == len(now):
            # A root written since (the common case after a write): found by halving the
            # batch, without reading a root's row.
            return _differing_roots(kept["watched_roots"], brain_id, now, kept_stat_data, missing)
    signatures = dict(conn.execute("SELECT id, signature FROM projects"))
    layout = _layout(kept["watched_roots"])
    if len(layout) != len(signatures):
        return undecided
    stale = set()
    # The roots whose paths are watched, in order: (root, its signature, its paths' bytes).
    found: list[tuple[int, bytes | None, int]] = []
    for root, count in layout:
        if root not in signatures:
            return undecided
        if count == "-":  # a missing project: stale once its folder is back
            if index_sources.is_folder(missing.pop(0)):
                stale.add(root)
            continue
        size = int(count) * index_sources.SIGNATURE_BYTES
        signature = signatures[root]
        if signature is None:
            # Synced within the racy window (a write a moment before, say): stale until a
            # sync vouches for it. The batch still decides for every other root, so the
            # recalls right after a write do not take a second batch root by root.
            if str(root) == brain_id:
                return True, set()
            stale.add(root)
        elif len(signature) != size:
            return undecided
        found.append((root, signature, size))
    if not batched:
        now = index_sources.watch_signatures(paths)
    if now is None or len(now) != sum(size for _, _, size in found):
        return undecided
    expected = b"".join(signature or b"" for _, signature, _ in found)
    if now != expected:
        start = 0
        for root, signature, size in found:
            end = start + size
            if signature is not None and now[start:end] != signature:
                if str(root) == brain_id:
                    return True, set()  # the brain changed: reconcile every root
                stale.add(root)
            start = end
    if not stale and kept.get(SIGNATURES_KEY) != xxhash.xxh3_128_digest(expected):
        return undecided  # fresh, but that row is not kept (or not in step): the slow way
    return True, stale or None


def _kept_stat_data(conn: connection.Connection, digest: bytes) -> bytes | None:
    """The `STAT_DATA_KEY` row, when it is the one the digest was taken of."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (STAT_DATA_KEY,)).fetchone()
    if row is None or xxhash.xxh3_128_digest(row[0]) != digest:
        return None
    return bytes(row[0])


def _differing_roots(
    layout: str, brain_id: str, now: bytes, kept: bytes, missing: list[bytes]
) -> tuple[bool, set[int] | None]:
    """_quick_check's verdict from the stat data the roots kept, end to end in `layout`'s
    order, against the batch's: each root whose part differs is stale (the brain: every root)."""
    stale = set()
    watched: list[int] = []  # the roots whose paths the batch stats, in order
    bounds = [0]  # where each one's part starts in the batch, then where the last ends
    missing_paths = iter(missing)
    for root, count in _layout(layout):
        if count == "-":  # a missing project: stale once its folder is back
            if index_sources.is_folder(next(missing_paths)):
                stale.add(root)
            continue
        watched.append(root)
        bounds.append(bounds[-1] + int(count) * index_sources.SIGNATURE_BYTES)
    # Halving: a part that is the same in both is settled with one comparison, so a few
    # changed roots among thousands cost a few dozen comparisons.
    parts = [(0, len(watched))]
    while parts:
        first, end = parts.pop()
        start, stop = bounds[first], bounds[end]
        if now[start:stop] == kept[start:stop]:
            continue
        if end - first > 1:
            middle = (first + end) // 2
            parts += [(first, middle), (middle, end)]
        elif str(watched[first]) == brain_id:
            return True, set()  # the brain changed: reconcile every root
        else:
            stale.add(watched[first])
    return True, stale or None


def _remember_watch_unless_busy(conn: connection.Connection, brain: str) -> None:
    """_remember_watch in its own transaction, unless another writer holds the index now.

    The rows only save the next check time: a recall never waits for them.
    """
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        began = tables.begin_immediate(conn)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {connection.BUSY_TIMEOUT_MS}")
    if not began:
        return
    try:
        _remember_watch(conn, brain)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _remember_watch(conn: connection.Connection, brain: str) -> None:
    """Keep the `WATCH_KEYS` rows in step with the roots (rewritten only when they moved)."""
    rows = project_rows(conn)
    brain_rows = [row for row in rows if row.role == "brain" and row.path == brain]
    marks = ",".join("?" * len(WATCH_KEYS))
    if not brain_rows:
        conn.execute(f"DELETE FROM meta WHERE key IN ({marks})", WATCH_KEYS)
        _remember_signatures(conn)
        return
    layout = []
    paths: list[list[str]] = []
    missing = []
    for row in rows:
        if row.role == "project" and not row.found:
            layout.append(f"{row.id}:-")
            missing.append(row.path)
        else:
            # Joined to its root as the batch stats them: nothing resolved.
            paths.append(index_sources.watched_files(row.path, _watched(row)))
            layout.append(f"{row.id}:{len(paths[-1])}")
    # Paths as the file system spells them, NUL-separated: the one byte no path holds.
    values: tuple[object, ...] = (
        f"{brain_rows[0].id}\n{brain}",
        ",".join(layout),
        os.fsencode("\0".join(itertools.chain.from_iterable(paths))),
        os.fsencode("\0".join(missing)),
    )
    kept = dict(conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", WATCH_KEYS))
    if tuple(kept.get(key) for key in WATCH_KEYS) != values:
        conn.execute(f"DELETE FROM meta WHERE key IN ({marks})", WATCH_KEYS)
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            list(zip(WATCH_KEYS, values, strict=True)),
        )
    _remember_signatures(conn)


def _remember_signatures(conn: connection.Connection) -> None:
    """Keep the `SIGNATURES_KEY` row: the xxh3-128 digest of every watched root's
    signature, end to end in the order of `watched_roots` (16 bytes to write and read, not
    40 a path; file contents are compared by the same digest); no row while one of them
    keeps none (or not of its length).

    Every write to the roots' rows ends here, in the same transaction, so a check whose
    stat data of `watched_paths` has this digest knows every root is fresh.
    """
    conn.execute("DELETE FROM meta WHERE key IN (?, ?)", (SIGNATURES_KEY, STAT_DATA_KEY))
    # Right after a write, the root written keeps none: decided without reading every
    # root's signature (a root that is there keeps its paths in `watched_roots`).
    racy = "SELECT EXISTS (SELECT 1 FROM projects WHERE found AND signature IS NULL)"
    if conn.execute(racy).fetchone()[0]:
        return
    kept = conn.execute("SELECT value FROM meta WHERE key = 'watched_roots'").fetchone()
    signatures = dict(conn.execute("SELECT id, signature FROM projects"))
    layout = _layout(kept[0]) if kept else []
    if not layout or len(layout) != len(signatures):
        return
    signed = []
    for root, count in layout:
        if count == "-":
            continue
        signature = signatures.get(root)
        if signature is None or len(signature) != int(count) * index_sources.SIGNATURE_BYTES:
            return
        signed.append(signature)
    stat_data = b"".join(signed)
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [(SIGNATURES_KEY, xxhash.xxh3_128_digest(stat_data)), (STAT_DATA_KEY, stat_data)],
    )


def _changed(rows: list[ProjectRow]) -> list[ProjectRow]:
    """The roots (each with a signature) whose watched paths' stat data moved.

    Every root's paths are stat'ed in one batch, and each root's part of the result is
    compared with its signature; only a root whose part differs is asked again on its own,
    which also decides for a root whose numbers the batch could not pack.
    """
    watched = [_watched_files(row) for row in rows]
    now = index_sources.watch_signatures(list(itertools.chain.from_iterable(watched)))
    if now is not None and now == b"".join(row.signature or b"" for row in rows):
        return []
    changed = []
    start = 0
    for row, paths in zip(rows, watched, strict=True):
        end = start + len(paths) * index_sources.SIGNATURE_BYTES
        if (now is None or now[start:end] != row.signature) and not _unchanged(row):
            changed.append(row)
        start = end
    return changed


def _watched(row: ProjectRow) -> list[str]:
    """The paths a root's signature covers: its sources', then its checkout files'."""
    return row.watch.replace("\n\n", "\n").split("\n") if row.watch else []


def _watched_files(row: ProjectRow) -> list[str]:
    """index_sources.watched_files of _watched(row), in two string operations (1000s of roots)."""
    if not row.watch:
        return []
    prefix = row.path.rstrip(os.sep) + os.sep
    return (prefix + row.watch.replace("\n\n", "\n").replace("\n", "\n" + prefix)).split("\n")


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
    if stale:
        wanted = project_rows(conn, ids=stale)
    else:
        wanted = _reconcile(conn, brain, inserter)
    planned = files = 0
    builder = _builder(inserter, fresh_path, wanted)
    records: tables.Inserter | segments.Builder = inserter if builder is None else builder
    try:
        for done, row in enumerate(wanted, start=1):
            planned_files = _sync_root(conn, row, records)
            if planned_files is not None:
                planned += 1
                files += planned_files
            if progress is not None:
                progress(done, len(wanted), files)
        records.flush()
    finally:
        if builder is not None:
            builder.close()  # the workers still running, after a failure
    if not stale or _moved(conn, wanted):
        _remember_watch(conn, brain)
    else:
        _remember_signatures(conn)
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


def _moved(conn: connection.Connection, roots: list[ProjectRow]) -> bool:
    """Whether syncing these roots changed where their watched paths are (or if found)."""
    members = ",".join(str(int(row.id)) for row in roots)
    after = {
        found[0]: found[1:]
        for found in conn.execute(f"SELECT id, found, watch FROM projects WHERE id IN ({members})")
    }
    return any(after.get(row.id) != (row.found, row.watch) for row in roots)


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
    watched = index_sources.watch_paths(
        row.path, [spec.relative for spec in specs], _listed(row), settled_ns
    )
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
    return [freshness.ARCHIVED_JOURNALS]


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
            f" WHERE f.project_id = ? AND f.rank < {layout.ARCHIVE_RANK_BASE}",
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
