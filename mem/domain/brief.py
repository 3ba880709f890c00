"""The brief: what an agent starting work should read first, as entries in order of value.

In order: the head of `context.md`, the open points of the newest handoff, then the active
decisions, lessons and patterns, those relevant to the current work first (the branch,
the paths changed in the work tree and in the last commits, the prompt when there is
one), then the newest. Retired memories are left out. The entries do not depend on the
budget: `mem.render.brief` keeps the longest prefix that fits, so a larger budget always
holds every entry of a smaller one. Same files and git state, same entries: no clock.

Relevance has one seat, `relevance()`: the bm25 ranking over the memory files
(mem.index.bm25), whose tokenizer reads words of every script and finds `pooling` for
`pool`; it is asked for the terms of the current work (`content_terms`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from mem import index, layout
from mem.core.prose import templates
from mem.core.ranking import score
from mem.core.rules import budgets
from mem.core.rules.memory_ids import memory_id, revision_of
from mem.core.text import parse, tokens
from mem.files import safe_paths
from mem.index.history import RankedCommit

MEMORY_FILES = layout.MEMORY_FILES
CONTEXT_HEAD_CHARS = 1200  # the head of context.md, cut at a line
OPEN_POINTS_CHARS = 1200  # the newest handoff's open points, cut at a line
SUMMARY_CHARS = 240  # a memory's body in the brief, cut at a word
PROMPT_CHARS = 20_000  # of a prompt, read for its words
QUERY_TERMS = 24  # terms of the current work the ranking is asked for
# Terms of a prompt the ranking is asked for: a bug report's decisive words come anywhere in
# it (bench/hooks: all of its terms, at most 46, find the governing note first for 0.30 of
# the reports, the first 24 for 0.23).
PROMPT_TERMS = 64
RELEVANT_AT_MOST = 50  # memories taken in relevance order; the rest follow by recency
BRIEF_COMMITS = 5  # commits relevant to the current work, after the notes relevant to it
# The smallest entry the renderer can print; it bounds how many entries one budget can hold.
SMALLEST_ENTRY = 40
KINDS = {"decisions.md": "decision", "lessons.md": "lesson", "patterns.md": "pattern"}

# Words that say nothing about the work: English function words, and what every path,
# branch name and commit holds.
STOP_WORDS = parse.FUNCTION_WORDS | frozenset(
    """
    add added adds change changed changes fix fixed fixes feat feature chore wip update
    updated make made use used new old main master head dev develop branch merge test tests
    src lib py js ts tsx jsx md txt json yaml yml toml lock cfg ini rs go java rb sh html css
    index init readme docs doc file files dir
    """.split()
)
OPEN_TITLES = r"open|unfinished|not done|todo|to do|next|pending|question|blocker|remaining|follow"


# The hook runs on every prompt within 150 ms, and only the session start reads handoffs:
# `re` (and the memory model behind the lifecycle store, and git) load when first needed.
@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    import re

    return re.compile(OPEN_TITLES, re.IGNORECASE), re.compile(r"(#{1,6})\s+(.*)")


class BriefUnit:
    """One unit of the brief: shown whole or not at all."""

    __slots__ = ("kind", "file", "heading", "text", "id", "revision", "relevance", "marks", "date")

    def __init__(
        self,
        kind: str,
        file: str,
        text: str,
        heading: str | None = None,
        id: str | None = None,
        revision: str | None = None,
        relevance: float | None = None,
    ) -> None:
        self.kind = kind  # context, handoff, decision, lesson, pattern or commit
        self.file = file
        self.text = text  # the part's head, or a memory's summary
        self.heading = heading
        self.id = id
        self.revision = revision
        self.relevance = relevance  # the ranking's score; None: not matched, or not a memory
        self.marks: dict[str, str] | None = None  # a likely amendment's (mem.domain.amendments)
        self.date: str | None = None  # a commit's (UTC); its id is the short sha, revision the sha

    def to_json(self) -> dict[str, Any]:
        if self.id is None:
            return {"kind": self.kind, "file": self.file, "text": self.text}
        if self.kind == "commit":
            return {
                "kind": "commit",
                "id": self.id,
                "sha": self.revision,
                "date": self.date,
                "heading": self.heading,
                "summary": self.text,
                "relevance": self.relevance,
            }
        return {
            "kind": self.kind,
            "id": self.id,
            "file": self.file,
            "heading": self.heading,
            "summary": self.text,
            "relevance": self.relevance,
            **(self.marks or {}),
        }


class Brief(NamedTuple):
    """The entries in order of value, and how many there are in all (memories included)."""

    entries: list[BriefUnit]  # at most what the budget could hold; the rest are counted
    total: int
    terms: list[str]  # what relevance was judged by


def content_terms(texts: Iterable[str], limit: int = QUERY_TERMS) -> list[str]:
    """The distinct bm25 terms of these texts' content words, in order: words of every
    script, identifiers whole and in parts, stemmed; none of STOP_WORDS and no numbers."""
    found: dict[str, None] = {}
    for text in texts:
        for term in tokens.terms(text):
            if not term.isdigit() and term not in _stop_terms():
                found.setdefault(term, None)
    return list(found)[:limit]


@functools.cache
def _stop_terms() -> frozenset[str]:
    """STOP_WORDS as the bm25 tokenizer makes them (`changes` -> `chang`)."""
    return frozenset(tokens.terms(" ".join(STOP_WORDS)))


def work_texts(root: str) -> list[str]:
    """What says what the current work is: the branch name and the paths changed lately
    (none of the memory's own files)."""
    from mem.files import worktree  # subprocess costs a prompt's hook 12 ms it never needs

    work = worktree.work_in_progress(root)
    if work is None:
        return []
    paths = [
        path
        for path in work.changed
        if not path.startswith((layout.BMAD_MEMORY + "/", layout.AGENTS_MEMORY + "/"))
    ]
    return [work.branch or "", *paths]


def relevance(
    conn: index.Connection,
    terms: list[str],
    file_ranks: dict[int, int],
    limit: int,
    floor: float = 0.0,
    emphasis: list[float] | None = None,
) -> dict[int, float]:
    """Record id -> score of the notes that match these bm25 terms best (at most `limit`),
    best first; with a `floor`, only scores above it; with `emphasis`, each term's idf
    multiplied by its value (mem.index.bm25.search).

    The one place the brief and the prompt hook rank memories: the bm25 ranking's score.
    Scores of 0 are never returned.
    """
    if not terms or not file_ranks:
        return {}
    from mem.index import bm25

    files = index.RecallFiles.given(file_ranks)
    found = bm25.search(conn, terms, files, None, limit, _no_offset, floor, emphasis)
    top = score.order([item for item in found if item.score > floor], limit)
    return {item.id: item.score for item in top if item.score > 0}


def _retired(root: str, conn: index.Connection, files: dict[int, index.FileRow]) -> set[int]:
    from mem.domain import lifecycle_events  # only where something was ever retired

    paths = {file_id: row.path for file_id, row in files.items()}
    return set(lifecycle_events.retired_in_index(root, conn, paths))


def _no_offset(_: float) -> float:
    return 0.0  # only journal events carry local times; the brief ranks notes alone


def summary(text: str, limit: int = SUMMARY_CHARS) -> str:
    """A memory's body on one line, cut at a word: at most `limit` characters."""
    body = text.split("\n", 1)[1] if "\n" in text else ""
    return budgets.cut_at_word(" ".join(body.split()), limit)


def filled_in(text: str, template: str) -> bool:
    """Whether a file says more than the template it was made from: a line that is neither
    a Markdown heading nor one of the template's own (its empty sections are only noise)."""
    given = {line.strip() for line in template.split("\n")}
    return any(
        line.strip() and not line.lstrip().startswith("#") and line.strip() not in given
        for line in text.split("\n")
    )


def head(text: str, limit: int) -> str:
    """The text's first lines, at most `limit` characters, cut at a line."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return (cut[: cut.rindex("\n")] if "\n" in cut else cut).rstrip() + "\n…"


def open_points(text: str) -> str:
    """The sections of a handoff about what is still open; its head when it names none."""
    open_title, markdown_heading = _patterns()
    kept: list[str] = []
    level = 0
    for line in text.split("\n"):
        heading = markdown_heading.fullmatch(line.strip())
        if heading:
            depth = len(heading.group(1))
            if level and depth <= level:
                level = 0
            if not level and open_title.search(heading.group(2)):
                level = depth
        if level:
            kept.append(line)
    return head("\n".join(kept) if kept else text, OPEN_POINTS_CHARS)


def _parts(root: str) -> list[BriefUnit]:
    entries = []
    context = safe_paths.read_notes(root, layout.CONTEXT)
    if context is not None and filled_in(context, templates.CONTEXT):
        entries.append(BriefUnit("context", layout.CONTEXT, head(context, CONTEXT_HEAD_CHARS)))
    names = safe_paths.regular_files_named(root, layout.SESSIONS, ".md")
    if names:
        relative = f"{layout.SESSIONS}/{names[-1]}"
        handoff = safe_paths.read_notes(root, relative)
        if handoff is not None and handoff.strip():
            entries.append(BriefUnit("handoff", relative, open_points(handoff)))
    return entries


def gather(root: str, budget: int, prompt: str | None = None, history: bool = True) -> Brief:
    """The brief's entries in order of value: as many as `budget` characters could hold.
    `history`: with the commits relevant to the work (a hook that could not have the
    history indexed in time asks without)."""
    terms = content_terms([*work_texts(root), (prompt or "")[:PROMPT_CHARS]])
    parts = _parts(root)

    def collect(open_index: index.OpenIndex) -> tuple[list[BriefUnit], int]:
        project = open_index(root, bm25=True)
        conn = project.conn
        files = {row.id: row for path, row in project.files.items() if layout.is_memory_file(path)}
        file_ids = list(files)
        retired = _retired(root, conn, files) if index.has_lifecycle_events(conn) else set()
        ranks = {file_id: row.rank for file_id, row in files.items()}
        scores = relevance(conn, terms, ranks, RELEVANT_AT_MOST)
        relevant = [record_id for record_id in scores if record_id not in retired]
        # Equal scores: the newer first.
        newest_relevant = index.newest_first(conn, relevant)
        place = {record_id: position for position, record_id in enumerate(newest_relevant)}
        relevant.sort(key=lambda record_id: (-scores[record_id], place[record_id]))
        room = max(0, budget // SMALLEST_ENTRY + 1 - len(parts))
        skipped = set(relevant) | retired
        newest = index.notes_by_recency(conn, file_ids, room + len(skipped))
        chosen = (relevant + [record_id for record_id in newest if record_id not in skipped])[:room]
        stored = index.fetch(conn, chosen)
        entries = []
        for record_id in chosen:
            record = stored[record_id]
            entries.append(memory_entry(record, scores.get(record_id)))
        from mem.domain import amendments  # not for the pre-edit hook, which needs an BriefUnit

        entries = amendments.in_brief(
            root,
            conn,
            files,
            entries,
            [*relevant, *newest],
            lambda record: memory_entry(record, scores.get(record.id)),
        )
        return entries, index.notes_count(conn, file_ids) - len(retired)

    memories, count = index.answer(collect)
    from mem.domain import prompt_gate

    at_most = BRIEF_COMMITS if history else 0
    commits = work_commits(root, terms, at_most, prompt_gate.SHARE, only_held=True)
    # The commits relevant to the work follow the notes relevant to it, before the newest.
    place = next(
        (at for at, entry in enumerate(memories) if entry.relevance is None), len(memories)
    )
    entries = parts + memories[:place] + commits + memories[place:]
    return Brief(entries, len(parts) + count + len(commits), terms)


def work_commits(
    root: str,
    terms: list[str],
    at_most: int,
    share: float,
    only_held: bool = False,
) -> list[BriefUnit]:
    """The project's commits that the prompt gate lets through for these terms, best first
    (docs/history.md): none outside a git checkout or with `history = false`."""
    from mem.domain import history

    if not terms or at_most <= 0 or not history.in_hooks(root):
        return []
    found, _ = history.relevant(root, terms, share, at_most, only_held)
    return [commit_entry(item) for item in found]


def commit_entry(item: RankedCommit) -> BriefUnit:
    """A commit as the brief and the hooks show it: its short sha (what `mem show` takes),
    date and subject, and the start of its body."""
    from mem.core.rules import commits
    from mem.domain import history

    shown = history.entry(item)
    entry = BriefUnit(
        "commit",
        shown["source"],
        summary(f"{item.subject}\n{commits.body(item.text)}"),
        item.subject,
        shown["shortSha"],
        item.sha,
        item.score,
    )
    entry.date = shown["date"]
    return entry


def memory_entry(record: index.StoredRecord, relevance: float | None) -> BriefUnit:
    text = record.text
    return BriefUnit(
        KINDS[record.path.rsplit("/", 1)[-1]],
        record.path,
        summary(text),
        record.ref,
        memory_id(record.path, record.ref),
        revision_of(text),
        relevance,
    )


def prompt_query(
    conn: index.Connection, prompt: str, terms: list[str]
) -> tuple[list[str], list[int]]:
    """The prompt hook's terms of a prompt (`terms`, its query_terms) and how many notes
    hold each: a word no note holds stemmed taken as written when notes hold that
    (mem.domain.prompt_gate.written_whole)."""
    from mem.domain import prompt_gate
    from mem.index import bm25

    frequencies = bm25.frequencies(conn, terms)
    return prompt_gate.written_whole(
        prompt[:PROMPT_CHARS], terms, frequencies, lambda words: bm25.frequencies(conn, words)
    )


def prompt_relevance(
    conn: index.Connection,
    prompt: str,
    terms: list[str],
    frequencies: list[int],
    file_ranks: dict[int, int],
    limit: int,
    floor: float = 0.0,
) -> dict[int, float]:
    """relevance() as the prompt hook asks it: on the prompt's `terms` that
    mem.domain.prompt_gate searches (`frequencies`: how many records hold each), its
    command-line options' words weighing more."""
    from mem.domain import prompt_gate

    searched = prompt_gate.searched(terms, frequencies)
    emphasis = prompt_gate.emphasis(prompt[:PROMPT_CHARS], searched)
    return relevance(conn, searched, file_ranks, limit, floor, emphasis)


def prompt_matches(
    root: str, prompt: str, threshold: float, seen: set[str], at_most: int
) -> tuple[list[BriefUnit], list[BriefUnit], list[str]]:
    """Memories that match a prompt, best first, none of `seen` (a set of `<id> <revision>`);
    the matches left out because they are in `seen` (so a hook that prints nothing can say
    why); and the terms they were matched on.

    A memory matches when its bm25 score is above `threshold` of the prompt's weight and,
    for a long prompt, it holds enough of the prompt's terms, as mem.domain.prompt_gate
    decides.
    """
    found = prompt_answer(root, prompt, threshold, seen, at_most, commits=False)
    return found.entries, found.withheld, found.terms


class PromptAnswer(NamedTuple):
    """What a prompt brings (`prompt_answer`)."""

    entries: list[BriefUnit]  # the memories that match, best first
    withheld: list[BriefUnit]  # those that matched but the session has
    commits: list[BriefUnit]  # then the commits that match, within what is left of at_most
    # None: the commits were ranked (or not asked for); else why not (history.STALE: HEAD is
    # not indexed yet, which is left to a process of its own)
    history: str | None
    terms: list[str]


def prompt_answer(
    root: str, prompt: str, threshold: float, seen: set[str], at_most: int, commits: bool = True
) -> PromptAnswer:
    """The memories that match a prompt (as prompt_matches), then, in a git checkout with
    history in the hooks (`commits`), the commits that do, through the same gate weighed over
    the commits alone (docs/history.md), none of `seen`: one index read, one reading of the
    prompt. The commits are ranked only when the index holds them at HEAD already: the
    history is never indexed here (a hook's deadline could cut it off)."""
    from mem.domain import history

    terms = content_terms([prompt[:PROMPT_CHARS]], PROMPT_TERMS)
    if not terms:
        return PromptAnswer([], [], [], None, terms)
    with_commits = commits and history.in_hooks(root)

    def collect(open_index: index.OpenIndex) -> PromptAnswer:
        project = open_index(root, bm25=True)
        entries, withheld = _prompt_notes(root, project, prompt, terms, threshold, seen, at_most)
        room = at_most - len(entries)
        if not with_commits or room <= 0:
            return PromptAnswer(entries, withheld, [], None, terms)
        problem = history.in_step(project.conn, root)
        if problem is not None:
            return PromptAnswer(entries, withheld, [], problem, terms)
        return PromptAnswer(
            entries,
            withheld,
            _prompt_commits(project.conn, prompt, terms, threshold, seen, room),
            None,
            terms,
        )

    return index.answer(collect)


def _prompt_notes(
    root: str,
    project: index.Opened,
    prompt: str,
    terms: list[str],
    threshold: float,
    seen: set[str],
    at_most: int,
) -> tuple[list[BriefUnit], list[BriefUnit]]:
    from mem.domain import prompt_gate
    from mem.index import bm25

    conn = project.conn
    files = {row.id: row for path, row in project.files.items() if layout.is_memory_file(path)}
    ranks = {file_id: row.rank for file_id, row in files.items()}
    asked, frequencies = prompt_query(conn, prompt, terms)
    weights, rarest = bm25.weights(conn, frequencies)
    # No score at or under the bar is injected: the search looks no further.
    bar = prompt_gate.bar(weights, rarest, threshold)
    scores = prompt_relevance(conn, prompt, asked, frequencies, ranks, at_most + len(seen), bar)
    if not scores:
        return [], []
    stored = index.fetch(conn, list(scores))
    emphasis = prompt_gate.emphasis(prompt[:PROMPT_CHARS], asked)
    kept = prompt_gate.injected(
        scores,
        weights,
        rarest,
        threshold,
        lambda record_id: prompt_gate.terms_held(asked, stored[record_id].text, emphasis),
    )
    if kept and index.has_lifecycle_events(conn):
        for record_id in _retired(root, conn, files):
            kept.pop(record_id, None)
    entries: list[BriefUnit] = []
    withheld: list[BriefUnit] = []
    for record_id in kept:  # the ranking's order: score, then candidate order
        entry = memory_entry(stored[record_id], kept[record_id])
        shown = f"{entry.id} {entry.revision}" not in seen
        (entries if shown else withheld).append(entry)
    from mem.domain import amendments

    return amendments.in_brief(
        root,
        conn,
        files,
        entries[:at_most],
        list(scores),
        lambda record: memory_entry(record, scores.get(record.id)),
    ), withheld


def _prompt_commits(
    conn: index.Connection,
    prompt: str,
    terms: list[str],
    threshold: float,
    seen: set[str],
    at_most: int,
) -> list[BriefUnit]:
    from mem.domain import history

    found = history.gated(conn, terms, threshold, at_most + len(seen), prompt=prompt[:PROMPT_CHARS])
    shown = [commit_entry(item) for item in found]
    return [entry for entry in shown if f"{entry.id} {entry.revision}" not in seen][:at_most]


def prompt_commits(
    root: str, prompt: str, threshold: float, seen: set[str], at_most: int
) -> list[BriefUnit]:
    """The commits that match a prompt, best first, none of `seen`: through the gate the
    notes pass (mem.domain.prompt_gate), weighed over the commits alone, after bringing the
    history in step with HEAD (none outside a git checkout or with `history = false`)."""
    from mem.domain import history

    terms = content_terms([prompt[:PROMPT_CHARS]], PROMPT_TERMS)
    if not terms or at_most <= 0 or not history.in_hooks(root):
        return []

    def collect(open_index: index.OpenIndex) -> list[BriefUnit]:
        opened = open_index(root, history=True)
        if opened.history is not None:
            return []
        return _prompt_commits(opened.conn, prompt, terms, threshold, seen, at_most)

    return index.answer(collect)
