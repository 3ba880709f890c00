"""A recall reads its index in one read transaction and ends it with the call: a long-running
process (`mem mcp`) that keeps the index open between calls never holds an old snapshot of
it, which would keep other processes' writes out of its view and the write-ahead log from
being emptied."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem import index
from mem.mcp import tools


@pytest.fixture
def keeping() -> Iterator[None]:
    index.keep_open(2)
    yield
    index.keep_open(0)


def index_file(root: Path) -> str:
    return index.answer(
        lambda open_index: str(
            open_index(str(root)).conn.execute("PRAGMA database_list").fetchone()[2]
        )
    )


def test_after_a_recall_another_process_can_empty_the_log(project: Path, keeping: None) -> None:
    path = index_file(project)
    answer = tools.BY_NAME["recall"].run(str(project), {"query": "postgres"})
    assert '"count": 0' not in answer.output
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("CREATE TABLE written_elsewhere (x)")
        other.execute("DROP TABLE written_elsewhere")
        busy, _, _ = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        other.close()
    assert busy == 0
    assert Path(path + "-wal").stat().st_size == 0
