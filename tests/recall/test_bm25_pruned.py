"""`recall --ranking bm25`'s pruned top-k is the exhaustive scorer's, to the bit, over the
notes and over the commits.

bm25.search reads the groups best bound first and stops early; bm25.exhaustive scores every
record holding a query term. On random corpora (test_bm25_exact's: several scripts,
identifiers, ties, repeated words, dated events) and random queries, both give the same
records in the same order with equal scores, for limits 1..60 and 1000, whether or not
every file is read.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recall.test_bm25_exact import (
    JOURNAL,
    LESSONS,
    NOTES,
    NOW_MS,
    SETTINGS,
    WORDS,
    _iso,
    _write,
    corpus,
    note_file,
    section,
)
from support import corpora, indexes

from mem import clock
from mem.core.ranking import score
from mem.core.rules.commits import Commit
from mem.core.text import tokens
from mem.index import RecallFiles, bm25, history, location, segments, tables, topk

# Rare words weigh most: a query mixes them with the common ones.
RARE = ["pgbouncer", "nurzibre", "冪等", "ошибка-42", "ΩmegaPool"]
word = st.sampled_from(WORDS + RARE)
# The bulk of a big corpus is drawn a seed a text, not a choice a word (support.corpora):
# word by word, drawing it cost hypothesis more than the searches it feeds.
many_sections = corpora.many_sections(WORDS, 20, 60).map(lambda s: "# Notes\n" + s)
rare_section = st.tuples(st.sampled_from(RARE), corpora.many_words(WORDS + RARE, 0, 30)).map(
    lambda p: f"### {p[0]}\n{p[1]}\n"
)
long_event = st.builds(
    lambda days, words: (
        json.dumps({"ts": _iso(NOW_MS + days * 86_400_000), "agent": "forge", "task": words}) + "\n"
    ),
    st.integers(min_value=-400, max_value=5),
    corpora.many_words(WORDS + RARE, 0, 20),
)
big_corpus = st.fixed_dictionaries(
    {NOTES: many_sections},
    optional={
        LESSONS: st.lists(rare_section, max_size=15).map(lambda s: "# Lessons\n" + "".join(s)),
        ".agents/memory/patterns.md": note_file,
        JOURNAL: st.lists(long_event, max_size=40),
    },
)
query = st.lists(word, min_size=1, max_size=6).map(" ".join)
# Small limits most often: a top-k of a few records is where reading stops early.
limit = (
    st.integers(min_value=1, max_value=4) | st.integers(min_value=1, max_value=60) | st.just(1000)
)


def _both(root: Path, words: str, size: int, skipped: set[str]) -> tuple[list, list]:
    terms = tokens.query_terms(words)
    with indexes.opened(str(root), bm25=True) as result:
        files = RecallFiles.given(
            {row.id: row.rank for path, row in result.files.items() if path not in skipped}
        )
        pruned = bm25.search(result.conn, terms, files, NOW_MS, size, clock.local_offset_ms)
        every = bm25.exhaustive(result.conn, terms, files, NOW_MS, clock.local_offset_ms)
    return score.order(pruned, size), score.order(every, size)


def _key(items: list[score.Ranked]) -> list[tuple[int, float, int, int]]:
    return [(item.id, item.score, item.rank, item.ordinal) for item in items]


@settings(SETTINGS, max_examples=200)
@given(
    files=corpus | big_corpus,
    words=query,
    size=limit,
    skip=st.sets(st.sampled_from([LESSONS, JOURNAL]), max_size=1),
)
def test_pruned_top_k_equals_the_exhaustive_scorer(
    scratch: Path, files: dict[str, object], words: str, size: int, skip: set[str]
) -> None:
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    pruned, every = _both(root, words, size, skip)
    # Scores compared as floats with ==: equal to the bit, not approximately.
    assert _key(pruned) == _key(every)


@settings(SETTINGS, max_examples=60)
@given(
    files=big_corpus,
    later=st.lists(section, min_size=1, max_size=12),
    later_events=st.lists(long_event, max_size=10),
    words=query,
    size=limit,
    workers=st.sampled_from(["1", "2"]),
)
def test_pruned_top_k_holds_over_parts_workers_and_later_syncs(
    scratch: Path,
    files: dict[str, object],
    later: list[str],
    later_events: list[str],
    words: str,
    size: int,
    workers: str,
) -> None:
    """A group in several parts (a build's batches, its workers' segments, a later sync's
    appends) is still searched right: each part in record order."""
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    previous = tables.Inserter.BM25_POSTINGS, os.environ.get(segments.WORKERS_VARIABLE)
    tables.Inserter.BM25_POSTINGS = 40  # a batch every few records
    os.environ[segments.WORKERS_VARIABLE] = workers
    try:
        with indexes.opened(str(root), bm25=True):
            pass
        with open(root / NOTES, "a", encoding="utf-8") as notes:
            notes.write("".join(later))
        (root / JOURNAL).parent.mkdir(parents=True, exist_ok=True)
        with open(root / JOURNAL, "a", encoding="utf-8") as journal:
            journal.write("".join(later_events))
        pruned, every = _both(root, words, size, set())
    finally:
        tables.Inserter.BM25_POSTINGS = previous[0]
        if previous[1] is None:
            del os.environ[segments.WORKERS_VARIABLE]
        else:
            os.environ[segments.WORKERS_VARIABLE] = previous[1]
    assert _key(pruned) == _key(every)


@settings(SETTINGS, max_examples=120)
@given(files=corpus | big_corpus, words=query, size=limit, share=st.floats(0.0, 1.2))
def test_a_floor_leaves_out_only_the_records_that_score_under_it(
    scratch: Path, files: dict[str, object], words: str, size: int, share: float
) -> None:
    """The prompt hook searches no further than its bar (bm25.search's floor): above it,
    the same records with the same scores as the exhaustive scorer."""
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    terms = tokens.query_terms(words)
    with indexes.opened(str(root), bm25=True) as result:
        files_ = RecallFiles.given({row.id: row.rank for row in result.files.values()})
        every = bm25.exhaustive(result.conn, terms, files_, NOW_MS, clock.local_offset_ms)
        floor = share * max((item.score for item in every), default=0.0)
        pruned = bm25.search(result.conn, terms, files_, NOW_MS, size, clock.local_offset_ms, floor)
    above = [item for item in score.order(every, size) if item.score > floor]
    assert _key([item for item in score.order(pruned, size) if item.score > floor]) == _key(above)


@settings(SETTINGS, max_examples=80)
@given(
    files=corpus | big_corpus,
    words=query,
    size=limit,
    weights=st.lists(st.sampled_from([1.0, 2.0, 0.5, 3.0]), min_size=8, max_size=8),
)
def test_an_emphasis_weighs_each_term_and_the_pruned_top_k_still_equals_the_exhaustive(
    scratch: Path, files: dict[str, object], words: str, size: int, weights: list[float]
) -> None:
    """The prompt hook weighs its command-line options' words more (bm25.search's emphasis):
    the bounds the pruned search stops on are weighed the same, and an emphasis of 1 each
    is no emphasis, to the bit."""
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    terms = tokens.query_terms(words)
    emphasis = weights[: len(terms)] + [1.0] * (len(terms) - len(weights))
    with indexes.opened(str(root), bm25=True) as result:
        files_ = RecallFiles.given({row.id: row.rank for row in result.files.values()})
        search = (result.conn, terms, files_, NOW_MS)
        pruned = bm25.search(*search, size, clock.local_offset_ms, 0.0, emphasis)
        every = bm25.exhaustive(*search, clock.local_offset_ms, emphasis)
        plain = bm25.exhaustive(*search, clock.local_offset_ms)
        ones = bm25.exhaustive(*search, clock.local_offset_ms, [1.0] * len(terms))
    assert _key(score.order(pruned, size)) == _key(score.order(every, size))
    assert _key(ones) == _key(plain)


class _Listing:
    """What history's writer reads of `git log`: the commits, oldest first, in batches."""

    problem = None

    def __init__(self, commits: list[Commit]) -> None:
        self.commits = commits

    def batches(self) -> list[list[Commit]]:
        return [self.commits[start : start + 7] for start in range(0, len(self.commits), 7)]


