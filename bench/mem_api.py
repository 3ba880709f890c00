"""Every call the benches make into `mem`'s Python API, one adapter per measurement.

The benches run with two versions of `mem` (`make bench-compare`: BASE's and the working
tree's, each from its own venv), and `mem`'s modules move while an issue reorganises them.
So nothing else under bench/ imports `mem`: the in-process children call these functions,
and each function looks its modules up by the names given to `_module`, newest first, the
names of BASE (4148755) last. When a module moves, add its new name in front (one line);
when a function's name or arguments change, add the new call in front of the old one in the
one adapter that makes it (`_exists` tells which `mem` this is).

- `open_recall`: a project's warm recall on an open, synced index kept between calls, as
  `mem mcp` keeps it: `mem.domain.recall.recall(root, recall.RecallRequest(query), now, offset)`
  (BASE: `Request` for `RecallRequest`; older: `mem.commands.recall.recall(root,
  recall.Request(query), now)`) after
  `keep_open(1)` (`mem.index.connection`; BASE: `mem.index.sync`).
- `portfolio_check`: the portfolio's freshness check with nothing changed: the portfolio
  index opened through `mem.index.opening.answer` (BASE: `mem.index.portfolio.synced`),
  asserting that no project was planned.
- `watched_paths`: the paths that check stats, for its floor of bare `stat` calls: the
  `watch` column of `project_rows` (`mem.index.rows`; BASE: `mem.index`).
- `mcp_recall`: the MCP recall tool's own function, no protocol:
  `mem.mcp.tools.BY_NAME["recall"].run(root, arguments)`, with `keep_open(8)`.
- `canned_query_names`: the pages `mem browse` serves canned queries under, for
  bench/browse.py (today `mem.index.browse_copy.CANNED_QUERIES`).
- `recall_pairs`, `newer_first`, `note_terms`, `query_terms`: for bench/amendment_rules.py,
  a bm25 recall's shown notes with the pairs `mem.domain.amendments.find` sees among them
  (its `in_recall` wrapped), `mem.core.ranking.amendments.newer_first`, and bm25's terms
  (`mem.core.text.tokens`).

Stdlib only; `mem` is imported when an adapter is called, from the interpreter's venv.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

MEM_NOW = "2026-10-18T09:30:00.000Z"


def _module(*names: str) -> ModuleType:
    """The first of these modules that exists (a module failing inside still fails loudly)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name is None or not (name + ".").startswith(missing.name + "."):
                raise
    raise ModuleNotFoundError(f"none of {', '.join(names)} in this mem")


