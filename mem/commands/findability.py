"""`mem check findability`: whether the queries a user could type for each note find it.

Each note's queries (mem.core.ranking.findability) are ranked as `mem recall` ranks them within the
note's own project: its notes and journal events, retired notes left out (deviation D10),
the brain's notes not mixed in. With `--scope all`, every project registered in the
portfolio is checked from the portfolio index, and notes of different projects with the
same heading words are listed as near-duplicates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mem import clock, index, layout
from mem.core.javascript import js
from mem.core.ranking import findability, score
from mem.core.text import parse
from mem.domain import lifecycle_events, memories
from mem.domain import recall as recalls
from mem.errors import MemError
from mem.files import brain as brains
from mem.files import settings
from mem.index import bm25, lexical

# The rankings measured, each by its name in `recall --ranking`.
RANKINGS = ("lexical", "bm25")
SCOPES = ("project", "all")
# Told (queries answered, queries in all) as the check goes: a big project's takes minutes.
Progress = Callable[[int, int], None]


def findability_report(
    root: str,
    scope: str = "project",
    portfolio: str | None = None,
    min_recall: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The figures of every ranking over the project's (or the portfolio's) notes; with
    `min_recall`, the rankings whose share of notes found in the top 5 is below it.
    `progress` hears how many notes of all have been checked (each ranking checks all)."""
    if scope not in SCOPES:
        raise MemError("check: --scope must be project or all")
    if min_recall is not None and not 0 <= min_recall <= 1:
        raise MemError("check: --min-recall must be a number from 0 to 1")
    now = js.parse_date(clock.now_iso())
    now_ms = None if now is None else now.ms
    if scope == "all":
        brain = brains.portfolio_brain(root, portfolio)
        result = index.answer(
            lambda open_index: _portfolio(
                open_index(brain, index.PORTFOLIO, bm25=True), now_ms, progress
            )
        )
    else:
        history = settings.project(root).get("history") == "true"
        result = index.answer(
            lambda open_index: _project(
                root, open_index(root, bm25=True, history=history), now_ms, progress, history
            )
        )
        result["hiddenByBom"] = memories.hidden_by_bom(root)
    if min_recall is not None:
        result["minRecall"] = min_recall
        result["belowMinRecall"] = [
            name
            for name, figures in result["rankings"].items()
            if figures["notesTop5"] is not None and figures["notesTop5"] < min_recall
        ]
    return result


def _project(
    root: str,
    opened: index.Opened,
    now_ms: float | None,
    progress: Progress | None,
    history: bool = False,
) -> dict[str, Any]:
    conn = opened.conn
    files = {
        path: row for path, row in opened.files.items() if not layout.is_archive_rank(row.rank)
    }
    hidden: set[int] = set()
    if index.has_lifecycle_events(conn):
        memory_files = {row.id: path for path, row in files.items() if layout.is_memory_file(path)}
        hidden = set(lifecycle_events.retired_in_index(root, conn, memory_files))
    searched = index.RecallFiles.given({row.id: row.rank for row in files.values()})
    notes = _notes(conn, [row.id for row in files.values()], hidden, "")
    # `history = true`: a bm25 recall ranks the commits too, so they take places above notes.
    results = _Results(conn, now_ms, hidden, history and opened.history is None)
    report = _report(
        notes, lambda ranking, note, query: results.top(ranking, note, query, searched), progress
    )
    report["commitsRanked"] = results.history
    return report


def _portfolio(
    opened: index.Opened, now_ms: float | None, progress: Progress | None
) -> dict[str, Any]:
    conn = opened.conn
    projects = [row for row in index.project_rows(conn, with_cache=False) if row.role == "project"]
    hidden = set(index.retired_notes(conn, [row.id for row in projects]))
    notes: list[findability.Note] = []
    searched: dict[str, index.RecallFiles] = {}
    for row in projects:
        files = index.file_rows(conn, row.id)
        file_ids = [file.id for file in files.values() if not layout.is_archive_rank(file.rank)]
        notes += _notes(conn, file_ids, hidden, row.path)
        searched[row.path] = index.RecallFiles(conn, {row.id: row.path}, include_archive=False)
    results = _Results(conn, now_ms, hidden)
    report = _report(
        notes,
        lambda ranking, note, query: results.top(ranking, note, query, searched[note.project]),
        progress,
    )
    report["projects"] = len(projects)
    report["nearDuplicates"] = findability.near_duplicates(notes)
    return report


