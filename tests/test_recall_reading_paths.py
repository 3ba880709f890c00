"""Both ways recall reads a multi-term query's postings answer as the exhaustive scorer.

A query whose postings are few and all loaded is read in one pass over every band
(topk.read_all); the others band by band, scoring the small groups read once the top is
full early (topk.EARLY_RECORDS). The random corpora of test_recall_pruning are small, so
they take the one-pass path nearly always: here each path is forced in turn, and the
early scoring is both switched off and given every record it can take.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plain import comparable, plain_recall
from test_recall_pruning import NOW, _write, corpus, limit, query, scratch

from mem.commands import recall
from mem.index import topk

__all__ = ["scratch"]  # the fixture, shared with test_recall_pruning

PATHS = [
    {"FEW_POSTINGS": 10**9, "LOADED_BYTES": 10**9},  # one pass over every band
    {"FEW_POSTINGS": 0, "EARLY_RECORDS": 0},  # band by band, nothing scored early
    {"FEW_POSTINGS": 0, "EARLY_RECORDS": 10**9, "EARLY_TEXT": 10**9},  # all groups early
]


@pytest.mark.parametrize("path", PATHS, ids=repr)
@settings(
    max_examples=40,
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
    _write(root, files)
    for wanted in limits:
        answer = recall.recall(str(root), recall.Request(words, limit=str(wanted)), NOW)
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))
