"""`mem recall`: ranked notes and events from the index, scored exactly as the reference."""

from __future__ import annotations

import math
import os

from mem import clock, index, layout
from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import parse
from mem.errors import MemError
from mem.files import safe_paths
from mem.index import freshness

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.opening import OpenIndex
    from mem.index.portfolio import Progress

# Evidence ranking's reward: the reward folding of {acceptance: true}.
EVIDENCE_REWARD = 1
EVIDENCE_BOOST = 0.25
SCOPES = ("project", "portfolio", "all")


class Request:
    """What a recall asks for, as the CLI's options and the MCP tool's arguments say it.

    A plain class rather than a NamedTuple: this module is on the warm recall path.
    """

    __slots__ = (
        "query",
        "scope",
        "portfolio",
        "limit",
        "ranking",
        "context_scope",
        "include_archive",
        "with_evidence",
        "include_retired",
        "explain",
        "projects",
        "amendments",
        "include_history",
    )

    def __init__(
        self,
        query: str,
        scope: str = "project",
        portfolio: str | None = None,
        limit: str | None = None,
        ranking: str = "lexical",
        context_scope: str | None = None,
        include_archive: bool = False,
        with_evidence: bool = False,
        include_retired: bool = False,
        explain: bool = False,
        projects: tuple[str, ...] = (),  # --scope all: only the registered projects so named
        amendments: bool | None = None,  # None: with bm25 or --with-evidence (see marks_amendments)
        include_history: bool = False,  # bm25: the project's commits rank with its memories
    ) -> None:
        self.query = query
        self.scope = scope
        self.portfolio = portfolio
        self.limit = limit
        self.ranking = ranking
        self.context_scope = context_scope
        self.include_archive = include_archive
        self.with_evidence = with_evidence
        self.include_retired = include_retired
        self.explain = explain
        self.projects = projects
        self.amendments = amendments
        self.include_history = include_history

    def marks_amendments(self) -> bool:
        """Whether likely amendments come first and marked (mem.domain.amendments): within a
        project, with bm25 or --with-evidence, or when asked (MCP); never a plain lexical
        recall, which stays the reference's to the byte, nor evidence ranking's re-sorting."""
        if self.scope != "project" or self.ranking == "evidence":
            return False
        if self.amendments is not None:
            return self.amendments
        return self.ranking == "bm25" or self.with_evidence


def parse_limit(text: str | None) -> int:
    """Deviation D1: an integer from 1 to 1000 (read with JavaScript's Number(), default 8)."""
    if text is None:
        return 8
    value = js.to_number(text)
    if not (math.isfinite(value) and value.is_integer() and 1 <= value <= 1000):
        raise MemError("recall: --limit must be an integer from 1 to 1000")
    return int(value)


def context_scope(text: str | None) -> list[str]:
    """The explicit project scope of evidence ranking: normalised, de-duplicated, sorted."""
    from mem.core.rules import (
        receipts,  # evidence ranking only: lexical recall does not pay the import
    )

    # JavaScript reads an empty option value as absent: `--context-scope ''` is no scope at all.
    return receipts.scope_items([js.trim(item) for item in text.split(",")] if text else [])


RANKINGS = ("lexical", "evidence", "bm25")


def default_ranking(root: str) -> str:
    """The ranking a recall uses when none is asked for: $MEM_RANKING, else the project's
    `.agents/memory/mem.toml`, else the user's `~/.config/mem/config.toml` (`ranking = ...`),
    else the reference's lexical ranking."""
    from mem.files import settings

    chosen = os.environ.get("MEM_RANKING")
    if chosen and chosen not in RANKINGS:
        # Named as the settings files name themselves, so the user knows where to look.
        raise MemError(f'MEM_RANKING must be "lexical" or "bm25" or "evidence", not "{chosen}".')
    return (
        chosen
        or settings.project(root).get("ranking")
        or settings.user().get("ranking")
        or "lexical"
    )


