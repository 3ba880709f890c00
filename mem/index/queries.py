"""The queries recall answers from: its sources, retired notes, records and score inputs."""

from __future__ import annotations

from mem.core.text import parse
from mem.index.rows import ScoreInputs, StoredRecord
from mem.layout import is_archive_rank

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    from mem.index.connection import Connection

CHUNK = 500  # values bound in one statement: far below SQLite's bound-parameter limit


def in_chunks(values: list[Any]) -> Iterator[tuple[list[Any], str]]:
    """The values CHUNK at a time, each chunk with its `?,?,...` placeholders."""
    for start in range(0, len(values), CHUNK):
        chunk = values[start : start + CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def has_lifecycle_events(conn: Connection) -> bool:
    """Whether the project's lifecycle store holds any record (most projects have none)."""
    return conn.execute("SELECT 1 FROM lifecycle LIMIT 1").fetchone() is not None


def notes_headed(
    conn: Connection, file_ids: list[int], headings: list[str]
) -> list[tuple[int, int, int, str, str]]:
    """(record id, file id, section, heading, text) of these files' notes with these headings."""
    if not file_ids:
        return []
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    found: list[tuple[int, int, int, str, str]] = []
    for chunk, marks in in_chunks(headings):
        found += conn.execute(
            "SELECT id, file_id, ordinal, ref, text FROM records WHERE kind = 'note'"
            f" AND file_id IN ({files_list}) AND ref IN ({marks}) ORDER BY id",
            chunk,
        ).fetchall()
    return found


def notes_count(conn: Connection, file_ids: list[int]) -> int:
    """How many notes these files hold.

    Every record of a notes file is a note (mem.index.records), so the notes files' records
    are counted on the narrow (file_id, ordinal) index alone: checking each record's kind
    instead reads the table, or the wider recency index, two to three times as long.
    """
    if not file_ids:
        return 0
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    (count,) = conn.execute(
        "SELECT count(*) FROM records WHERE file_id IN"
        f" (SELECT id FROM files WHERE kind = 'notes' AND id IN ({files_list}))"
    ).fetchone()
    return int(count)


def notes_by_recency(conn: Connection, file_ids: list[int], limit: int) -> list[int]:
    """The ids of the newest `limit` notes of these files, newest first (newest_first
    orders a few given notes the same way).

    Newest: the later date a heading starts with (YYYY-MM-DD; undated headings last), then
    the later section of a file, then the file earlier in candidate order: a total order.
    """
    if not file_ids:
        return []
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    # Read in the index's order, which holds all it filters on: the first `limit` notes of
    # these files end the read (SQLite would rather look the files' records up by file_id
    # and sort them all).
    rows = conn.execute(
        "SELECT r.id FROM records AS r INDEXED BY records_recency JOIN files AS f"
        f" ON f.id = r.file_id WHERE r.kind = 'note' AND r.file_id IN ({files_list})"
        f" ORDER BY {_NEWEST_FIRST} LIMIT ?",
        (limit,),
    ).fetchall()
    return [row[0] for row in rows]


def newest_first(conn: Connection, ids: list[int]) -> list[int]:
    """These notes in notes_by_recency's order, read by id alone (a few of many)."""
    marks = ",".join(str(int(record_id)) for record_id in ids)
    rows = conn.execute(
        "SELECT r.id FROM records AS r JOIN files AS f ON f.id = r.file_id"
        f" WHERE r.id IN ({marks}) ORDER BY {_NEWEST_FIRST}"
    ).fetchall()
    return [row[0] for row in rows]


# Newest: the later date a heading starts with (undated last), the later section, the file
# earlier in candidate order, then the id. Its first two keys are those of the index
# records_recency (migrations/schema.sql), spelled the same so that SQLite reads the notes in
# that order and sorts only the notes of one date and section by the last two.
_NEWEST_FIRST = (
    "CASE WHEN r.ref GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"
    " THEN substr(r.ref, 1, 10) ELSE '' END DESC, r.ordinal DESC, f.rank, r.id"
)


def fetch(conn: Connection, ids: list[int]) -> dict[int, StoredRecord]:
    found: dict[int, StoredRecord] = {}
    for chunk, marks in in_chunks(ids):
        rows = conn.execute(
            "SELECT r.id, r.kind, f.path, r.ref, r.text, r.line, f.project_id FROM records AS r"
            f" JOIN files AS f ON f.id = r.file_id WHERE r.id IN ({marks})",
            chunk,
        )
        for row in rows:
            found[row[0]] = StoredRecord(*row)
    return found


class RecallFiles:
    """The files a recall reads, as the search meets their records: each one's candidate rank
    and its root's path, or None for a file recall does not read (a store, an archived
    journal unless asked for, a project not chosen).

    A portfolio index holds thousands of files and a query meets the records of a few, so
    each is looked up once, when first met; a project's few are given up front (`known`).
    """

    __slots__ = ("conn", "roots", "include_archive", "found")

    def __init__(
        self, conn: Connection | None, roots: Mapping[int, str], include_archive: bool
    ) -> None:
        self.conn = conn  # None: every file was given up front (given)
        self.roots = roots  # project id -> its path
        self.include_archive = include_archive
        self.found: dict[int, tuple[int, str] | None] = {}

    @classmethod
    def given(cls, ranks: Mapping[int, int]) -> RecallFiles:
        """The files of one project's or brain's index: file id -> candidate rank."""
        files = cls(None, {}, include_archive=True)
        files.found.update((file_id, (rank, "")) for file_id, rank in ranks.items())
        return files

    def __bool__(self) -> bool:
        """Whether there may be a file to read at all."""
        return bool(self.found) if self.conn is None else bool(self.roots)

    def get(self, file_id: int) -> tuple[int, str] | None:
        """(candidate rank, root path) of a file recall reads; None for any other."""
        if file_id in self.found:
            return self.found[file_id]
        found = None
        if self.conn is not None:
            row = self.conn.execute(
                "SELECT rank, project_id FROM files WHERE id = ? AND kind IN ('journal', 'notes')",
                (file_id,),
            ).fetchone()
            if row is not None and row[1] in self.roots:
                rank, project_id = row
                if self.include_archive or not is_archive_rank(rank):
                    found = (rank, self.roots[project_id])
        self.found[file_id] = found
        return found


def retired_notes(conn: Connection, project_ids: list[int]) -> dict[int, tuple[str, str | None]]:
    """Notes whose current revision is retired (deviation D10): record id -> (kind, successor).

    The schema's `retired` view decides; the first applicable event of a note wins.
    """
    # Only roots whose lifecycle stores hold lines can retire a note; most hold none, and
    # the view looks every file of each root named up.
    with_events = {
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT f.project_id FROM lifecycle AS l JOIN files AS f ON f.id = l.file_id"
        )
    }
    wanted = [project_id for project_id in project_ids if project_id in with_events]
    if not wanted:
        return {}
    members = ",".join(str(int(project_id)) for project_id in wanted)
    rows = conn.execute(
        "SELECT id, kind, superseded_by FROM retired"
        f" WHERE project_id IN ({members}) ORDER BY id, line DESC"
    )
    # Later lines first, so the earliest applicable event of each note is the one kept.
    return {row[0]: (row[1], row[2]) for row in rows}


