"""A built index stores every field of every record as given, whichever fields are empty.

The build inserts notes, events and any other record through different statements (so that
no NULL is bound); a field one of them leaves out must still come back as it was given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mem import index
from mem.index import building, tables

COLUMNS = (
    "ordinal, kind, ref, text, tokens, digest, agent, ts, ts_ms, ts_local, line, memory_id,"
    " revision"
)


def _record(ordinal: int, kind: str, **fields: Any) -> index.RecordRow:
    return index.RecordRow(
        ordinal, kind, f"ref {ordinal}", f"text {ordinal}", 2, {b"text": 1}, -ordinal, **fields
    )


RECORDS = [
    _record(0, "note", memory_id="mem_0123456789abcdef0123", revision="ab" * 32),
    _record(1, "note"),
    _record(2, "event", agent="scout", ts="2026-10-01T08:00:00Z", ts_ms=1.5e12, ts_local=0),
    _record(3, "event", line='{"task":"x"}'),
    _record(4, "event", agent="odd", line="{}", memory_id="mem_x", revision="cd" * 32),
    _record(5, "note", ts="a note with a ts", revision="ef" * 32),
]


def _expected(record: index.RecordRow) -> tuple[object, ...]:
    return tuple(
        getattr(record, column.strip()) for column in COLUMNS.replace("tokens", "length").split(",")
    )


def test_every_field_comes_back_whichever_are_empty(tmp_path: Path) -> None:
    path = str(tmp_path / "index.sqlite")
    with building.build(path, str(tmp_path)) as conn:
        project_id = tables.add_project(conn, str(tmp_path), "p", "project", found=True)
        file_id = tables.upsert_file(
            conn, project_id, "f", "notes", 0, "/f", "xxh3:0", 0, 0, 0, 0, True, 0
        )
        tables.insert_records(conn, file_id, RECORDS)
    built = index.connect(path)
    assert built is not None
    try:
        stored = built.execute(f"SELECT {COLUMNS} FROM records ORDER BY id").fetchall()
        postings = built.execute("SELECT count(*) FROM postings").fetchone()[0]
    finally:
        built.close()
    assert stored == [_expected(record) for record in RECORDS]
    assert postings > 0
