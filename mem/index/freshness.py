"""Whether an index is in step with its root's files, by their stat data alone.

Freshness costs one stat per source: a file whose size, mtime and inode match the index
is trusted unless it is racily clean (modified too close to when it was last hashed,
where a same-size rewrite could hide behind an unchanged mtime). This is all a warm recall
does before its query; anything the plan finds goes to mem.index.sync.
"""

from __future__ import annotations

import os

from mem import layout
from mem.files import index_sources
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
    """The sources a project's or a brain's index mirrors."""
    if role == "project":
        return SOURCES[role] + archived_journal_specs(root)
    return SOURCES[role]


# Stores other than notes and the journal: loaded into tables of their own (with file_id
# in schema.sql and tables.FILE_TABLES), never into records.
STORE_KINDS = frozenset(
    {"evidence", "lifecycle", "outcomes", "pattern-scores", "promotions", "registry"}
)


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
    return Plan(check, sorted(path for path in indexed if path not in wanted))


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
