"""`mem check amendments`: pairs of active notes where a later one likely amends an earlier one.

For a person to confirm: each pair names the older and the newer note, why they were paired
(the terms that weigh most in both, the heading words they share, the score) and the command
that retires the older once confirmed. Retired notes are left out. With `--scope all`, each
project registered in the portfolio is checked on its own, from the portfolio index.
"""

from __future__ import annotations

from typing import Any

from mem import index, layout
from mem.core.ranking import amendments as measure
from mem.core.rules.memory_ids import memory_id
from mem.domain import amendments, lifecycle_events
from mem.errors import MemError
from mem.files import brain as brains

SCOPES = ("project", "all")


def amendments_report(
    root: str, scope: str = "project", portfolio: str | None = None
) -> dict[str, Any]:
    if scope not in SCOPES:
        raise MemError("check: --scope must be project or all")
    if scope == "all":
        brain = brains.portfolio_brain(root, portfolio)
        return index.answer(
            lambda open_index: _portfolio(open_index(brain, index.PORTFOLIO, bm25=True))
        )
    return index.answer(lambda open_index: _project(root, open_index(root, bm25=True)))


def _project(root: str, opened: index.Opened) -> dict[str, Any]:
    conn = opened.conn
    files = {row.id: path for path, row in opened.files.items() if layout.is_memory_file(path)}
    hidden: set[int] = set()
    if index.has_lifecycle_events(conn):
        hidden = set(lifecycle_events.retired_in_index(root, conn, files))
    notes = _notes(conn, list(files), hidden)
    pairs = [_pair(pair, notes, "") for pair in amendments.over(conn, notes)]
    return {"notes": len(notes), "pairs": pairs, "threshold": measure.SAME_SUBJECT}


def _portfolio(opened: index.Opened) -> dict[str, Any]:
    conn = opened.conn
    projects = [row for row in index.project_rows(conn, with_cache=False) if row.role == "project"]
    hidden = set(index.retired_notes(conn, [row.id for row in projects]))
    counted = 0
    pairs = []
    for row in projects:
        file_ids = [
            file.id
            for path, file in index.file_rows(conn, row.id).items()
            if layout.is_memory_file(path)
        ]
        notes = _notes(conn, file_ids, hidden)
        counted += len(notes)
        pairs += [_pair(pair, notes, row.path) for pair in amendments.over(conn, notes)]
    pairs.sort(key=lambda pair: -pair["score"])  # stable: projects in order within a score
    return {
        "notes": counted,
        "projects": len(projects),
        "pairs": pairs,
        "threshold": measure.SAME_SUBJECT,
    }


def _notes(
    conn: index.Connection, file_ids: list[int], hidden: set[int]
) -> dict[int, index.StoredRecord]:
    ids = index.notes_by_recency(conn, file_ids, 10**12)
    return index.fetch(conn, [record_id for record_id in ids if record_id not in hidden])


def _pair(
    pair: measure.Amendment, notes: dict[int, index.StoredRecord], project: str
) -> dict[str, Any]:
    older, newer = notes[pair.older], notes[pair.newer]
    older_id = memory_id(older.path, older.ref)
    newer_id = memory_id(newer.path, newer.ref)
    found: dict[str, Any] = {"project": project} if project else {}
    found.update(
        older={"id": older_id, "file": older.path, "heading": older.ref},
        newer={"id": newer_id, "file": newer.path, "heading": newer.ref},
        score=pair.likeness.score,
        sharedTerms=list(pair.likeness.shared),
        sharedHeadingTerms=list(pair.likeness.heading),
        supersede=measure.supersede_command(older_id, newer_id),
    )
    return found
