"""A long-running process keeps its index open, and still answers from the files as they are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mem import index
from mem.index import check


@pytest.fixture
def keeping() -> Iterator[None]:
    index.keep_open(2)
    yield
    index.keep_open(0)


def notes(root: Path) -> list[str]:
    def headings(open_index: index.OpenIndex) -> list[str]:
        conn = open_index(str(root)).conn
        return [row[0] for row in conn.execute("SELECT heading FROM notes ORDER BY heading")]

    return index.answer(headings)


def connection(root: Path) -> object:
    return index.answer(lambda open_index: open_index(str(root)).conn)


def test_the_same_connection_serves_the_next_call(project: Path, keeping: None) -> None:
    assert connection(project) is connection(project)


def test_edits_reach_a_kept_connection(project: Path, keeping: None) -> None:
    lessons = project / ".agents/memory/lessons.md"
    before = notes(project)
    lessons.write_text(lessons.read_text(encoding="utf-8") + "### Kept open\nyes\n", "utf-8")
    assert notes(project) == sorted([*before, "Kept open"])


def test_a_rebuilt_index_replaces_the_kept_one(project: Path, keeping: None) -> None:
    kept = connection(project)
    check.rebuild(str(project))
    assert connection(project) is not kept
    assert notes(project)


def test_at_most_the_given_number_stay_open(project: Path, tmp_path: Path, keeping: None) -> None:
    others = [tmp_path / f"other-{n}" for n in range(3)]
    for other in others:
        other.mkdir()
        connection(other)
    first = connection(project)
    for other in others:
        connection(other)
    assert connection(project) is not first  # the least recently used was closed
    index.keep_open(0)
    assert connection(project) is not connection(project)
