"""A query that mixes very common words with rare ones answers as the exhaustive scorer.

Such a query leaves many records waiting after the top is full: those read with the rare
words, whose frequencies of the common words are unknown. Recall settles them best bound
first, reading the common words' groups or scoring the records from their text, whichever
costs less (mem.index.topk). These corpora are big enough for that path (groups of
hundreds of records in many bands), and every answer is compared with the plain scorer's,
for random queries of common and rare words (repeated ones too), every --limit, and the
cost of a text at both ends.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.corpora import write_corpus
from support.plain import comparable, plain_recall

from mem import clock
from mem.domain import recall
from mem.index import topk

NOW = "2026-10-18T09:30:00.000Z"
NOW_MS = 1_792_315_800_000.0
COMMON = ["the", "postgres", "cache", "to"]
RARE = ["pgbouncer", "pool", "w1", "w2", "w3"]
FILLER = [f"f{number}" for number in range(60)]


def _corpus(root: Path, seed: int) -> None:
    """Most records hold "the", many postgres or cache, few the rare words, lengths 1-70."""
    rng = random.Random(seed)

    def text(low: int, high: int) -> str:
        words = []
        for _ in range(rng.randint(low, high)):
            draw = rng.random()
            if draw < 0.3:
                words.append("the")
            elif draw < 0.4:
                words.append(rng.choice(COMMON[1:]))
            elif draw < 0.42:
                words.append(rng.choice(RARE))
            else:
                words.append(rng.choice(FILLER))
        return " ".join(words)

    write_corpus(
        root,
        rng,
        text,
        sections=lambda: 500,
        heading=(1, 5),
        body=(0, 65),
        events=200,
        days=(-2, 120),
        task=(1, 16),
        now_ms=NOW_MS,
    )


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("common-and-rare")
    roots = []
    for seed in (3, 11):
        root = base / f"project-{seed}"
        _corpus(root, seed)
        roots.append(root)
    return roots


@pytest.fixture(autouse=True)
def _cache(projects: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # One cache for the module: each corpus is indexed once, by its first recall.
    monkeypatch.setenv("MEM_CACHE_DIR", str(projects[0].parent / "cache"))


query = st.lists(st.sampled_from(COMMON + RARE), min_size=2, max_size=7).map(" ".join)
knobs = st.fixed_dictionaries({"POSTINGS_PER_TEXT": st.sampled_from([0, 16, 128, 10**6])})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st.integers(min_value=0, max_value=1),
    words=query,
    limits=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=3),
    settings_of_topk=knobs,
)
def test_common_and_rare_words_are_exact(
    projects: list[Path],
    which: int,
    words: str,
    limits: list[int],
    settings_of_topk: dict[str, float],
) -> None:
    root = str(projects[which])
    every = plain_recall(root, words, NOW, 1000)
    saved = {name: getattr(topk, name) for name in settings_of_topk}
    try:
        for name, value in settings_of_topk.items():
            setattr(topk, name, value)
        for wanted in limits:
            answer = recall.recall(
                root, recall.RecallRequest(words, limit=str(wanted)), NOW, clock.local_offset_ms
            ).entries
            assert comparable(answer) == comparable(every[:wanted]), (words, wanted)
    finally:
        for name, value in saved.items():
            setattr(topk, name, value)


@pytest.mark.parametrize(
    "words",
    [
        "the postgres cache pgbouncer w1",
        "the the postgres pgbouncer pgbouncer",
        "to the cache pool w2 w3",
    ],
)
def test_every_limit_of_a_mixed_query_is_exact(projects: list[Path], words: str) -> None:
    root = str(projects[0])
    every = plain_recall(root, words, NOW, 1000)
    for wanted in [*range(1, 21), 40, 100, 1000]:
        answer = recall.recall(
            root, recall.RecallRequest(words, limit=str(wanted)), NOW, clock.local_offset_ms
        ).entries
        assert comparable(answer) == comparable(every[:wanted]), (words, wanted)


def test_the_corpora_reach_both_ways_of_settling(
    projects: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guards the tests above: once the top is full, a mixed query here settles waiting
    classes from their postings, and with a text costing 16 postings (one of the costs
    drawn above) from their text too."""
    taken = set()
    take = topk._Searcher._take

    def counted(self: topk._Searcher, waiting: topk._Class, kind: list[topk._Class]) -> None:
        if self.threshold > -math.inf:
            taken.add("postings" if kind is self.known else "text")
        take(self, waiting, kind)

    monkeypatch.setattr(topk._Searcher, "_take", counted)
    words = "the postgres cache pgbouncer w1"
    recall.recall(str(projects[0]), recall.RecallRequest(words), NOW, clock.local_offset_ms)
    assert taken == {"postings"}
    monkeypatch.setattr(topk, "POSTINGS_PER_TEXT", 16)
    recall.recall(str(projects[0]), recall.RecallRequest(words), NOW, clock.local_offset_ms)
    assert taken == {"postings", "text"}
