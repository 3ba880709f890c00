"""The read-only copy of an index that `mem browse` serves, and the queries it offers.

Browse never serves the cache itself. A recall may re-sync (or rebuild and rename) the
index at any moment, and a database opened immutable is read without locks and without
its write-ahead log, so serving the live file could show a half-applied sync or stale
pages. Instead browse takes a consistent copy with SQLite's backup API (one read
transaction), adds the review tables of migrations/browse.sql, and serves that file,
which nothing writes once it is made. The cache stays mem's alone.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from typing import NamedTuple

from mem import index
from mem.errors import MemError
from mem.index import healing


def _browse_schema() -> str:
    with open(
        os.path.join(os.path.dirname(index._schema_path()), "browse.sql"), encoding="utf-8"
    ) as file:
        return file.read()


BROWSE_SCHEMA = _browse_schema()


# Pages that get a search box, and the full-text table (and key) that indexes them.
SEARCHABLE = {"notes": ("search", "id"), "events": ("search", "id"), "records": ("search", "id")}
# What a reference to a row of these tables shows instead of its id.
LABEL_COLUMNS = {"files": "path"}


def scratch_directory() -> contextlib.AbstractContextManager[str]:
    """Where the copy lives while browse runs; removed with everything in it afterwards."""
    return tempfile.TemporaryDirectory(prefix="mem-browse-")


class MemoryRow(NamedTuple):
    id: str
    file: str
    section: int
    heading: str
    revision: str
    status: str | None
    superseded_by: str | None
    retired_at: str | None
    reason: str | None
    audit: str | None


class SourceRow(NamedTuple):
    memory_id: str
    revision: str
    path: str
    status: str
    reason: str | None
    recorded_sha256: str
    current_sha256: str | None


class EligibilityRow(NamedTuple):
    receipt_id: str
    eligible: int
    eligibility: str


class Review(NamedTuple):
    """What the files say now, beyond what the index holds (see migrations/browse.sql)."""

    memories: list[MemoryRow]
    sources: list[SourceRow]
    eligibility: list[EligibilityRow]
    problems: list[tuple[str, str]]  # (part, message)


class Counts(NamedTuple):
    notes: int
    events: int


def make(root: str, path: str, review: Review) -> Counts:
    """Sync the project's index and copy it to `path` with the review tables added.

    A damaged cache is healed as for every read (mem.index.healing) before it is copied;
    a copy that cannot be written is a MemError naming it, and never costs the cache.
    """
    index.remove(path)  # what an interrupted browse left
    try:
        copy = sqlite3.connect(path, isolation_level=None)
        copy.execute("PRAGMA user_version")  # opens the file now: a bad place fails here
    except sqlite3.Error as error:
        raise MemError(f"Cannot write the snapshot {path}: {healing.describe(error)}") from None
    try:

        def use(open_index: healing.Opener) -> None:
            with open_index(root, "project") as opened:
                opened.conn.backup(copy)  # one read transaction: a consistent copy

        healing.answer(use)
        try:
            counts = _add_review(copy, review)
        except (sqlite3.Error, OSError) as error:
            raise MemError(f"Cannot write the snapshot {path}: {healing.describe(error)}") from None
    finally:
        copy.close()
    os.chmod(path, 0o444)
    return counts


def _add_review(copy: sqlite3.Connection, review: Review) -> Counts:
    # A rollback-journal file with no -wal beside it: what an immutable open expects.
    copy.execute("PRAGMA journal_mode = DELETE")
    copy.executescript(BROWSE_SCHEMA)
    copy.execute("BEGIN")
    _insert(copy, "memories", review.memories)
    _insert(copy, "memory_sources", review.sources)
    _insert(copy, "receipt_eligibility", review.eligibility)
    _insert(copy, "review_problems", review.problems)
    copy.execute("INSERT INTO search (search) VALUES ('rebuild')")
    copy.execute("COMMIT")
    notes = copy.execute("SELECT count(*) FROM notes").fetchone()[0]
    events = copy.execute("SELECT count(*) FROM events").fetchone()[0]
    return Counts(notes, events)


def _insert(conn: sqlite3.Connection, table: str, rows: Iterable[tuple[object, ...]]) -> None:
    listed = list(rows)
    if listed:
        marks = ", ".join("?" * len(listed[0]))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", listed)


def open_read_only(path: str) -> sqlite3.Connection:
    """The copy as Datasette opens it: immutable, so nothing can be written through it."""
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True)


class CannedQuery(NamedTuple):
    name: str
    title: str
    description: str
    sql: str


# Every word of :q is quoted, so what a person types is never FTS5 syntax; words must all
# appear (in any order). A blank :q matches nothing.
_SEARCH_TERMS = """WITH RECURSIVE words (word, rest) AS (
  SELECT '', trim(replace(replace(replace(:q, char(9), ' '), char(10), ' '), char(13), ' ')) || ' '
  UNION ALL
  SELECT substr(rest, 1, instr(rest, ' ') - 1), ltrim(substr(rest, instr(rest, ' ') + 1))
  FROM words WHERE rest <> ''
), terms (query) AS (
  SELECT group_concat('"' || replace(word, '"', '""') || '"', ' ') FROM words WHERE word <> ''
)"""

CANNED_QUERIES = [
    CannedQuery(
        "memories_needing_review",
        "Memories needing review",
        "Memories whose recorded evidence changed or went missing in the checkout (what"
        " `mem audit` said when browse started), one row per source that is not unchanged,"
        " missing first.",
        """SELECT m.file, m.heading, m.audit, s.path AS source, s.status AS source_status,
  s.reason, m.status AS lifecycle, m.id
