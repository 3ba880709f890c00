"""Whichever way recall reads the postings, its answer is the exhaustive scorer's.

The pruned top-k (mem.index.topk) settles a waiting class of records either by reading
the next group of a term it is not known to hold or by scoring its records from their
text, whichever costs less (POSTINGS_PER_TEXT); and it loads small groups up front, big
ones when it reads them (LOADED_BYTES). Small test corpora rarely cross those estimates,
so here each is pushed to both ends over one corpus big enough to hold groups of hundreds
of records, many bands and dated events, and every answer is compared with the plain
scorer's.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from support.corpora import write_corpus
from support.plain import comparable, plain_recall

from mem import clock
from mem.domain import recall
from mem.index import topk

NOW = "2026-10-18T09:30:00.000Z"
NOW_MS = 1_792_315_800_000.0
WORDS = ["the"] * 30 + ["to"] * 12 + ["postgres"] * 6 + ["cache"] * 5 + ["pool", "pgbouncer"]
WORDS += [f"w{number}" for number in range(40)]
QUERIES = [
    "the",
    "pgbouncer",
    "postgres cache",
    "the postgres cache pgbouncer w3",
    "the to postgres cache pool pgbouncer w1 w2 w3 w4 w5",
    "w7 w8",
    " ".join(f"w{number}" for number in range(40)),
]
# Each knob at both ends: (attribute of mem.index.topk, value).
STRATEGIES = [
    {},
    {"LOADED_BYTES": 0},  # every group read by its own statement
    {"LOADED_BYTES": 10**9},  # every group read with its term's first statement
    {"POSTINGS_PER_TEXT": 0},  # waiting records scored from their text
    {"POSTINGS_PER_TEXT": 10**9, "LOADED_BYTES": 64},  # settled from the postings alone
]


def _corpus(root: Path) -> None:
    rng = random.Random(7)

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    write_corpus(
        root,
        rng,
        text,
        sections=lambda: rng.randint(150, 250),
        heading=(1, 4),
        body=(0, 60),
        events=300,
        days=(-3, 200),
        task=(1, 14),
        now_ms=NOW_MS,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("strategies") / "project"
    _corpus(root)
    return root


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda knobs: repr(knobs) or "defaults")
def test_every_reading_strategy_answers_as_the_exhaustive_scorer(
    project: Path,
    strategy: dict[str, float],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    for name, value in strategy.items():
        assert hasattr(topk, name), name
        monkeypatch.setattr(topk, name, value)
    for words in QUERIES:
        expected = plain_recall(str(project), words, NOW, 1000)
        for wanted in (1, 3, 8, 40, 1000):
            answer = recall.recall(
                str(project),
                recall.RecallRequest(words, limit=str(wanted)),
                NOW,
                clock.local_offset_ms,
            ).entries
            assert comparable(answer) == comparable(expected[:wanted]), (words, wanted)
    assert os.path.isdir(tmp_path / "cache")
