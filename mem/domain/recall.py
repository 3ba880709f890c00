"""Recall's ranking, merging and explaining: `recall(root, request, now, ...)` is the one entry.

A project's recall ranks its index (and the linked brain's, for --scope portfolio), drops
retired notes (deviation D10), applies evidence ranking's receipts (section 8), puts likely
amendments first, merges the best commits (--include-history); --scope all ranks the
portfolio index, each record with its own project's score. Every score is the reference's,
exact to the bit; `--explain` shows what it was computed from.
"""

from __future__ import annotations

import math
import os

from mem import index, layout
from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import parse, tokens
from mem.errors import MemError
from mem.files import brain, safe_paths
from mem.index import freshness, lexical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from mem.index.opening import OpenIndex
    from mem.index.portfolio import Progress

    Entries = list[dict[str, Any]]
    Evidence = list[tuple[dict[str, Any], str | None]]
    # Where each ranked record is read from: its candidate rank -> (index, source file).
    Sources = dict[int, tuple[index.Connection, str]]

# Evidence ranking's reward: the reward folding of {acceptance: true}.
EVIDENCE_REWARD = 1
EVIDENCE_BOOST = 0.25
SCOPES = ("project", "portfolio", "all")
RANKINGS = ("lexical", "evidence", "bm25")


class RecallRequest:
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


class Recalled:
    """A recall's entries, best first, and what it could not read."""

    __slots__ = ("request", "entries", "skipped", "history_problem")

    def __init__(
        self,
        request: RecallRequest,
        entries: Entries,
        skipped: list[dict[str, str]] | None = None,
        history_problem: str | None = None,
    ) -> None:
        self.request = request  # what was asked, the ranking and scope its output names
        self.entries = entries
        self.skipped = skipped or []  # --scope all: registered projects whose folder is gone
        self.history_problem = history_problem  # why the project's commits could not be read

    def __eq__(self, other: object) -> bool:
        """The same answer: the same entries and the same problems (whatever asked)."""
        return isinstance(other, Recalled) and (
            self.entries,
            self.skipped,
            self.history_problem,
        ) == (other.entries, other.skipped, other.history_problem)

    def __repr__(self) -> str:
        return (
            f"Recalled(entries={self.entries!r}, skipped={self.skipped!r},"
            f" history_problem={self.history_problem!r})"
        )


def recall(
    root: str,
    request: RecallRequest,
    now: str,
    local_offset_ms: Callable[[float], float],
    progress: Progress | None = None,
) -> Recalled:
    """The recall `request` asks of the project at `root` (or of its portfolio) at `now`;
    `local_offset_ms` (mem.clock's) dates the events written in local time."""
    asked = _Recall(request, now, local_offset_ms)
    if request.scope == "all":
        return _recall_all(root, asked, progress)
    entries, evidence, terminations, history_problem = index.answer(
        lambda open_index: _ranked(root, asked, open_index)
    )
    limit, terms = asked.limit, asked.terms
    if evidence is not None:
        from mem.domain import lifecycle_events

        kept = lifecycle_events.drop_terminated(root, entries, terminations)
        entries = _with_evidence(kept, evidence)[:limit]
    if request.with_evidence:
        from mem.domain import memory_status

        entries = memory_status.annotate_recall(root, entries)
    if request.explain:
        _explained(entries, terms)
    return Recalled(request, entries, history_problem=history_problem)


class _Recall:
    """One recall's request, its limit and terms, and the time it ranks at."""

    __slots__ = ("request", "limit", "terms", "now_ms", "local_offset_ms")

    def __init__(
        self, request: RecallRequest, now: str, local_offset_ms: Callable[[float], float]
    ) -> None:
        self.request = request
        self.limit = _validate(request)
        self.terms = ranking_terms(request.ranking, request.query)
        now_parsed = js.parse_date(now)
        self.now_ms = None if now_parsed is None else now_parsed.ms
        self.local_offset_ms = local_offset_ms


def _limit(text: str | None) -> int:
    """Deviation D1: an integer from 1 to 1000 (read with JavaScript's Number(), default 8)."""
    if text is None:
        return 8
    value = js.to_number(text)
    if not (math.isfinite(value) and value.is_integer() and 1 <= value <= 1000):
        raise MemError("recall: --limit must be an integer from 1 to 1000")
    return int(value)


def _context_scope(text: str | None) -> list[str]:
    """The explicit project scope of evidence ranking: normalised, de-duplicated, sorted."""
    from mem.core.rules import (
        receipts,  # evidence ranking only: lexical recall does not pay the import
    )

    # JavaScript reads an empty option value as absent: `--context-scope ''` is no scope at all.
    return receipts.scope_items([js.trim(item) for item in text.split(",")] if text else [])


