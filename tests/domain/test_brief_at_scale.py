"""The session brief of a large project is the brief its notes give when every note is read:
the index's shortcuts (the newest notes from the recency index, the count from the notes
files' records, each term's document frequency where its postings are read) change no
entry, no order, no count."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.corpora import write_dated_notes
from support.indexes import all_notes_newest_first

from mem import index
from mem.domain import brief
from mem.index import bm25


def _shown(root: Path, budget: int, prompt: str | None) -> tuple[list[dict[str, object]], int]:
    found = brief.gather(str(root), budget, prompt)
    return [entry.to_json() for entry in found.entries], found.total


def _every_note_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The three reads as they would be from every note: sorted, counted by kind, and each
    term's records counted one term at a time."""

    def newest(conn: index.Connection, file_ids: list[int], limit: int) -> list[int]:
        return all_notes_newest_first(conn, file_ids)[:limit]

    def count(conn: index.Connection, file_ids: list[int]) -> int:
        marks = ",".join(map(str, file_ids))
        query = f"SELECT count(*) FROM records WHERE kind = 'note' AND file_id IN ({marks})"
        return int(conn.execute(query).fetchone()[0])

    def frequencies(conn: index.Connection, terms: list[str] | None) -> dict[str, int]:
        if terms is None:
            terms = [row[0] for row in conn.execute("SELECT term FROM bm25_terms")]
        return {
            term: df for term, df in zip(terms, bm25.frequencies(conn, terms), strict=True) if df
        }

    monkeypatch.setattr(index, "notes_by_recency", newest)
    monkeypatch.setattr(index, "notes_count", count)
    monkeypatch.setattr(bm25, "document_frequencies", frequencies)


@pytest.mark.parametrize("prompt", [None, "retry budget for the webhook queue"])
def test_a_large_projects_brief_is_the_one_every_note_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompt: str | None
) -> None:
    root = write_dated_notes(tmp_path / "project", 3000)
    budgets = (400, 6000, 60_000)
    fast = {budget: _shown(root, budget, prompt) for budget in budgets}
    _every_note_read(monkeypatch)
    for budget in budgets:
        assert fast[budget] == _shown(root, budget, prompt)
    entries, total = fast[60_000]
    assert total == 3000
    assert any(entry.get("amendedBy") for entry in entries)  # the amendments were paired
    if prompt:
        assert entries[0]["relevance"]  # and the prompt's words ranked