commit = st.tuples(
    st.lists(word, min_size=1, max_size=6), st.lists(word, max_size=40), st.integers(0, 5)
)


@settings(SETTINGS, max_examples=100)
@given(
    commits=st.lists(commit, min_size=1, max_size=80),
    words=query,
    size=limit,
    text_costs=st.sampled_from([0, 4, topk.POSTINGS_PER_TEXT, history._Scorer.postings_per_text]),
    fill_from_texts=st.booleans(),
)
def test_the_commits_pruned_top_k_equals_their_exhaustive_scores(
    monkeypatch: pytest.MonkeyPatch,
    commits: list[tuple[list[str], list[str], int]],
    words: str,
    size: int,
    text_costs: int,
    fill_from_texts: bool,
) -> None:
    """Commits rank on the same loop with their own postings, N and lengths (no decay):
    the best `size` of history.search are those of history.scores, ties by newer time,
    then sha. A text costing few postings makes these few commits' bounds matter; the top
    filled from texts or from the postings, the same."""
    monkeypatch.setattr(history._Scorer, "postings_per_text", text_costs)
    monkeypatch.setattr(history._Scorer, "fill_from_texts", fill_from_texts)
    listed = [
        Commit(f"{number:040x}", time, (), " ".join(subject) + "\n\n" + " ".join(body), ())
        for number, (subject, body, time) in enumerate(commits)
    ]
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(location.schema())
    added = history._write(conn, _Listing(listed), (0, 0))
    assert isinstance(added, tuple)
    conn.execute("INSERT INTO history VALUES (0, 'head', ?, ?)", added)
    terms = tokens.query_terms(words)
    pruned = [(item.sha, item.score) for item in history.search(conn, terms, size)]
    every = history.scores(conn, terms)
    found = {item.id: item for item in history.rows(conn, list(every))}
    ordered = sorted(every, key=lambda id: (-every[id], -found[id].time, found[id].sha))
    assert pruned == [(found[id].sha, every[id]) for id in ordered[:size]]


