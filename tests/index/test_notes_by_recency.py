"""The newest notes, as the session brief takes them: in the documented order, and read from
the recency index without going through every note of a large project."""

from __future__ import annotations

import random
from pathlib import Path

from support.corpora import write_dated_notes
from support.indexes import all_notes_newest_first, opened

from mem import index, layout


def _memory_files(found: index.Opened) -> list[int]:
    return [row.id for path, row in found.files.items() if layout.is_memory_file(path)]


def test_the_newest_notes_come_in_the_documented_order(tmp_path: Path) -> None:
    root = write_dated_notes(tmp_path / "project", 600)
    with opened(root) as found:
        file_ids = _memory_files(found)
        everything = all_notes_newest_first(found.conn, file_ids)
        assert len(everything) == index.notes_count(found.conn, file_ids) == 600
        for limit in (1, 5, 37, 600, 10**12):
            assert index.notes_by_recency(found.conn, file_ids, limit) == everything[:limit]
        # One file alone, and a few notes given by id, keep that order.
        alone = all_notes_newest_first(found.conn, file_ids[2:3])
        assert index.notes_by_recency(found.conn, file_ids[2:3], 1000) == alone
        some = random.Random(3).sample(everything, 40)
        assert index.newest_first(found.conn, some) == [i for i in everything if i in set(some)]


def _steps(conn: index.Connection, file_ids: list[int], limit: int) -> int:
    """The SQLite instructions notes_by_recency runs: what it reads, whatever the load."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    conn.set_progress_handler(count, 1)
    try:
        index.notes_by_recency(conn, file_ids, limit)
    finally:
        conn.set_progress_handler(None, 0)
    return steps


def test_the_newest_few_are_read_without_reading_every_note(tmp_path: Path) -> None:
    # A brief takes its newest notes from projects of 200,000: sorting them all took 110 ms.
    steps = {}
    for notes in (300, 6000):
        root = write_dated_notes(tmp_path / f"project-{notes}", notes)
        with opened(root) as found:
            steps[notes] = _steps(found.conn, _memory_files(found), 20)
    assert steps[6000] < 2 * steps[300], steps
