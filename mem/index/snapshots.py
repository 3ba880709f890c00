"""A root's content without surrogate ids or stat data: equal for equal canonical files.

`mem index check` compares an index with a fresh build through it, and the tests compare
an incrementally synced index with a fresh one.
"""

from __future__ import annotations

from array import array

from mem.index import postings
from mem.index.connection import Connection
from mem.index.rows import ONLY_PROJECT
from mem.index.tables import FILE_TABLES


def postings_vectors(conn: Connection) -> dict[int, list[tuple[str, int, int]]]:
    """record id -> the (term, band, tf) postings that name it."""
    vectors: dict[int, list[tuple[str, int, int]]] = {}
    for term, band, tf, blob in conn.execute(
        "SELECT t.term, p.band, p.tf, p.records FROM postings AS p JOIN terms AS t ON t.id = p.term"
    ):
        for record_id in postings.decode(blob):
            vectors.setdefault(record_id, []).append((term, band, tf))
    # bm25's postings too (their terms marked so that they never equal a lexical one).
    # Their band: the record's bm25_length, which each pair carries.
    for term, tf, blob in conn.execute(
        "SELECT t.term, p.tf, p.records FROM bm25_postings AS p"
        " JOIN bm25_terms AS t ON t.id = p.term"
    ):
        pairs = postings.decode_pairs(blob)
        for record_id, length in zip(pairs[::2], pairs[1::2], strict=True):
            vectors.setdefault(record_id, []).append((f"bm25:{term}", length, tf))
    return vectors


def snapshot(
    conn: Connection,
    project_id: int = ONLY_PROJECT,
    vectors: dict[int, list[tuple[str, int, int]]] | None = None,
) -> dict[str, object]:
    """A root's content without surrogate ids or stat data: equal for equal canonical files.

    `vectors` (postings_vectors) is taken from as records are met, so that several roots
    can share one decoding; without it the postings of records that do not exist are shown.
    """
    whole = vectors is None
    if vectors is None:
        vectors = postings_vectors(conn)
    files = sorted(
        conn.execute(
            "SELECT path, kind, rank, real_path, hash, utf8 FROM files WHERE project_id = ?",
            (project_id,),
        ).fetchall()
    )
    records = sorted(
        (
            (*row[1:], tuple(sorted(vectors.pop(row[0], []))))
            for row in conn.execute(
                "SELECT r.id, f.path, r.ordinal, r.kind, r.ref, r.text, r.tokens, r.agent, r.ts,"
                " r.ts_ms, r.ts_local, r.line, r.digest, r.memory_id, r.revision FROM records AS r"
                " JOIN files AS f ON f.id = r.file_id WHERE f.project_id = ?",
                (project_id,),
            )
        ),
        key=repr,
    )
    stores = {
        table: sorted(_rows_with_path(conn, table, project_id), key=repr)
        for table in FILE_TABLES
        if table != "records"
    }
    found: dict[str, object] = {"files": files, "records": records, **stores}
    if whole:
        # Postings of records that do not exist would be a corruption: show them.
        found["orphan_postings"] = orphan_postings(vectors)
        # The whole index's, kept by sync: equal to what its records add up to.
        stats = conn.execute("SELECT records, length FROM bm25_stats").fetchone()
        found["bm25_stats"] = None if stats is None else tuple(stats)
    return found


def orphan_postings(
    vectors: dict[int, list[tuple[str, int, int]]],
) -> list[tuple[int, tuple[tuple[str, int, int], ...]]]:
    return sorted((record_id, tuple(vector)) for record_id, vector in vectors.items())


def _rows_with_path(conn: Connection, table: str, project_id: int) -> list[tuple[object, ...]]:
    """A store table's rows with the source path in place of the surrogate file_id."""
    cursor = conn.execute(
        f"SELECT f.path, t.* FROM {table} AS t JOIN files AS f ON f.id = t.file_id"
        " WHERE f.project_id = ?",
        (project_id,),
    )
    drop = [column[0] for column in cursor.description].index("file_id")
    return [row[:drop] + row[drop + 1 :] for row in cursor]


def commits_snapshot(conn: Connection) -> dict[str, list[tuple[object, ...]]]:
    """The commit tables by sha (their ids differ between an incremental sync and a fresh
    one, and nothing outside the index sees them); the postings' parts are not compared."""
    sha_of = dict(conn.execute("SELECT id, sha FROM commits"))
    found: list[tuple[object, ...]] = []
    for term, band, tf, blob in conn.execute(
        "SELECT t.term, p.band, p.tf, p.records FROM commit_postings AS p"
        " JOIN commit_terms AS t ON t.id = p.term"
    ):
        values = array("I")
        values.frombytes(blob)
        found += [
            (term, sha_of.get(values[i], values[i]), band, tf, values[i + 1])
            for i in range(0, len(values), 2)
        ]
    return {
        "history": conn.execute("SELECT head, commits, length FROM history").fetchall(),
        "counted": conn.execute(
            "SELECT count(*), coalesce(sum(bm25_length), 0) FROM commits"
        ).fetchall(),
        "commits": sorted(
            conn.execute("SELECT sha, time, subject, text, bm25_length FROM commits")
        ),
        "commit_paths": sorted(
            (path, sha_of.get(commit_id, commit_id))
            for path, commit_id in conn.execute("SELECT path, commit_id FROM commit_paths")
        ),
        "commit_postings": sorted(found, key=repr),
    }