FROM memories AS m
JOIN memory_sources AS s ON s.memory_id = m.id AND s.revision = m.revision
WHERE m.audit IN ('missing', 'changed') AND s.status <> 'unchanged'
ORDER BY m.audit = 'changed', m.file, m.section,
  CASE s.status WHEN 'missing' THEN 0 WHEN 'changed' THEN 1 ELSE 2 END, s.path""",
    ),
    CannedQuery(
        "retired_memories",
        "Retired memories",
        "Memories whose current text is superseded or retracted: plain recall leaves them out"
        " and evidence ranking drops them. Editing the text brings a memory back.",
        """SELECT m.file, m.heading, m.status,
  (SELECT successor.heading FROM memories AS successor
   WHERE successor.id = m.superseded_by ORDER BY successor.file, successor.section LIMIT 1)
   AS superseded_by, m.reason, m.retired_at, m.id
FROM memories AS m
WHERE m.status IN ('superseded', 'retracted')
ORDER BY m.file, m.section""",
    ),
    CannedQuery(
        "receipts_by_eligibility",
        "Outcome receipts by eligibility",
        "Every outcome receipt (outcomes.ndjson) with the eligibility `mem outcomes`"
        " gave it when browse started: accepted-current first, then by reason.",
        """SELECT coalesce(e.eligibility, 'undecided: see review_problems') AS eligibility,
  r.line, r.id, r.memory_file, r.memory_heading, r.run_id, r.task_id, r.ts
FROM receipts AS r
LEFT JOIN receipt_eligibility AS e ON e.receipt_id = r.id
ORDER BY e.eligible IS NULL, e.eligible DESC, eligibility, r.line""",
    ),
    CannedQuery(
        "events_per_agent_per_week",
        "Journal events per agent per week",
        "How many journal events each agent wrote, per week (weeks start on Monday, UTC),"
        " newest week first; events whose ts does not parse count under 'no date'.",
        """SELECT coalesce(date(ts_ms / 1000, 'unixepoch', 'weekday 0', '-6 days'), 'no date')
  AS week, agent, count(*) AS events
FROM events
GROUP BY week, agent
ORDER BY week DESC, events DESC, agent""",
    ),
    CannedQuery(
        "pattern_scores",
        "Pattern scores",
        "Every scored pattern, best first (mean, then Elo), as `mem patterns` lists it: its"
        " newest promotion's status and whether a patterns.md section has its heading.",
        """SELECT s.pattern_id, round(s.mean, 3) AS mean, round(s.elo, 1) AS elo,
  round(s.alpha, 3) AS alpha, round(s.beta, 3) AS beta, s.updates, s.last_ts,
  (SELECT p.status FROM promotions AS p WHERE p.pattern_id = s.pattern_id
   ORDER BY p.byte_offset DESC LIMIT 1) AS promotion,
  EXISTS (SELECT 1 FROM notes AS n WHERE n.heading = s.pattern_id
          AND (n.file = 'patterns.md' OR n.file LIKE '%/patterns.md')) AS in_patterns_md
FROM pattern_scores AS s
ORDER BY s.mean IS NULL, s.mean DESC, s.elo DESC, s.pattern_id""",
    ),
    CannedQuery(
        "search",
        "Search notes and events",
        "Notes and journal events containing every word of q (any order, any case,"
        " diacritics ignored), best match first.",
        f"""{_SEARCH_TERMS}
SELECT r.kind, f.path AS file, CASE r.kind WHEN 'note' THEN r.ref END AS heading,
  r.agent, r.ts, snippet(search, 0, '[', ']', ' … ', 16) AS excerpt
FROM search
JOIN records AS r ON r.id = search.rowid
JOIN files AS f ON f.id = r.file_id
WHERE search MATCH coalesce((SELECT query FROM terms), '""')
ORDER BY search.rank, r.id""",
    ),
]
