"""Whether an index is in step with its root's files, by their stat data alone.

Freshness costs one stat per source: a file whose size, mtime and inode match the index
is trusted unless it is racily clean (modified too close to when it was last hashed,
where a same-size rewrite could hide behind an unchanged mtime). This is all a warm recall
does before its query; anything the plan finds goes to mem.index.sync.
"""

from __future__ import annotations

import os

from mem import layout
from mem.errors import MemError
from mem.files import index_sources, team
from mem.files.index_sources import SourceSpec, SourceStat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mem.index.rows import FileRow

# Filesystem timestamps can be as coarse as 2 s (FAT); within that window a stat proves nothing.
RACY_WINDOW_NS = 2_000_000_000

PROJECT_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.PROJECT)]
BRAIN_SOURCES = [SourceSpec(*source) for source in layout.sources(layout.BRAIN)]
SOURCES = {"project": PROJECT_SOURCES, "brain": BRAIN_SOURCES}
ARCHIVED_JOURNALS = layout.ARCHIVE_DIR
# The kind of an archive of a store other than the journal: indexed for its stat data and
# bytes alone, which say what the live store no longer counts (deviation D14).
ARCHIVE_KIND = "archive"


def archive_specs(root: str) -> list[SourceSpec]:
    """The archives `mem archive` made, oldest name first within each store. Archived
    journals are recalled on request; the others only tell the live store what it lost."""
    specs = []
    positions: dict[str, int] = {}
    for name in index_sources.listing(os.path.join(root, ARCHIVED_JOURNALS)):
        store = layout.archived_store(name)
        if store is None:
            continue
        position = positions.get(store, 0)
        positions[store] = position + 1
        kind = "journal" if store == "journal" else ARCHIVE_KIND
        specs.append(
            SourceSpec(layout.ARCHIVE_RANK_BASE + position, f"{ARCHIVED_JOURNALS}/{name}", kind)
        )
    return specs


def specs_for(root: str, role: str) -> list[SourceSpec]:
    """The sources a project's or a brain's index mirrors."""
    if role == "project":
        return SOURCES[role] + shard_specs(root) + archive_specs(root)
    return SOURCES[role]


def shard_specs(root: str) -> list[SourceSpec]:
    """A team project's shards (deviation D13): the journal's in candidate order after the
    classic journal (by month, then writer), the other stores' with their store's rank, and
    the note files after every classic notes file."""
    if not team.is_team(root):
        return []
    specs = []
    for spec in PROJECT_SOURCES:
        if spec.relative not in team.SHARD_FOLDERS:
            continue
        shards = team.shards(root, spec.relative)
        for position, relative in enumerate(shards):
            rank = layout.SHARD_RANK_BASE + position if spec.kind == "journal" else spec.rank
            specs.append(SourceSpec(rank, relative, spec.kind))
    buckets: dict[int, int] = {}
    days: dict[tuple[str, str], int] = {}
    for relative in team.note_files(root):
        folder, _, name = relative.rpartition("/")
        key = (folder, name[:10])
        bucket = days.get(key)
        if bucket is None:
            bucket = days[key] = note_bucket(relative)
        position = buckets.get(bucket, 0)
        if position >= NOTES_PER_BUCKET:
            raise MemError(f"More than {NOTES_PER_BUCKET} note files of one day in {folder}/.")
        buckets[bucket] = position + 1
        rank = layout.NOTE_FILE_RANK_BASE + bucket * NOTES_PER_BUCKET + position
        specs.append(SourceSpec(rank, relative, "notes"))
    return specs


def listed_folders(root: str) -> list[str]:
    """The folders whose files are a project's sources by being listed: the archives, and in
    team layout the shard folders (with each month's) and the note folders."""
    found = [ARCHIVED_JOURNALS]
    if team.is_team(root):
        for folder in team.SHARD_FOLDERS.values():
            found.append(folder)
            found += [f"{folder}/{month}" for month in team.months(root, folder)]
        found += list(layout.NOTE_DIRS.values())
    return found


NOTES_PER_BUCKET = 10_000
_DAYS = 100 * 372 + 1  # 2000-01-01 to 2099-12-31, and one bucket for undated names
_FOLDERS = {folder: position for position, folder in enumerate(layout.NOTE_FOLDERS)}


