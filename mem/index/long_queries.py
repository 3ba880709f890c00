"""Candidates for a query too long to rank in one SQL expression.

The ranking SQL of `index.candidates` spells out every query term (a column and an addend
each), and SQLite refuses an expression more than 1,000 levels deep ("Expression tree is
too large"). A longer query is answered here instead: each term's postings are looked up
on their own and folded in Python, and every record holding any term is returned, so the
caller's exact rescoring alone decides the order. Slower than the SQL path, never wrong.
"""

from __future__ import annotations

import sqlite3

from mem.index import Candidate

# Up to this many distinct terms the SQL path answers (its expressions stay far below
# SQLite's depth limit); beyond it, this module does.
SQL_TERMS_LIMIT = 200
_CHUNK = 500  # ids per statement: far below SQLite's bound-parameter limit


def candidates(conn: sqlite3.Connection, terms: list[str], file_ids: list[int]) -> list[Candidate]:
    """Every record of these files that holds a query term, with its nonzero term
    frequencies in query order (score.lexical takes the query's width separately)."""
    if not terms or not file_ids:
        return []
    frequencies: dict[int, list[int]] = {}
    for term in terms:  # query order: the exact score sums hits in this order
        rows = conn.execute(
            "SELECT doc, count(*) FROM records_terms WHERE term = ? GROUP BY doc", (term,)
        )
        for doc, count in rows:
            frequencies.setdefault(doc, []).append(count)
    files_list = ",".join(str(int(file_id)) for file_id in file_ids)
    found: list[Candidate] = []
    docs = sorted(frequencies)
    for start in range(0, len(docs), _CHUNK):
        chunk = docs[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT r.tokens, r.kind, r.ts_ms, coalesce(r.ts_local, 0), f.rank, r.ordinal, r.id,"
            " f.project_id FROM records AS r JOIN files AS f ON f.id = r.file_id"
            f" WHERE r.id IN ({marks}) AND r.file_id IN ({files_list})",
            chunk,
        )
        for row in rows:
            found.append(Candidate(0.0, tuple(frequencies[row[-2]]), *row))
    return found