def ranking_terms(ranking: str, query: str) -> list[str]:
    """The query's terms as the ranking's tokenizer makes them (bm25's stems, or the
    reference's lexical tokens)."""
    if ranking == "bm25":
        return tokens.query_terms(query)
    return parse.query_tokens(query)


def _validate(request: RecallRequest) -> int:
    """The request's limit, once every option is known to be one recall accepts."""
    if not js.trim(request.query):
        raise MemError("recall: query must be a non-empty string")
    if request.ranking not in RANKINGS:
        # The reference's message, kept for its golden case: bm25 is this project's own.
        raise MemError("recall: ranking must be lexical or evidence")
    if request.scope not in SCOPES:
        raise MemError("recall: --scope must be project, portfolio or all")
    limit = _limit(request.limit)
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
        _context_scope(request.context_scope)
    return limit


def _ranked(
    root: str, asked: _Recall, open_index: OpenIndex
) -> tuple[Entries, Evidence | None, list[dict[str, Any]], str | None]:
    """The ranked entries, what evidence ranking still has to apply to them, and why the
    project's commits could not be read."""
    request, limit = asked.request, asked.limit
    bm25 = request.ranking == "bm25"
    amends = request.marks_amendments()
    if request.include_history:
        project = open_index(root, bm25=bm25, history=True)
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
    retired: dict[int, tuple[str, str | None]] = {}
    if request.ranking == "evidence":
        from mem.domain import lifecycle_events

        _check_evidence_sources(root, project_files)
        evidence = _receipt_reasons(root, _context_scope(request.context_scope))
        terminations = lifecycle_events.read_events(root)
    elif index.has_lifecycle_events(conn):
        retired = _retired_notes(root, conn, project_files)
    hidden = set() if request.include_retired else set(retired)
    # Receipts and lifecycle events drop and boost entries before the limit applies, so
    # then every candidate is ranked; without them evidence ranking only labels the top.
    # Hidden retired notes are at most len(hidden) of the best limit + len(hidden).
    candidate_limit = None if evidence or terminations else limit + len(hidden)
    ranked = _rank(
        conn,
        asked,
        index.RecallFiles.given({row.id: row.rank for row in project_files.values()}),
        candidate_limit,
    )
    ranked = [item for item in ranked if item.id not in hidden]
    sources: Sources = {row.rank: (conn, row.path) for row in project_files.values()}
    top_limit = limit if candidate_limit else None
    brain_root = _portfolio_root(root, request)
    if brain_root is None:
        marks: dict[int, dict[str, str]] | None = None
        if amends:
            from mem.domain import amendments  # never on a plain lexical recall's path

            top = score.order(ranked, limit)
            scores = {item.id: item.score for item in top}
            order, marks = amendments.in_recall(conn, [item.id for item in top], scores)
            by_id = {item.id: item for item in top}
            ranked = [by_id[record_id] for record_id in order]
        entries = _top(asked, ranked, top_limit, sources, conn, retired, marks)
        if request.include_history:
            entries = _merged(entries, _commits(conn, asked.terms, limit, request.explain), limit)
        return entries, evidence, terminations, project.history
    brain_index = open_index(brain_root, index.BRAIN, bm25=bm25)
    brain_conn = brain_index.conn
    seen = {row.real_path for row in project_files.values()}
    brain_files = [row for row in brain_index.files.values() if row.real_path not in seen]
    ranked += _rank(
        brain_conn,
        asked,
        index.RecallFiles.given({row.id: row.rank for row in brain_files}),
        candidate_limit,
    )
    for row in brain_files:
        relative = os.path.relpath(os.path.join(brain_root, row.path), root)
        sources[row.rank] = (brain_conn, relative.replace(os.sep, "/"))
    entries = _top(asked, ranked, top_limit, sources, conn, retired)
    return entries, evidence, terminations, None


def _top(
    asked: _Recall,
    ranked: list[score.Ranked],
    limit: int | None,
    sources: Sources,
    conn: index.Connection,
    retired: dict[int, tuple[str, str | None]],
    marks: dict[int, dict[str, str]] | None = None,
) -> Entries:
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
    if asked.request.explain:
        _explain(entries, top, lambda item: sources[item.rank][0], asked)
    if asked.request.include_retired:
        for item, entry in zip(top, entries, strict=True):
            if entry["kind"] == "note":
                in_project = sources[item.rank][0] is conn
                entry.update(_status_fields(retired.get(item.id) if in_project else None))
    return entries