def note_bucket(relative: str) -> int:
    """A note file's rank bucket: its folder, then the date its name starts with. A new
    note shifts only the ranks of its folder's notes of that day (each rank change costs a
    re-read), and ranks follow the files' name order, as the names start with the date."""
    folder, _, name = relative.rpartition("/")
    major = _FOLDERS[folder]
    day = _DAYS - 1
    date = name[:10]
    if (
        len(date) == 10
        and date[4] == "-"
        and date[7] == "-"
        and (date[:4] + date[5:7] + date[8:]).isdigit()
        and "2000" <= date[:4] <= "2099"
    ):
        day = (int(date[:4]) - 2000) * 372 + (int(date[5:7]) - 1) * 31 + int(date[8:]) - 1
        day = min(max(day, 0), _DAYS - 2)
    return major * _DAYS + day


# Stores other than notes and the journal: loaded into tables of their own (with file_id
# in schema.sql and tables.FILE_TABLES), never into records.
STORE_KINDS = frozenset(
    {"evidence", "lifecycle", "outcomes", "pattern-scores", "promotions", "registry", ARCHIVE_KIND}
)
LIVE_STORES = {relative: name for name, relative in layout.ARCHIVABLE.items()}


def store_group(relative: str) -> str | None:
    """The archivable store (its name) a source belongs to, live or archived; None for others."""
    found = LIVE_STORES.get(relative)
    if found is None and relative.startswith(ARCHIVED_JOURNALS + "/"):
        found = layout.archived_store(relative.rpartition("/")[2])
    return found


def is_archive(relative: str) -> bool:
    return relative.startswith(ARCHIVED_JOURNALS + "/")


class Plan:
    """What a sync must look at: sources to hash, and indexed paths that are gone."""

    __slots__ = ("check", "removed")

    def __init__(self, check: list[SourceStat], removed: list[str]) -> None:
        self.check = check  # new, or stat changed, or racily clean: hash them
        self.removed = removed  # indexed paths that are no longer sources

    @property
    def empty(self) -> bool:
        return not self.check and not self.removed


def plan(present: list[SourceStat], indexed: dict[str, FileRow]) -> Plan:
    check = []
    for source in present:
        row = indexed.get(source.spec.relative)
        if row is None or not _trusted(source, row):
            check.append(source)
    wanted = {source.spec.relative for source in present}
    removed = sorted(path for path in indexed if path not in wanted)
    if check or removed:
        check = _with_archives(present, check, removed)
    return Plan(check, removed)


def _with_archives(
    present: list[SourceStat], check: list[SourceStat], removed: list[str]
) -> list[SourceStat]:
    """A store is read with its archives (deviation D14): when one of a store's archives is
    to be looked at, so are the store and its other archives, and a store other than the
    journal that has archives is looked at with them (its rows leave out their lines). The
    journal's records drop the lines of its archives in SQL, from the indexed ones."""
    touched: set[str] = set()
    for relative in [source.spec.relative for source in check] + removed:
        group = store_group(relative)
        if group is not None and (group != "journal" or is_archive(relative)):
            touched.add(group)
    if not touched:
        return check
    archived = {store_group(s.spec.relative) for s in present if is_archive(s.spec.relative)}
    archived.update(store_group(relative) for relative in removed if is_archive(relative))
    pulled = touched & archived
    if not pulled:
        return check
    taken = {source.spec.relative for source in check}
    extra = [
        source
        for source in present
        if source.spec.relative not in taken and store_group(source.spec.relative) in pulled
    ]
    if not extra:
        return check
    order = {id(source): position for position, source in enumerate(present)}
    return sorted(check + extra, key=lambda source: order[id(source)])


def _trusted(source: SourceStat, row: FileRow) -> bool:
    return (
        row.size == source.size
        and row.mtime_ns == source.mtime_ns
        and row.ctime_ns == source.ctime_ns
        and row.inode == source.inode
        and row.real_path == source.real
        and row.rank == source.spec.rank
        and row.mtime_ns < row.checked_ns - RACY_WINDOW_NS
    )