def _notes(
    conn: index.Connection, file_ids: list[int], hidden: set[int], project: str
) -> list[findability.Note]:
    ids = index.notes_by_recency(conn, file_ids, 10**12)
    stored = index.fetch(conn, [record_id for record_id in ids if record_id not in hidden])
    notes = [
        findability.Note(record.id, project, record.path, record.ref, record.text)
        for record in stored.values()
    ]
    return sorted(notes, key=lambda note: (note.project, note.file, note.id))


class _Results:
    """The top of each query's ranking down to the note it was asked for: each query's
    search stops at that note's own score (only the notes above it can change its outcome),
    so a query costs what its few best records cost, not every record holding its words."""

    def __init__(
        self, conn: index.Connection, now_ms: float | None, hidden: set[int], history: bool = False
    ) -> None:
        self.conn = conn
        self.now_ms = now_ms
        self.hidden = hidden
        self.history = history  # the project's commits rank with the notes (bm25)
        # (ranking, files, terms) -> (the floor searched down to, the ids found above it)
        self.kept: dict[tuple[str, int, tuple[str, ...]], tuple[float, list[int]]] = {}

    def top(
        self, ranking: str, note: findability.Note, query: str, files: index.RecallFiles
    ) -> list[int]:
        """The ids of the query's top notes and events, as `recall --ranking` ranks them, at
        least down to `note`: the note's place and the ids above it are those of the whole
        ranking's top."""
        terms = tuple(recalls.ranking_terms(ranking, query))
        key = (ranking, id(files), terms)
        floor = self._own_score(ranking, note, list(terms))
        kept = self.kept.get(key)
        if kept is None or kept[0] > floor:
            wanted = findability.TOP + len(self.hidden)
            search = bm25.search if ranking == "bm25" else lexical.search
            ranked = search(
                self.conn, list(terms), files, self.now_ms, wanted, clock.local_offset_ms, floor
            )
            top = [item.id for item in score.order(ranked, wanted) if item.id not in self.hidden]
            if self.history and ranking == "bm25":
                top = self._with_commits(top, ranked, list(terms))
            kept = self.kept[key] = (floor, top[: findability.TOP])
        return kept[1]

    def _own_score(self, ranking: str, note: findability.Note, terms: list[str]) -> float:
        """The note's own score for the terms, a little lowered: every record ranked above
        it scores at least that much."""
        if ranking == "bm25":
            own = bm25.score_of(self.conn, terms, note.heading, note.text)
        else:
            counts, length = parse.term_counts(parse.token_bytes(note.text))
            own = score.lexical([counts.get(term.encode("latin-1"), 0) for term in terms], length)
        return own * (1 - 1e-6)

    def _with_commits(
        self, top: list[int], ranked: list[score.Ranked], terms: list[str]
    ) -> list[int]:
        """The top with the commits recall ranks among it (by score, a note first on a tie),
        each commit as the negative of its id: a place a note does not have."""
        from mem.index import history

        scores = {item.id: item.score for item in ranked}
        merged = [(scores[record_id], 0, record_id) for record_id in top]
        merged += [
            (item.score, 1, -item.id) for item in history.search(self.conn, terms, findability.TOP)
        ]
        return [entry for _, _, entry in sorted(merged, key=lambda item: (-item[0], item[1]))]


def _report(notes: list[findability.Note], top: Any, progress: Progress | None) -> dict[str, Any]:
    by_id = {note.id: note for note in notes}
    asked: dict[int, list[findability.Query]] = {
        note.id: findability.queries(note.heading, note.text) for note in notes
    }
    rankings = {}
    for done, ranking in enumerate(RANKINGS):
        outcomes: dict[int, list[findability.Outcome]] = {}
        for at, note in enumerate(notes):
            if progress is not None:
                progress(done * len(notes) + at, len(RANKINGS) * len(notes))
            for query in asked[note.id]:
                found = top(ranking, note, query.text)
                place = found.index(note.id) + 1 if note.id in found else None
                above = found if place is None else found[: place - 1]
                outcomes.setdefault(note.id, []).append(
                    findability.Outcome(place, tuple(i for i in above if i in by_id))
                )
        rankings[ranking] = findability.measure(notes, outcomes, by_id)
    return {
        "notes": len(notes),
        "queries": sum(len(found) for found in asked.values()),
        "rankings": rankings,
        "unqueried": [findability.where(note) for note in notes if not asked[note.id]],
    }
