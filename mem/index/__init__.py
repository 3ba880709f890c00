"""The disposable SQLite index: the only package that talks to SQLite.

Readers outside the package use what this module re-exports; the rest is the package's
own (see docs/how-it-works.md for the map). Everything re-exported here is on the warm
recall path, so importing the package loads no writer's code.
"""

from mem.index.connection import Connection, connect, keep_open
from mem.index.location import (
    BRAIN,
    INDEX_VERSION,
    PORTFOLIO,
    PROJECT,
    cache_dir,
    index_path,
    schema,
    usable_cache_dir,
)
from mem.index.opening import FAULTS, Opened, answer, describe, healed, sync_project
from mem.index.queries import (
    RecallFiles,
    counts,
    fetch,
    has_lifecycle_events,
    newest_first,
    note_texts,
    notes_by_recency,
    notes_count,
    notes_headed,
    notes_with_evidence_on,
    record_count,
    records_holding,
    retired_notes,
    score_inputs,
)
from mem.index.rows import (
    ONLY_PROJECT,
    FileRow,
    ProjectRow,
    RecordRow,
    ScoreInputs,
    StoredRecord,
    file_rows,
    project_rows,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mem.index.opening import OpenIndex

__all__ = [
    "BRAIN",
    "FAULTS",
    "INDEX_VERSION",
    "ONLY_PROJECT",
    "PORTFOLIO",
    "PROJECT",
    "Connection",
    "FileRow",
    "OpenIndex",
    "Opened",
    "ProjectRow",
    "RecordRow",
    "ScoreInputs",
    "StoredRecord",
    "answer",
    "cache_dir",
    "connect",
    "counts",
    "describe",
    "fetch",
    "file_rows",
    "has_lifecycle_events",
    "healed",
    "index_path",
    "keep_open",
    "note_texts",
    "newest_first",
    "notes_by_recency",
    "notes_count",
    "notes_headed",
    "notes_with_evidence_on",
    "project_rows",
    "RecallFiles",
    "record_count",
    "records_holding",
    "retired_notes",
    "schema",
    "score_inputs",
    "sync_project",
    "usable_cache_dir",
]