def _exists(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _content_terms(brief: ModuleType) -> Callable[..., list[str]]:
    """`mem.domain.brief.content_terms` (BASE: `query_terms`)."""
    found: Callable[..., list[str]] = getattr(brief, "content_terms", None) or brief.query_terms
    return found


def _recall_request(recall: ModuleType) -> Callable[..., Any]:
    """`mem.domain.recall.RecallRequest` (BASE: `Request`)."""
    found: Callable[..., Any] = getattr(recall, "RecallRequest", None) or recall.Request
    return found


def _keep_open(at_most: int) -> None:
    _module("mem.index.connection", "mem.index.sync").keep_open(at_most)


def open_recall(keep_open: bool = True) -> Callable[[str, str], Any]:
    """recall(root, query) -> entries; with keep_open the index stays open between calls."""
    if keep_open:
        _keep_open(1)
    if _exists("mem.domain.recall"):
        recall, offset = _module("mem.domain.recall"), _module("mem.clock").local_offset_ms
        request = _recall_request(recall)
        return lambda root, query: recall.recall(root, request(query), MEM_NOW, offset).entries
    recall = _module("mem.commands.recall")
    request = _recall_request(recall)
    return lambda root, query: recall.recall(root, request(query), MEM_NOW)


def _portfolio_index(brain: str, use: Callable[[Any, Any], Any]) -> Any:
    """use(connection, what bringing it in step did) on the brain's portfolio index."""
    if _exists("mem.index.opening"):
        opening, location = _module("mem.index.opening"), _module("mem.index.location")

        def opened(open_index: Callable[..., Any]) -> Any:
            found = open_index(brain, location.PORTFOLIO)
            return use(found.conn, found.changes)

        return opening.answer(opened)
    with _module("mem.index.portfolio").synced(brain) as (conn, report):
        return use(conn, report)


def portfolio_check(brain: str) -> Callable[[], None]:
    """check() -> None: the portfolio's freshness check, asserting nothing was stale."""

    def unchanged(_: Any, changes: Any) -> None:
        assert changes is None or changes.projects == 0, changes

    return lambda: _portfolio_index(brain, unchanged)


def watched_paths(brain: str) -> list[str]:
    """The paths the freshness check stats, in the order it stats them."""
    rows = _portfolio_index(
        brain, lambda conn, _: _module("mem.index.rows", "mem.index").project_rows(conn)
    )
    watched = [(row.path, (row.watch or "").split("\n")) for row in rows]
    return [os.path.join(root, line) for root, lines in watched for line in lines if line]


def mcp_recall() -> Callable[[str, dict[str, Any]], Any]:
    """run(root, arguments) -> answer: the MCP recall tool without the protocol, with the
    index kept open between calls as `mem mcp` keeps it."""
    _keep_open(8)
    run: Callable[[str, dict[str, Any]], Any] = _module("mem.mcp.tools").BY_NAME["recall"].run
    return run


def canned_query_names() -> list[str]:
    """The names of `mem browse`'s canned queries, each a page of its own."""
    browse_copy = _module("mem.index.browse_copy")
    return [query.name for query in browse_copy.CANNED_QUERIES]


def prompt_matches() -> Callable[[str, str, float], list[str]]:
    """matches(root, prompt, threshold) -> the headings `mem hook prompt` injects for a
    prompt in a fresh session, best first: `mem.domain.brief.prompt_matches`, at most 8."""
    brief = _module("mem.domain.brief")

    def matches(root: str, prompt: str, threshold: float) -> list[str]:
        entries = brief.prompt_matches(root, prompt, threshold, set(), 8)[0]
        return [entry.heading for entry in entries]

    return matches


Ranking = tuple[list[tuple[str, float]], list[float], float]


def prompt_ranking() -> Callable[[str, str, int], Ranking]:
    """ranking(root, prompt, terms) -> the 10 best notes for the prompt's first `terms`
    terms as (heading, bm25 score), each term's weight at an endless tf (0: no note holds
    it) and that of a term one note holds: what the gates before this one decided on."""
    brief, opening = _module("mem.domain.brief"), _module("mem.index")
    layout, bm25 = _module("mem.layout"), _module("mem.index.bm25")

    def ranking(root: str, prompt: str, terms: int) -> Ranking:
        words = _content_terms(brief)([prompt], terms)

        def use(open_index: Callable[..., Any]) -> Ranking:
            project = open_index(root, bm25=True)
            files = {
                row.id: row.rank
                for path, row in project.files.items()
                if layout.is_memory_file(path)
            }
            scores = brief.relevance(project.conn, words, files, 10)
            stored = opening.fetch(project.conn, list(scores))
            weights, rarest = bm25.weights(project.conn, bm25.frequencies(project.conn, words))
            return [(stored[i].ref, score) for i, score in scores.items()], weights, rarest

        return opening.answer(use)

    return ranking


def hook_answer() -> Callable[[str, bytes], str]:
    """answer(event, stdin) -> what `mem hook EVENT --host claude-code` prints for the
    host's JSON: the hook's own entry, `mem.commands.hook.run`, in this process."""
    hook = _module("mem.commands.hook")
    return lambda event, stdin: hook.run(event, "claude-code", stdin)


def commit_ranking() -> Callable[[str, str, int], list[str]]:
    """ranking(root, prompt, limit) -> the shas of the best `limit` commits for the prompt's
    terms (as the prompt hook takes them), bm25 over the commits alone
    (`mem.index.history.search`), before any gate; where the hook reads a prompt as it
    reads it for the notes (`mem.domain.prompt_gate.written_whole`), the commits are
    searched as the hook searches them (its searched terms, their emphasis)."""
    brief, opening = _module("mem.domain.brief"), _module("mem.index")
    history = _module("mem.index.history")
    prompt_gate = _module("mem.domain.prompt_gate")

    def ranking(root: str, prompt: str, limit: int) -> list[str]:
        terms = _content_terms(brief)([prompt], brief.PROMPT_TERMS)

        def use(open_index: Callable[..., Any]) -> list[str]:
            conn = open_index(root, history=True).conn
            if not hasattr(prompt_gate, "written_whole"):
                return [item.sha for item in history.search(conn, terms, limit)]
            held_by = history.frequencies(conn, terms)
            asked, held_by = prompt_gate.written_whole(
                prompt, terms, held_by, lambda words: history.frequencies(conn, words)
            )
            searched = prompt_gate.searched(asked, held_by)
            emphasis = prompt_gate.emphasis(prompt, searched)
            return [item.sha for item in history.search(conn, searched, limit, emphasis)]

        return opening.answer(use)

    return ranking


def hook_ranking() -> Callable[[str, str], list[str]]:
    """ranking(root, prompt) -> the headings of the 10 best notes as `mem hook prompt` ranks
    them (`mem.domain.brief.prompt_relevance`: its terms, searched and weighed as the hook
    does), with no bar: where its gate picks from."""
    brief, opening = _module("mem.domain.brief"), _module("mem.index")
    layout, bm25 = _module("mem.layout"), _module("mem.index.bm25")

    def ranking(root: str, prompt: str) -> list[str]:
        terms = _content_terms(brief)([prompt[: brief.PROMPT_CHARS]], brief.PROMPT_TERMS)

        def use(open_index: Callable[..., Any]) -> list[str]:
            project = open_index(root, bm25=True)
            files = {
                row.id: row.rank
                for path, row in project.files.items()
                if layout.is_memory_file(path)
            }
            if hasattr(brief, "prompt_query"):
                asked, frequencies = brief.prompt_query(project.conn, prompt, terms)
            else:
                asked, frequencies = terms, bm25.frequencies(project.conn, terms)
            scores = brief.prompt_relevance(project.conn, prompt, asked, frequencies, files, 10)
            stored = opening.fetch(project.conn, list(scores))
            return [stored[record_id].ref for record_id in scores]

        return opening.answer(use) if terms else []

    return ranking


def prompt_terms_held() -> Callable[[str, str], int]:
    """held(prompt, text) -> how many of the prompt's terms (those `mem hook prompt` reads)
    a note's text holds (`mem.domain.prompt_gate.terms_held`)."""
    brief, prompt_gate = _module("mem.domain.brief"), _module("mem.domain.prompt_gate")

    def held(prompt: str, text: str) -> int:
        terms = _content_terms(brief)([prompt[: brief.PROMPT_CHARS]], brief.PROMPT_TERMS)
        return int(prompt_gate.terms_held(terms, text))

    return held


def recall_pairs() -> Callable[[str, str], dict[str, Any]]:
    """recall(root, query) -> {"shown": headings of the notes a bm25 recall (limit 5) shows,
    in score order, "scores": theirs, "pairs": [{"older", "newer", "likeness"}] every pair
    mem.domain.amendments finds among them}, whatever its rule then moves (for
    bench/amendment_rules.py, which applies other rules to the same pairs)."""
    recall, clock = _module("mem.domain.recall"), _module("mem.clock")
    amendments = _module("mem.domain.amendments")
    seen: list[dict[str, Any]] = []
    ruled = amendments.in_recall

    def spy(conn: Any, shown: list[int], scores: Any) -> Any:
        found = amendments.find(conn, shown, set(shown))
        ref = {record_id: record.ref for record_id, record in found.records.items()}
        pairs = [
            {"older": ref[older], "newer": ref[pair.newer], "likeness": pair.likeness.score}
            for older, amended in found.amended.items()
            for pair in amended
        ]
        shown_refs = [ref[record_id] for record_id in shown if record_id in ref]
        seen.append({"shown": shown_refs, "scores": [scores[i] for i in shown if i in ref]})
        seen[-1]["pairs"] = pairs
        return ruled(conn, shown, scores)

    amendments.in_recall = spy

    def answer(root: str, query: str) -> dict[str, Any]:
        seen.clear()
        request = _recall_request(recall)(query, ranking="bm25", limit="5")
        recall.recall(root, request, MEM_NOW, clock.local_offset_ms)
        return seen[0] if seen else {"shown": [], "scores": [], "pairs": []}

    return answer


def newer_first(order: list[str], amended: dict[str, list[tuple[str, float]]]) -> list[str]:
    """`order` as mem.core.ranking.amendments.newer_first rearranges it, given each older
    note's newer notes (with their likeness), likeliest first."""
    measure = _module("mem.core.ranking.amendments")
    pairs = {
        older: [
            measure.Amendment(older, newer, measure.Likeness(score, (), ()))
            for newer, score in newer_notes
        ]
        for older, newer_notes in amended.items()
    }
    placed: list[str] = measure.newer_first(order, pairs)
    return placed


def note_terms() -> Callable[[str, str], set[str]]:
    """terms(heading, text) -> a note's terms as bm25 indexes them (heading included)."""
    tokens = _module("mem.core.text.tokens")
    return lambda heading, text: set(tokens.counts(f"{heading}\n{text}", heading))


def query_terms() -> Callable[[str], list[str]]:
    """terms(query) -> a query's terms as bm25 searches them."""
    return _module("mem.core.text.tokens").query_terms