def counts(conn: Connection) -> dict[str, int]:
    return {
        "files": conn.execute("SELECT count(*) FROM files").fetchone()[0],
        "records": conn.execute("SELECT count(*) FROM records").fetchone()[0],
    }


def score_inputs(conn: Connection, ids: list[int], terms: list[str]) -> dict[int, ScoreInputs]:
    """The term frequencies and lengths behind each record's score.

    Postings group records by frequency and are not looked up by record, so the
    frequencies are counted again from the stored text with the tokenizer the build used:
    only `--explain` pays for it, on the few records it shows.
    """
    wanted = [term.encode("latin-1") for term in terms]
    found: dict[int, ScoreInputs] = {}
    # The ids go in chunks: stay far below SQLite's bound-parameter limit.
    for chunk, marks in in_chunks(ids):
        for record_id, text, tokens, ts_ms, ts_local in conn.execute(
            "SELECT id, text, tokens, ts_ms, coalesce(ts_local, 0) FROM records"
            f" WHERE id IN ({marks})",
            chunk,
        ):
            counts, _ = parse.term_counts(parse.token_bytes(text))
            frequencies = tuple(counts.get(term, 0) for term in wanted)
            found[record_id] = ScoreInputs(frequencies, tokens, ts_ms, ts_local)
    return found


def records_holding(conn: Connection, terms: list[str]) -> dict[str, list[int]]:
    """Lexical term -> the ids of every record that holds it (notes and events, any file),
    in increasing order; a term no record holds is left out."""
    from mem.index.postings import decode

    found: dict[str, list[int]] = {}
    for chunk, marks in in_chunks(terms):
        rows = conn.execute(
            "SELECT t.term, p.records FROM terms AS t JOIN postings AS p ON p.term = t.id"
            f" WHERE t.term IN ({marks})",
            chunk,
        )
        for term, blob in rows:
            found.setdefault(term, []).extend(decode(blob))
    return {term: sorted(ids) for term, ids in found.items()}


def record_count(conn: Connection) -> int:
    """About how many records the index holds: the highest id (read from the table's b-tree)."""
    (highest,) = conn.execute("SELECT max(id) FROM records").fetchone()
    return highest or 0


def note_texts(conn: Connection, ids: list[int], file_ids: list[int]) -> dict[int, str]:
    """Record id -> text of those of `ids` that are notes of these files."""
    if not file_ids:
        return {}
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    found: dict[int, str] = {}
    for chunk, marks in in_chunks(ids):
        found.update(
            conn.execute(
                f"SELECT id, text FROM records WHERE id IN ({marks}) AND kind = 'note'"
                f" AND file_id IN ({files_list})",
                chunk,
            ).fetchall()
        )
    return found


def notes_with_evidence_on(conn: Connection, paths: list[str], file_ids: list[int]) -> list[int]:
    """The ids of these files' notes whose memory has evidence recorded on one of `paths`
    (at any revision: the memory id stays while its text changes)."""
    if not paths or not file_ids:
        return []
    marks = ",".join("?" * len(paths))
    memories = [
        row[0]
        for row in conn.execute(
            f"SELECT DISTINCT memory_id FROM evidence WHERE path IN ({marks})"
            " AND memory_id IS NOT NULL ORDER BY memory_id",
            paths,
        )
    ]
    if not memories:
        return []
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    marks = ",".join("?" * len(memories))
    return [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM records WHERE memory_id IN ({marks}) AND kind = 'note'"
            f" AND file_id IN ({files_list}) ORDER BY id",
            memories,
        )
    ]