# Headings of a few shared words over bodies from 8 to 60 words long: a band (lengths a
# factor of 2 apart) holds many records of each heading word, and the records read for one
# query term are scored from their text only if their own length lets them reach the top.
HEADING_WORDS = ["retry", "cache", "postgres", "timeout", "deploy"]


def _shared_headings(seed: int) -> str:
    import random

    rng = random.Random(seed)
    body_words = [w for w in WORDS if w.isascii() and w.isalpha()]
    out = ["# Notes\n"]
    for _ in range(rng.randint(150, 300)):
        heading = " ".join(rng.sample(HEADING_WORDS, rng.randint(1, 3)))
        body = " ".join(rng.choice(body_words) for _ in range(rng.randint(8, 60)))
        out.append(f"\n### {heading}\n{body}\n")
    return "".join(out)


@settings(SETTINGS, max_examples=80)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    words=st.lists(st.sampled_from(HEADING_WORDS + ["pool", "Cache"]), min_size=2, max_size=4),
    size=st.integers(min_value=1, max_value=8),
)
def test_records_bounded_by_their_own_length_keep_the_exhaustive_top_k(
    scratch: Path, seed: int, words: list[str], size: int
) -> None:
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, {NOTES: _shared_headings(seed)})
    previous = topk.POSTINGS_PER_TEXT
    topk.POSTINGS_PER_TEXT = 1  # texts over reads, as a big project's groups make them
    try:
        pruned, every = _both(root, " ".join(words), size, set())
    finally:
        topk.POSTINGS_PER_TEXT = previous
    assert _key(pruned) == _key(every)
