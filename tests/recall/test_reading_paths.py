"""Both ways recall settles a multi-term query's waiting records answer as the exhaustive scorer.

Once the top is full, a class of waiting records is settled by reading the next group of a
term it is not known to hold, or by scoring its records from their text, whichever costs
less (topk.POSTINGS_PER_TEXT). The random corpora of test_pruning are small, so
their groups rarely cost more than a text: here each way is forced in turn, with every
group read by its own statement or all of them with their term's first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.corpora import NOW, limit, write_files
from support.corpora import tie_corpus as corpus
from support.corpora import tie_query as query
from support.plain import comparable, plain_recall

from mem import clock
from mem.domain import recall
from mem.index import topk

PATHS = [
    {"POSTINGS_PER_TEXT": 0, "LOADED_BYTES": 0},  # from the text, groups read one by one
    {"POSTINGS_PER_TEXT": 10**9, "LOADED_BYTES": 10**9},  # from the postings alone
]


@pytest.mark.parametrize("path", PATHS, ids=repr)
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)
@given(files=corpus, words=query, limits=st.lists(limit, min_size=1, max_size=3))
def test_each_reading_path_equals_the_exhaustive_scorer(
    scratch: Path,
    monkeypatch: pytest.MonkeyPatch,
    path: dict[str, int],
    files: dict[str, str],
    words: str,
    limits: list[int],
) -> None:
    for name, value in path.items():
        assert hasattr(topk, name), name
        monkeypatch.setattr(topk, name, value)
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    write_files(root, files)
    for wanted in limits:
        answer = recall.recall(
            str(root), recall.RecallRequest(words, limit=str(wanted)), NOW, clock.local_offset_ms
        ).entries
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))
