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
from collections.abc import Callable, Iterable
from typing import NamedTuple

from mem.errors import MemError
from mem.index import building, location, opening, portfolio


def _browse_schema() -> str:
    with open(
        os.path.join(os.path.dirname(location.schema_path()), "browse.sql"), encoding="utf-8"
    ) as file:
        return file.read()


BROWSE_SCHEMA = _browse_schema()


# Pages that get a search box, and the full-text table (and key) that indexes them.
SEARCHABLE = {"notes": ("search", "id"), "events": ("search", "id"), "records": ("search", "id")}
# What a reference to a row of these tables shows instead of its id.
LABEL_COLUMNS = {"files": "path"}
# The index's own machinery: listed only under "hidden tables" (the views and queries show
# what they hold in a form a person reads).
INTERNAL_TABLES = (
    "meta",
    "files",
    "records",
    "terms",
    "postings",
    "file_blocks",
    "checkout_files",
    "search",
)
# What the database's page offers first: (the view or canned query, what it is called).
START = (
    ("notes", "Notes"),
    ("events", "Journal events"),
    ("memories_needing_review", "Memories needing review"),
    ("search", "Search notes and events"),
)


def scratch_directory() -> contextlib.AbstractContextManager[str]:
    """Where the copy lives while browse runs; removed with everything in it afterwards."""
    return tempfile.TemporaryDirectory(prefix="mem-browse-")


class Root(NamedTuple):
    """A project of the copy (the project itself, or one found in the portfolio)."""

    path: str
    name: str


class MemoryRow(NamedTuple):
    project: str
    project_name: str
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
    project: str
    memory_id: str
    revision: str
    path: str
    status: str
    reason: str | None
    recorded_sha256: str
    current_sha256: str | None


class EligibilityRow(NamedTuple):
    project: str
    receipt_id: str
    eligible: int
    eligibility: str


class Problem(NamedTuple):
    project: str
    part: str
    problem: str


class Review(NamedTuple):
    """What the files say now, beyond what the index holds (see migrations/browse.sql)."""

    memories: list[MemoryRow]
    sources: list[SourceRow]
    eligibility: list[EligibilityRow]
    problems: list[Problem]


class Counts(NamedTuple):
    projects: int
    notes: int
    events: int


def make(
    path: str,
    review_of: Callable[[list[Root]], Review],
    *,
    root: str | None = None,
    brain: str | None = None,
    progress: portfolio.Progress | None = None,
) -> tuple[Counts, Review]:
    """Sync the project's (or the brain's portfolio) index and copy it to `path`, read-only,
    with the review tables added: `review_of` computes them for the copy's projects.

    A damaged cache is healed as for every read (mem.index.opening) before it is copied;
    a copy that cannot be written is a MemError naming it, and never costs the cache.
    """
    building.remove(path)  # what an interrupted browse left
    try:
        copy = sqlite3.connect(path, isolation_level=None)
        copy.execute("PRAGMA user_version")  # opens the file now: a bad place fails here
    except sqlite3.Error as error:
        raise MemError(f"Cannot write the snapshot {path}: {opening.describe(error)}") from None
    try:

        def backup(open_index: opening.OpenIndex) -> None:
            if brain is not None:
                source = open_index(brain, location.PORTFOLIO)
            else:
                assert root is not None, "a copy of a project's index or of a portfolio's"
                source = open_index(root)
            source.conn.backup(copy)  # within the read transaction: a consistent copy

        opening.answer(backup, progress)
        roots = [
            Root(*row)
            for row in copy.execute(
                "SELECT path, name FROM projects WHERE role = 'project' AND found"
                " ORDER BY name, path"
            )
        ]
        review = review_of(roots)
        try:
            counts = _add_review(copy, review, len(roots))
        except (sqlite3.Error, OSError) as error:
            raise MemError(f"Cannot write the snapshot {path}: {opening.describe(error)}") from None
    finally:
        copy.close()
    os.chmod(path, 0o444)
    return counts, review


def _add_review(copy: sqlite3.Connection, review: Review, projects: int) -> Counts:
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
    return Counts(projects, notes, events)


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