def wants_history(root: str, ranking: str, scope: str, asked: bool) -> bool:
    """Whether a recall ranks the project's commits: when asked (--include-history), else
    for a project-scope bm25 recall when the project's `.agents/memory/mem.toml` says
    `history = true` (default false; docs/history.md)."""
    if asked:
        return True
    if ranking != "bm25" or scope != "project":
        return False
    from mem.files import settings

    return settings.project(root).get("history") == "true"


def bm25_recall(root: str, query: str, limit: int, now: str) -> list[dict[str, Any]]:
    """The bm25 ranking's top `limit` for `query` in the project at `root` (D10 rules
    applied): the one call the session brief and the per-prompt recall need."""
    return recall(root, Request(query=query, limit=str(limit), ranking="bm25"), now)


def query_terms(request: Request) -> list[str]:
    """The query's terms as the chosen ranking's tokenizer makes them."""
    if request.ranking == "bm25":
        from mem.core.text import tokens  # bm25 only: a lexical recall does not pay the import

        return tokens.query_terms(request.query)
    return parse.query_tokens(request.query)


def validate(request: Request) -> int:
    if not js.trim(request.query):
        raise MemError("recall: query must be a non-empty string")
    if request.ranking not in RANKINGS:
        # The reference's message, kept for its golden case: bm25 is this project's own.
        raise MemError("recall: ranking must be lexical or evidence")
    if request.scope not in SCOPES:
        raise MemError("recall: --scope must be project, portfolio or all")
    limit = parse_limit(request.limit)
    if request.include_history and request.ranking != "bm25":
        raise MemError("recall: --include-history needs --ranking bm25")
    if request.include_history and request.scope == "portfolio":
        raise MemError(
            "recall: --include-history reads the project's history (--scope project) or every"
            " registered project's (--scope all)"
        )
    if request.ranking == "evidence":
        if request.scope != "project":
            raise MemError("Evidence ranking supports project-local lexical recall only.")
        context_scope(request.context_scope)
    return limit


def recall(
    root: str, request: Request, now: str, progress: Progress | None = None
) -> list[dict[str, Any]]:
    return recall_answer(root, request, now, progress)[0]


