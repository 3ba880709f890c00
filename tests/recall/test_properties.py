"""Invariants over random histories of the canonical files.

After any sequence of note edits, deletions, journal appends, torn lines and file
removals: the incrementally synced index holds exactly the rows of a fresh build, recall
equals a plain in-memory scorer over the files, and deleting the index changes nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.corpora import JOURNAL, NOTE_PATHS, events
from support.indexes import cache_at
from support.plain import comparable, plain_recall

from mem import clock
from mem.core.text import parse
from mem.domain import recall
from mem.index import records, snapshots

NOW = "2026-10-18T09:30:00.000Z"
WORDS = ["postgres", "redis", "pool", "cache", "deploy", "Cache", "café", "x", "a-b", "2026-06-02"]

words = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(" ".join)
section = st.tuples(st.sampled_from(["### ", "###\t", "#### ", "###", "## "]), words, words).map(
    lambda parts: f"{parts[0]}{parts[1]}\n{parts[2]}\n"
)
note_file = st.lists(section, max_size=5).map("".join)
event = events(words)
operation = st.one_of(
    st.tuples(st.just("write-notes"), st.sampled_from(NOTE_PATHS), note_file),
    st.tuples(st.just("delete"), st.sampled_from([*NOTE_PATHS, JOURNAL]), st.just("")),
    st.tuples(
        st.just("append"), st.just(JOURNAL), st.lists(event, min_size=1, max_size=3).map("".join)
    ),
    st.tuples(
        st.just("append"),
        st.just(JOURNAL),
        st.sampled_from(['{"ts":"2026-10-05', "garbage\n", "\n", " "]),
    ),
    st.tuples(
        st.just("rewrite-journal"), st.just(JOURNAL), st.lists(event, max_size=3).map("".join)
    ),
)


def apply(root: Path, step: int, kind: str, relative: str, payload: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "delete":
        path.unlink(missing_ok=True)
        return
    mode = "a" if kind == "append" else "w"
    with path.open(mode, encoding="utf-8", newline="") as handle:
        handle.write(payload)
    # Alternate between a stat that moved far into the past (the fast path must notice the
    # change) and one that is fresh (racily clean: only the hash can tell).
    if step % 2:
        stamp = (1_700_000_000 + step) * 10**9
        os.utime(path, ns=(stamp, stamp))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(
    st.lists(operation, min_size=1, max_size=10),
    words.filter(lambda q: parse.query_tokens(q) != []),
)
def test_incremental_sync_equals_fresh_build_and_plain_recall(
    operations: list[tuple[str, str, str]], query: str
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="mem-prop-"))
    try:
        root = scratch / "project"
        root.mkdir()
        with cache_at(str(scratch / "incremental")):
            for step, (kind, relative, payload) in enumerate(operations):
                apply(root, step, kind, relative, payload)
                with indexes.synced(str(root)) as (conn, _):
                    incremental = snapshots.snapshot(conn)
                with (
                    cache_at(str(scratch / f"fresh-{step}")),
                    indexes.synced(str(root)) as (conn, _),
                ):
                    fresh = snapshots.snapshot(conn)
                assert incremental == fresh
                answer = recall.recall(
                    str(root), recall.RecallRequest(query, limit="1000"), NOW, clock.local_offset_ms
                ).entries
                assert comparable(answer) == comparable(plain_recall(str(root), query, NOW, 1000))
            kept = recall.recall(
                str(root), recall.RecallRequest(query), NOW, clock.local_offset_ms
            ).entries
            shutil.rmtree(scratch / "incremental")
            assert (
                recall.recall(
                    str(root), recall.RecallRequest(query), NOW, clock.local_offset_ms
                ).entries
                == kept
            )
    finally:
        shutil.rmtree(scratch)


@given(st.binary(max_size=400))
def test_parsing_never_crashes(data: bytes) -> None:
    list(records.records_for("journal", data))
    list(records.records_for("notes", data))


@given(
    st.lists(
        st.tuples(st.floats(min_value=0, max_value=10), st.integers(0, 5), st.integers(0, 50)),
        max_size=30,
    ),
    st.randoms(),
)
def test_ranking_does_not_depend_on_arrival_order(
    items: list[tuple[float, int, int]], shuffler
) -> None:  # type: ignore[no-untyped-def]
    from mem.core.ranking import score

    ranked = [
        score.Ranked(value, rank, ordinal, i) for i, (value, rank, ordinal) in enumerate(items)
    ]
    shuffled = list(ranked)
    shuffler.shuffle(shuffled)
    key = [(r.score, r.rank, r.ordinal) for r in score.order(ranked, 1000)]
    assert [(r.score, r.rank, r.ordinal) for r in score.order(shuffled, 1000)] == key


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.sampled_from(["postgres pool", "postgres postgres pool x", "pool", "redis postgres"]),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from(["postgres", "postgres pool", "pool redis"]),
    st.integers(min_value=1, max_value=5),
)
def test_small_limits_over_many_near_ties_equal_plain_recall(
    bodies: list[str], query: str, limit: int
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="mem-ties-"))
    try:
        root = scratch / "project"
        notes = "".join(f"### note {i}\n{body}\n" for i, body in enumerate(bodies))
        (root / ".agents/memory").mkdir(parents=True)
        (root / ".agents/memory/lessons.md").write_text(notes, encoding="utf-8")
        with cache_at(str(scratch / "cache")):
            answer = recall.recall(
                str(root), recall.RecallRequest(query, limit=str(limit)), NOW, clock.local_offset_ms
            ).entries
        assert comparable(answer) == comparable(plain_recall(str(root), query, NOW, limit))
    finally:
        shutil.rmtree(scratch)