def canned_queries(*, portfolio: bool) -> list[CannedQuery]:
    """The canned queries; over a portfolio each row names its project first."""
    named = "p.name AS project, " if portfolio else ""
    return [
        CannedQuery(
            "memories_needing_review",
            "Memories needing review",
            "Memories whose recorded evidence changed or went missing in the checkout (what"
            " `mem audit` said when browse started), one row per source that is not"
            " unchanged, missing first.",
            f"""SELECT {named.replace("p.name", "m.project_name")}m.file, m.heading, m.audit,
  s.path AS source, s.status AS source_status, s.reason, m.status AS lifecycle, m.id
FROM memories AS m
JOIN memory_sources AS s
  ON s.project = m.project AND s.memory_id = m.id AND s.revision = m.revision
WHERE m.audit IN ('missing', 'changed') AND s.status <> 'unchanged'
ORDER BY m.audit = 'changed', m.project_name, m.project, m.file, m.section,
  CASE s.status WHEN 'missing' THEN 0 WHEN 'changed' THEN 1 ELSE 2 END, s.path""",
        ),
        CannedQuery(
            "retired_memories",
            "Retired memories",
            "Memories whose current text is superseded or retracted: plain recall leaves them"
            " out and evidence ranking drops them. Editing the text brings a memory back.",
            f"""SELECT {named.replace("p.name", "m.project_name")}m.file, m.heading, m.status,
  (SELECT successor.heading FROM memories AS successor
   WHERE successor.project = m.project AND successor.id = m.superseded_by
   ORDER BY successor.file, successor.section LIMIT 1) AS superseded_by,
  m.reason, m.retired_at, m.id
FROM memories AS m
WHERE m.status IN ('superseded', 'retracted')
ORDER BY m.project_name, m.project, m.file, m.section""",
        ),
        CannedQuery(
            "receipts_by_eligibility",
            "Outcome receipts by eligibility",
            "Every outcome receipt (outcomes.ndjson) with the eligibility `mem outcomes`"
            " gave it when browse started: accepted-current first, then by reason.",
            f"""SELECT {named}coalesce(e.eligibility, 'undecided: see review_problems')
  AS eligibility, r.line, r.id, r.memory_file, r.memory_heading, r.run_id, r.task_id, r.ts
FROM receipts AS r
JOIN files AS f ON f.id = r.file_id
JOIN projects AS p ON p.id = f.project_id
LEFT JOIN receipt_eligibility AS e ON e.project = p.path AND e.receipt_id = r.id
ORDER BY e.eligible IS NULL, e.eligible DESC, eligibility, p.name, p.path, r.line""",
        ),
        CannedQuery(
            "events_per_agent_per_week",
            "Journal events per agent per week",
            "How many journal events each agent wrote, per week (weeks start on Monday, UTC),"
            " newest week first; events whose ts does not parse count under 'no date'.",
            f"""SELECT coalesce(date(ts_ms / 1000, 'unixepoch', 'weekday 0', '-6 days'), 'no date')
  AS week, {named.replace("p.name", "project_name")}agent, count(*) AS events
FROM events
GROUP BY week, project_name, project, agent
ORDER BY week DESC, {"project_name, project, " if portfolio else ""}events DESC, agent""",
        ),
        CannedQuery(
            "pattern_scores",
            "Pattern scores",
            "Every scored pattern, best first (mean, then Elo), as `mem patterns` lists it:"
            " its newest promotion's status and whether a patterns.md section has its"
            " heading.",
            f"""SELECT {named}s.pattern_id, round(s.mean, 3) AS mean, round(s.elo, 1) AS elo,
  round(s.alpha, 3) AS alpha, round(s.beta, 3) AS beta, s.updates, s.last_ts,
  (SELECT promotion.status FROM promotions AS promotion
   JOIN files AS pf ON pf.id = promotion.file_id
   WHERE pf.project_id = f.project_id AND promotion.pattern_id = s.pattern_id
   ORDER BY promotion.byte_offset DESC LIMIT 1) AS promotion,
  EXISTS (SELECT 1 FROM notes AS n
          WHERE n.project_id = f.project_id AND n.heading = s.pattern_id
          AND (n.file = 'patterns.md' OR n.file LIKE '%/patterns.md')) AS in_patterns_md
FROM pattern_scores AS s
JOIN files AS f ON f.id = s.file_id
JOIN projects AS p ON p.id = f.project_id
ORDER BY s.mean IS NULL, s.mean DESC, s.elo DESC, s.pattern_id, p.name, p.path""",
        ),
        CannedQuery(
            "search",
            "Search notes and events",
            "Notes and journal events containing every word of q (any order, any case,"
            " diacritics ignored), best match first.",
            f"""{_SEARCH_TERMS}
SELECT {named}r.kind, f.path AS file, CASE r.kind WHEN 'note' THEN r.ref END AS heading,
  r.agent, r.ts, snippet(search, 0, '[', ']', ' … ', 16) AS excerpt
FROM search
JOIN records AS r ON r.id = search.rowid
JOIN files AS f ON f.id = r.file_id
JOIN projects AS p ON p.id = f.project_id
WHERE search MATCH coalesce((SELECT query FROM terms), '""')
ORDER BY search.rank, r.id""",
        ),
    ]


CANNED_QUERIES = canned_queries(portfolio=False)