def recall_answer(
    root: str, request: Request, now: str, progress: Progress | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """The entries, and why the project's history could not be read (None: it was, or was
    not asked for)."""
    limit = validate(request)
    now_parsed = js.parse_date(now)
    now_ms = None if now_parsed is None else now_parsed.ms
    terms = query_terms(request)
    if request.scope == "all":
        return _recall_all(root, request, limit, terms, now_ms, progress).entries, None
    history_problem: list[str | None] = [None]
    entries, evidence, terminations = index.answer(
        lambda open_index: _ranked(root, request, limit, terms, now_ms, open_index, history_problem)
    )
    if evidence is not None:
        from mem.domain import lifecycle_events

        kept = lifecycle_events.drop_terminated(root, entries, terminations)
        entries = _with_evidence(kept, evidence)[:limit]
    if request.with_evidence:
        from mem.domain import memory_status

        entries = memory_status.annotate_recall(root, entries)
    if request.explain and request.ranking != "bm25":  # bm25's explanations are made in _top
        for entry in entries:
            entry["explain"] = _explanation(entry, terms)
    return entries, history_problem[0]


if TYPE_CHECKING:
    Evidence = list[tuple[dict[str, Any], str | None]]


def _ranked(
    root: str,
    request: Request,
    limit: int,
    terms: list[str],
    now_ms: float | None,
    open_index: OpenIndex,
    history_problem: list[str | None] | None = None,
) -> tuple[list[dict[str, Any]], Evidence | None, list[dict[str, Any]]]:
    """The ranked entries, and what evidence ranking still has to apply to them."""
    bm25 = request.ranking == "bm25"
    amends = request.marks_amendments()
    if request.include_history:
        project = open_index(root, bm25=bm25, history=True)
        if history_problem is not None:
            history_problem[0] = project.history
    else:
        project = open_index(root, bm25=bm25 or amends)  # amendments weigh terms by bm25's idf
    conn = project.conn
    project_files = {
        path: row
        for path, row in project.files.items()
        if request.include_archive or not layout.is_archive_rank(row.rank)
    }
    evidence = None
    terminations: list[dict[str, Any]] = []
    retired: dict[int, Any] = {}
    if request.ranking == "evidence":
        from mem.domain import lifecycle_events

        _check_evidence_sources(root, project_files)
        evidence = _receipt_reasons(root, context_scope(request.context_scope))
        terminations = lifecycle_events.read_events(root)
    elif index.has_lifecycle_events(conn):
        retired = _retired_notes(root, conn, project_files)
    hidden = set() if request.include_retired else set(retired)
    # Receipts and lifecycle events drop and boost entries before the limit applies, so
    # then every candidate is ranked; without them evidence ranking only labels the top.
    # Hidden retired notes are at most len(hidden) of the best limit + len(hidden).
    candidate_limit = None if evidence or terminations else limit + len(hidden)
    if amends:
        from mem.domain import amendments  # never on a plain lexical recall's path
    ranked = _rank(
        conn,
        terms,
        index.RecallFiles.given({row.id: row.rank for row in project_files.values()}),
        now_ms,
        candidate_limit,
        request.ranking,
    )
    ranked = [item for item in ranked if item.id not in hidden]
    sources: dict[int, tuple[index.Connection, str]] = {
        row.rank: (conn, row.path) for row in project_files.values()
    }
    top_limit = limit if candidate_limit else None
    brain_root = _portfolio_root(root, request)
    if brain_root is None:
        marks: dict[int, dict[str, str]] | None = None
        if amends:
            top = score.order(ranked, limit)
            scores = {item.id: item.score for item in top}
            order, marks = amendments.in_recall(conn, [item.id for item in top], scores)
            by_id = {item.id: item for item in top}
            ranked = [by_id[record_id] for record_id in order]
        entries = _top(request, terms, now_ms, ranked, top_limit, sources, conn, retired, marks)
        if request.include_history:
            entries = _with_commits(entries, conn, terms, limit, request.explain)
        return entries, evidence, terminations
    brain = open_index(brain_root, index.BRAIN, bm25=bm25)
    brain_conn = brain.conn
    seen = {row.real_path for row in project_files.values()}
    brain_files = [row for row in brain.files.values() if row.real_path not in seen]
    ranked += _rank(
        brain_conn,
        terms,
        index.RecallFiles.given({row.id: row.rank for row in brain_files}),
        now_ms,
        candidate_limit,
        request.ranking,
    )
    for row in brain_files:
        relative = os.path.relpath(os.path.join(brain_root, row.path), root)
        sources[row.rank] = (brain_conn, relative.replace(os.sep, "/"))
    entries = _top(request, terms, now_ms, ranked, top_limit, sources, conn, retired)
    return entries, evidence, terminations


def _top(
    request: Request,
    terms: list[str],
    now_ms: float | None,
    ranked: list[score.Ranked],
    limit: int | None,
    sources: dict[int, tuple[index.Connection, str]],
    conn: index.Connection,
    retired: dict[int, Any],
    marks: dict[int, dict[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """The best `limit` (None: all) of the ranked entries, read while their indexes are open;
    with `marks` (likely amendments), `ranked` is already in its order."""
    if marks is None:
        top = score.order(ranked, len(ranked) if limit is None else limit)
    else:
        top = ranked[: len(ranked) if limit is None else limit]
    entries = _entries(top, sources)
    if marks:
        for item, entry in zip(top, entries, strict=True):
            entry.update(marks.get(item.id, ()))
    if request.explain and request.ranking == "bm25":
        for item, entry in zip(top, entries, strict=True):
            entry["explain"] = _bm25_explanation(sources[item.rank][0], item.id, terms, now_ms)
    elif request.explain:
        _stash_score_inputs(entries, top, sources, terms, now_ms)
    if request.include_retired:
        for item, entry in zip(top, entries, strict=True):
            if entry["kind"] == "note":
                in_project = sources[item.rank][0] is conn
                entry.update(_status_fields(retired.get(item.id) if in_project else None))
    return entries


def _with_commits(
    entries: list[dict[str, Any]],
    conn: index.Connection,
    terms: list[str],
    limit: int,
    explain: bool,
) -> list[dict[str, Any]]:
    """The memories and the best commits, by score (a memory first on a tie), `limit` in all."""
    from mem.domain import history as commit_memories  # --include-history only
    from mem.index import history

    found = history.search(conn, terms, limit)
    commits = [commit_memories.entry(item) for item in found]
    if explain:
        for item, entry in zip(found, commits, strict=True):
            entry["explain"] = history.explain(conn, item.id, terms)
    merged = sorted(entries + commits, key=lambda entry: -entry["score"])
    return merged[:limit]


def _retired_notes(
    root: str, conn: index.Connection, project_files: dict[str, index.FileRow]
) -> dict[int, Any]:
    """Record id -> lifecycle status of each note whose current revision is retired (D10)."""
    from mem.domain import lifecycle_events

    file_ids = {row.id: path for path, row in project_files.items() if layout.is_memory_file(path)}
    return lifecycle_events.retired_in_index(root, conn, file_ids)


def _status_fields(status: Any) -> dict[str, Any]:
    """`recall --include-retired`: a note's lifecycle status, as JSON shows it."""
    if status is None or status.status == "active":
        return {"status": "active"}
    if status.status == "superseded":
        return {"status": "superseded", "supersededBy": status.superseded_by}
    return {"status": status.status}


def _rank(
    conn: index.Connection,
    terms: list[str],
    files: index.RecallFiles,
    now_ms: float | None,
    limit: int | None,
    ranking: str = "lexical",
) -> list[score.Ranked]:
    """Exact scores (V8's arithmetic, to the bit) for every record that can reach the top."""
    if ranking == "bm25":
        from mem.index import bm25  # bm25 only

        return bm25.search(conn, terms, files, now_ms, limit, clock.local_offset_ms)
    from mem.index import topk

    return topk.search(conn, terms, files, now_ms, limit, clock.local_offset_ms)


def _entries(
    top: list[score.Ranked], sources: dict[int, tuple[index.Connection, str]]
) -> list[dict[str, Any]]:
    by_conn: dict[int, list[int]] = {}
    for item in top:
        by_conn.setdefault(id(sources[item.rank][0]), []).append(item.id)
    stored: dict[tuple[int, int], index.StoredRecord] = {}
    for item in top:
        conn = sources[item.rank][0]
        key = id(conn)
        if key in by_conn:
            for record_id, record in index.fetch(conn, by_conn.pop(key)).items():
                stored[(key, record_id)] = record
    entries = []
    for item in top:
        conn, source_file = sources[item.rank]
        entries.append(_entry(item.score, stored[(id(conn), item.id)], source_file))
    return entries


def _entry(value: float, record: index.StoredRecord, source_file: str) -> dict[str, Any]:
    """A result as the reference shapes it (bmad-mem.md section 7)."""
    if record.kind == "event":
        assert record.line is not None
        fields = js.parse_json(record.line)
        text, ref = record.text, record.ref
        if "\ufffd" in text or "\ufffd" in ref:
            # The index holds a lone surrogate as U+FFFD; JSON writes the line's own ("\\udcff").
            event = parse.Event(0, fields, record.line)
            text, ref = event.text, event.ref
        return {
            "score": value,
            "kind": "event",
            "source": layout.unsharded(source_file).rsplit("/", 1)[-1],
            "ref": ref,
            "text": text,
            "event": fields,
        }
    return {
        "score": value,
        "kind": "note",
        "source": source_file.rsplit("/", 1)[-1],
        "sourceFile": source_file,
        "ref": record.ref,
        "text": record.text,
    }


def _stash_score_inputs(
    entries: list[dict[str, Any]],
    top: list[score.Ranked],
    sources: dict[int, tuple[index.Connection, str]],
    terms: list[str],
    now_ms: float | None,
) -> None:
    """Keep what each result's score came from on the entry, for `--explain` at the end.

    Read back from the index rather than threaded through the ranking, so the ranking code
    stays as it is; evidence ranking copies entries, and the stash travels with them.
    """
    from mem.core.ranking.explain import age_days  # --explain only

    ids_by_index: dict[int, list[int]] = {}
    connections: dict[int, index.Connection] = {}
    for item in top:  # the project's index, and the brain's for portfolio results
        conn = sources[item.rank][0]
        connections[id(conn)] = conn
        ids_by_index.setdefault(id(conn), []).append(item.id)
    inputs = {
        (key, record_id): found
        for key, ids in ids_by_index.items()
        for record_id, found in index.score_inputs(connections[key], ids, terms).items()
    }
    for entry, item in zip(entries, top, strict=True):
        found = inputs[(id(sources[item.rank][0]), item.id)]
        event_ms = found.ts_ms if entry["kind"] == "event" else None
        if event_ms is not None and found.ts_local:
            event_ms += clock.local_offset_ms(event_ms)
        entry["explain"] = (found.frequencies, found.tokens, age_days(event_ms, now_ms))


def _bm25_explanation(
    conn: index.Connection, record_id: int, terms: list[str], now_ms: float | None
) -> dict[str, Any]:
    from mem.core.ranking.explain import age_days  # --explain only
    from mem.index import bm25

    kind, ts_ms, ts_local = conn.execute(
        "SELECT kind, ts_ms, coalesce(ts_local, 0) FROM records WHERE id = ?", (record_id,)
    ).fetchone()
    event_ms = ts_ms if kind == "event" else None
    if event_ms is not None and ts_local:
        event_ms += clock.local_offset_ms(event_ms)
    return bm25.explain(conn, record_id, terms, age_days(event_ms, now_ms))


def _explanation(entry: dict[str, Any], terms: list[str]) -> dict[str, Any]:
    from mem.core.ranking import explain  # --explain only: a plain recall does not pay the import

    frequencies, tokens, age = entry.pop("explain")
    boost = 1 + EVIDENCE_BOOST * EVIDENCE_REWARD if "lexicalScore" in entry else 1
    return explain.explain(terms, frequencies, tokens, age, boost).as_json()


# ---- --scope all: every registered project and the brain, from the portfolio index


class PortfolioAnswer:
    """A portfolio recall's entries, and the registered projects it had to skip."""

    __slots__ = ("entries", "skipped")

    def __init__(self, entries: list[dict[str, Any]], skipped: list[dict[str, str]]) -> None:
        self.entries = entries
        self.skipped = skipped  # registered projects whose folder is gone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PortfolioAnswer) and (self.entries, self.skipped) == (
            other.entries,
            other.skipped,
        )

    def __repr__(self) -> str:
        return f"PortfolioAnswer(entries={self.entries!r}, skipped={self.skipped!r})"


def recall_portfolio(
    root: str, request: Request, now: str, progress: Progress | None = None
) -> PortfolioAnswer:
    """`recall --scope all`, with the registered projects it had to skip."""
    limit = validate(request)
    now_parsed = js.parse_date(now)
    now_ms = None if now_parsed is None else now_parsed.ms
    return _recall_all(root, request, limit, query_terms(request), now_ms, progress)


if TYPE_CHECKING:
    # What a portfolio recall takes from the index (nothing of it outlives the connection):
    # roots, skipped projects, retired notes, the top, its records, and --explain's inputs.
    PortfolioTop = tuple[
        list[index.ProjectRow],
        list[dict[str, str]],
        dict[int, tuple[str, str | None]],
        list[score.Ranked],
        dict[int, index.StoredRecord],
        dict[int, index.ScoreInputs],
    ]


def _recall_all(
    root: str,
    request: Request,
    limit: int,
    terms: list[str],
    now_ms: float | None,
    progress: Progress | None,
) -> PortfolioAnswer:
    """One ranked list over the portfolio: each record keeps its own project's score.

    Scoring is per record, so a record's score is the one its own project's recall gives
    it; the merge orders by score, then project path, then each project's candidate order.
    Notes whose current revision is retired (deviation D10) are left out unless asked for.
    """
    from mem.files import brain as brains  # the portfolio's own module: --scope all only

    brain = brains.portfolio_brain(root, request.portfolio)

    def ranked(open_index: OpenIndex) -> PortfolioTop:
        conn = open_index(brain, index.PORTFOLIO, bm25=request.ranking == "bm25").conn
        rows = index.project_rows(conn, with_cache=False)
        roots, skipped = chosen_roots(rows, request.projects)
        project_ids = [row.id for row in roots]
        files = index.RecallFiles(
            conn, {row.id: row.path for row in roots}, request.include_archive
        )
        retired = index.retired_notes(conn, project_ids)
        found = _rank(conn, terms, files, now_ms, limit + len(retired), request.ranking)
        if not request.include_retired:
            found = [item for item in found if item.id not in retired]
        top = score.order(found, limit)
        ids = [item.id for item in top]
        inputs: dict[int, Any] = {}
        if request.explain and request.ranking == "bm25":
            inputs = {item.id: _bm25_explanation(conn, item.id, terms, now_ms) for item in top}
        elif request.explain:
            inputs = index.score_inputs(conn, ids, terms)
        return roots, skipped, retired, top, index.fetch(conn, ids), inputs

    roots, skipped, retired, top, stored, inputs = index.answer(ranked, progress)
    by_id = {row.id: row for row in roots}
    entries = []
    for item in top:
        record = stored[item.id]
        entry = _entry(item.score, record, record.path)
        if request.include_retired and entry["kind"] == "note":
            # As a project's recall shows them: every note says what became of it.
            status, successor = retired.get(item.id, ("active", None))
            entry["status"] = status
            if status == "superseded":
                entry["supersededBy"] = successor
        project = by_id[record.project_id]
        entry["project"] = project.path
        entry["projectName"] = project.name
        if request.explain and request.ranking == "bm25":
            entry["explain"] = inputs[item.id]
        elif request.explain:
            found = inputs[item.id]
            event_ms = found.ts_ms if entry["kind"] == "event" else None
            if event_ms is not None and found.ts_local:
                event_ms += clock.local_offset_ms(event_ms)
            from mem.core.ranking.explain import age_days  # --explain only

            age = age_days(event_ms, now_ms)
            entry["explain"] = _explanation(
                {"explain": (found.frequencies, found.tokens, age)}, terms
            )
        entries.append(entry)
    if request.include_history:
        entries = _with_portfolio_commits(entries, roots, request, terms, limit)
    if request.with_evidence:
        from mem.domain import memory_status

        for row in roots:
            if row.role == "project":
                mine = [entry for entry in entries if entry["project"] == row.path]
                if mine:
                    memory_status.annotate_recall(row.path, mine)
    return PortfolioAnswer(entries, skipped)


def _with_portfolio_commits(
    entries: list[dict[str, Any]],
    roots: list[index.ProjectRow],
    request: Request,
    terms: list[str],
    limit: int,
) -> list[dict[str, Any]]:
    """`--scope all --include-history`: the memories and every registered project's best
    commits, by score (a memory first on a tie, then by project path), `limit` in all. Each
    commit keeps the score its own project's recall gives it: bm25 over that project's
    commits, read from its own index, kept in step with its HEAD (docs/history.md)."""
    from mem.domain import history as commit_memories  # --include-history only
    from mem.index import history

    projects = sorted((row for row in roots if row.role == "project"), key=lambda row: row.path)

    def ranked(open_index: OpenIndex) -> list[dict[str, Any]]:
        found = []
        for row in projects:
            opened = open_index(row.path, history=True)
            if opened.history is not None:
                continue  # not a git checkout, or no git: its memories alone
            for item in history.search(opened.conn, terms, limit):
                entry = commit_memories.entry(item)
                entry["project"] = row.path
                entry["projectName"] = row.name
                if request.explain:
                    entry["explain"] = history.explain(opened.conn, item.id, terms)
                found.append(entry)
        return found

    commits = index.answer(ranked)  # in project order, each project's best first
    merged = sorted(entries + commits, key=lambda entry: -entry["score"])
    return merged[:limit]


def chosen_roots(
    rows: list[index.ProjectRow], names: tuple[str, ...]
) -> tuple[list[index.ProjectRow], list[dict[str, str]]]:
    """(roots to search, registered projects skipped because their folder is gone).

    Every root, or only those --project names (by name or real path).
    """
    chosen = rows
    if names:
        chosen = []
        for name in names:
            matching = [row for row in rows if name in (row.name, row.path)]
            if not matching:
                known = ", ".join(sorted({row.name for row in rows})) or "none"
                raise MemError(f'--project "{name}" names no registered project (known: {known})')
            chosen += [row for row in matching if row not in chosen]
    skipped = [
        {"project": row.path, "projectName": row.name, "reason": "not found"}
        for row in chosen
        if not row.found
    ]
    return [row for row in chosen if row.found], skipped


def _portfolio_root(root: str, request: Request) -> str | None:
    if request.scope != "portfolio":
        return None
    if request.portfolio is not None:
        # Relative to the process's working directory, not to --directory (as the reference).
        return os.path.realpath(os.path.abspath(request.portfolio))
    from mem.files import brain  # portfolio scope only

    linked = brain.linked_brain(root)
    return None if linked is None else os.path.realpath(linked)


def _check_evidence_sources(root: str, indexed: dict[str, index.FileRow]) -> None:
    """Evidence ranking reads only through the safe, bounded reader: no links, 2 MiB, UTF-8."""
    for spec in freshness.PROJECT_SOURCES:
        if spec.kind in freshness.STORE_KINDS:
            continue  # a store for audits, not a recall source
        path = safe_paths.safe_path(root, spec.relative)
        row = indexed.get(spec.relative)
        if row is None or not os.path.exists(path):
            continue
        if row.size > safe_paths.STORE_LIMIT or not os.path.isfile(path):
            raise MemError("Memory source must be a regular file of at most 2 MiB.")
        if not row.utf8:
            raise MemError("Memory source must contain valid UTF-8.")


def _receipt_reasons(root: str, scope: list[str]) -> list[tuple[dict[str, Any], str | None]]:
    """Every receipt with its eligibility for this query scope, recomputed from the files."""
    from mem.domain import outcome_receipts

    stored = outcome_receipts.read_store(root)
    return list(zip(stored, outcome_receipts.reasons(root, stored, scope), strict=True))


def _with_evidence(
    entries: list[dict[str, Any]], evidence: list[tuple[dict[str, Any], str | None]]
) -> list[dict[str, Any]]:
    """Section 8: boost notes with eligible receipts, drop notes whose receipts all failed."""
    from mem.core.rules import receipts

    by_anchor: dict[tuple[Any, Any], list[tuple[dict[str, Any], str | None]]] = {}
    for receipt, reason in evidence:
        memory = receipt.get("memory")
        key = (receipts.field(memory, "file"), receipts.field(memory, "heading"))
        by_anchor.setdefault(key, []).append((receipt, reason))
    kept = []
    for entry in entries:
        is_note = entry["kind"] == "note"
        matching = by_anchor.get((entry["sourceFile"], entry["ref"])) if is_note else None
        if not matching:
            unverified = {"status": "unverified", "receiptIds": [], "boost": 0}
            kept.append({**entry, "evidence": unverified})
            continue
        text_sha256 = receipts.sha256_text(entry["text"])
        qualifying = [
            receipt["id"]
            for receipt, reason in matching
            if reason is None and receipts.field(receipt.get("memory"), "textSha256") == text_sha256
        ]
        if not qualifying:
            continue  # a stale or contradicted anchor never falls back to an unverified note
        kept.append(
            {
                **entry,
                "lexicalScore": entry["score"],
                "score": entry["score"] * (1 + EVIDENCE_BOOST * EVIDENCE_REWARD),
                "evidence": {
                    "status": "accepted-current",
                    "receiptIds": qualifying,
                    "reward": EVIDENCE_REWARD,
                    "boost": EVIDENCE_BOOST,
                    "lessonCausality": "unmeasured",
                },
            }
        )
    return sorted(kept, key=lambda entry: -entry["score"])