def _commits(conn: index.Connection, terms: list[str], limit: int, explain: bool) -> Entries:
    """The best `limit` commits of the project whose index `conn` is, as recall shows them."""
    from mem.domain import history as commit_memories  # --include-history only
    from mem.index import history

    found = history.search(conn, terms, limit)
    commits = [commit_memories.entry(item) for item in found]
    if explain:
        for item, entry in zip(found, commits, strict=True):
            entry["explain"] = history.explain(conn, item.id, terms)
    return commits


def _merged(entries: Entries, commits: Entries, limit: int) -> Entries:
    """The memories and the commits by score (a memory first on a tie), `limit` in all."""
    return sorted(entries + commits, key=lambda entry: -entry["score"])[:limit]


def _retired_notes(
    root: str, conn: index.Connection, project_files: dict[str, index.FileRow]
) -> dict[int, tuple[str, str | None]]:
    """Record id -> (lifecycle status, successor) of each note whose current revision is
    retired (D10), as the portfolio index's retired_notes gives them."""
    from mem.domain import lifecycle_events

    file_ids = {row.id: path for path, row in project_files.items() if layout.is_memory_file(path)}
    return {
        record_id: (status.status, status.superseded_by)
        for record_id, status in lifecycle_events.retired_in_index(root, conn, file_ids).items()
    }


def _status_fields(retired: tuple[str, str | None] | None) -> dict[str, Any]:
    """`recall --include-retired`: a note's lifecycle status, as JSON shows it."""
    status, successor = retired or ("active", None)
    if status == "superseded":
        return {"status": status, "supersededBy": successor}
    return {"status": status}


def _rank(
    conn: index.Connection, asked: _Recall, files: index.RecallFiles, limit: int | None
) -> list[score.Ranked]:
    """Exact scores (V8's arithmetic, to the bit) for every record that can reach the top."""
    search = lexical.search
    if asked.request.ranking == "bm25":
        from mem.index import bm25  # bm25 only

        search = bm25.search
    return search(conn, asked.terms, files, asked.now_ms, limit, asked.local_offset_ms)


def _entries(top: list[score.Ranked], sources: Sources) -> Entries:
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


# ---- --explain: what each result's score came from


def _explain(
    entries: Entries,
    top: list[score.Ranked],
    index_of: Callable[[score.Ranked], index.Connection],
    asked: _Recall,
) -> None:
    """Keep what each result's score came from on its entry, read while its index is open:
    bm25's explanation whole; the lexical score's inputs, which _explained makes an
    explanation at the end, once evidence ranking has boosted the entry (its copies of an
    entry keep them).

    Read back from the index rather than threaded through the ranking, so the ranking code
    stays as it is.
    """
    from mem.core.ranking.explain import age_days  # --explain only

    terms, now_ms, local_offset_ms = asked.terms, asked.now_ms, asked.local_offset_ms
    if asked.request.ranking == "bm25":
        from mem.index import bm25

        for item, entry in zip(top, entries, strict=True):
            conn = index_of(item)
            kind, ts_ms, ts_local = conn.execute(
                "SELECT kind, ts_ms, coalesce(ts_local, 0) FROM records WHERE id = ?", (item.id,)
            ).fetchone()
            event_ms = js.instant_ms(ts_ms if kind == "event" else None, ts_local, local_offset_ms)
            entry["explain"] = bm25.explain(conn, item.id, terms, age_days(event_ms, now_ms))
        return
    ids_by_index: dict[int, list[int]] = {}
    connections: dict[int, index.Connection] = {}
    for item in top:  # the project's index, and the brain's for portfolio results
        conn = index_of(item)
        connections[id(conn)] = conn
        ids_by_index.setdefault(id(conn), []).append(item.id)
    inputs = {
        (key, record_id): found
        for key, ids in ids_by_index.items()
        for record_id, found in index.score_inputs(connections[key], ids, terms).items()
    }
    for entry, item in zip(entries, top, strict=True):
        found = inputs[(id(index_of(item)), item.id)]
        event_ms = found.ts_ms if entry["kind"] == "event" else None
        event_ms = js.instant_ms(event_ms, found.ts_local, local_offset_ms)
        entry["explain"] = (found.frequencies, found.tokens, age_days(event_ms, now_ms))


def _explained(entries: Entries, terms: list[str]) -> None:
    """Each lexical entry's score inputs (kept by _explain) made its explanation, last of its
    fields; bm25's and the commits' are made whole where they are read."""
    from mem.core.ranking import explain  # --explain only: a plain recall does not pay the import

    for entry in entries:
        if not isinstance(entry["explain"], tuple):
            continue
        frequencies, tokens, age = entry.pop("explain")
        boost = 1 + EVIDENCE_BOOST * EVIDENCE_REWARD if "lexicalScore" in entry else 1
        entry["explain"] = explain.explain(terms, frequencies, tokens, age, boost).as_json()


# ---- --scope all: every registered project and the brain, from the portfolio index


def _recall_all(root: str, asked: _Recall, progress: Progress | None) -> Recalled:
    """One ranked list over the portfolio: each record keeps its own project's score.

    Scoring is per record, so a record's score is the one its own project's recall gives
    it; the merge orders by score, then project path, then each project's candidate order.
    Notes whose current revision is retired (deviation D10) are left out unless asked for.
    """
    request, limit = asked.request, asked.limit
    brain_root = brain.portfolio_brain(root, request.portfolio)

    def ranked(
        open_index: OpenIndex,
    ) -> tuple[list[index.ProjectRow], list[dict[str, str]], Entries]:
        conn = open_index(brain_root, index.PORTFOLIO, bm25=request.ranking == "bm25").conn
        rows = index.project_rows(conn, with_cache=False)
        roots, skipped = _chosen_roots(rows, request.projects)
        files = index.RecallFiles(
            conn, {row.id: row.path for row in roots}, request.include_archive
        )
        retired = index.retired_notes(conn, [row.id for row in roots])
        found = _rank(conn, asked, files, limit + len(retired))
        if not request.include_retired:
            found = [item for item in found if item.id not in retired]
        top = score.order(found, limit)
        stored = index.fetch(conn, [item.id for item in top])
        by_id = {row.id: row for row in roots}
        entries = []
        for item in top:
            record = stored[item.id]
            entry = _entry(item.score, record, record.path)
            if request.include_retired and entry["kind"] == "note":
                # As a project's recall shows them: every note says what became of it.
                entry.update(_status_fields(retired.get(item.id)))
            project = by_id[record.project_id]
            entry["project"] = project.path
            entry["projectName"] = project.name
            entries.append(entry)
        if request.explain:
            _explain(entries, top, lambda _: conn, asked)
            _explained(entries, asked.terms)
        return roots, skipped, entries

    roots, skipped, entries = index.answer(ranked, progress)
    if request.include_history:
        entries = _merged(entries, _portfolio_commits(roots, asked), limit)
    if request.with_evidence:
        from mem.domain import memory_status

        for row in roots:
            if row.role == "project":
                mine = [entry for entry in entries if entry["project"] == row.path]
                if mine:
                    memory_status.annotate_recall(row.path, mine)
    return Recalled(request, entries, skipped)


def _portfolio_commits(roots: list[index.ProjectRow], asked: _Recall) -> Entries:
    """`--scope all --include-history`: every registered project's best commits, in project
    path order (so a tie merges by project path). Each commit keeps the score its own
    project's recall gives it: bm25 over that project's commits, read from its own index,
    kept in step with its HEAD (docs/history.md)."""
    projects = sorted((row for row in roots if row.role == "project"), key=lambda row: row.path)

    def ranked(open_index: OpenIndex) -> Entries:
        found = []
        for row in projects:
            opened = open_index(row.path, history=True)
            if opened.history is not None:
                continue  # not a git checkout, or no git: its memories alone
            for entry in _commits(opened.conn, asked.terms, asked.limit, asked.request.explain):
                entry["project"] = row.path
                entry["projectName"] = row.name
                found.append(entry)
        return found

    return index.answer(ranked)


def _chosen_roots(
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


def _portfolio_root(root: str, request: RecallRequest) -> str | None:
    if request.scope != "portfolio":
        return None
    if request.portfolio is not None:
        # Relative to the process's working directory, not to --directory (as the reference).
        return os.path.realpath(os.path.abspath(request.portfolio))
    linked = brain.linked_brain(root)
    return None if linked is None else os.path.realpath(linked)


# ---- evidence ranking (section 8)


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


def _receipt_reasons(root: str, scope: list[str]) -> Evidence:
    """Every receipt with its eligibility for this query scope, recomputed from the files."""
    from mem.domain import outcome_receipts

    stored = outcome_receipts.read_store(root)
    return list(zip(stored, outcome_receipts.reasons(root, stored, scope), strict=True))


def _with_evidence(entries: Entries, evidence: Evidence) -> Entries:
    """Section 8: boost notes with eligible receipts, drop notes whose receipts all failed."""
    from mem.core.rules import receipts

    by_anchor: dict[tuple[Any, Any], Evidence] = {}
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
