"""The pruned top-k is the exhaustive answer: same records, same order, same scores to the bit.

Recall reads only the postings that can still change its answer (mem.index.topk). These
properties compare it with the plain scorer over the canonical files (tests/plain.py) on
random corpora built to stress the bounds: many exact ties, one very common word, lengths on
both sides of the exact length classes, events spread over many 4-day buckets (past and
future, dated and not), queries of stop words only, repeated terms and a thousand terms.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import index_support
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plain import comparable, plain_recall

from mem import index
from mem.commands import recall
from mem.index import snapshots, tables, topk

NOW = "2026-10-18T09:30:00.000Z"
NOW_MS = 1_792_315_800_000.0
COMMON = ["the", "the", "the", "to", "postgres", "cache"]
RARE = ["pgbouncer", "café", "2026-06-02", "x_y", "z9", "a"]
NOTE_FILES = [
    f"{d}/{f}"
    for d in (".bmad/memory", ".agents/memory")
    for f in ("decisions.md", "lessons.md", "patterns.md")
]
JOURNAL = ".bmad/memory/journal.ndjson"

word = st.sampled_from(COMMON + RARE)
# Short texts tie often; long ones reach past the exact length classes (128 tokens).
text = st.one_of(st.lists(word, max_size=6), st.lists(word, min_size=100, max_size=300)).map(
    " ".join
)
section = st.tuples(text, text).map(lambda parts: f"### {parts[0]}\n{parts[1]}\n")
note_file = st.lists(section, max_size=12).map(lambda sections: "# Notes\n" + "".join(sections))
# Days from long ago to the future, so decay bounds cross many buckets; or no usable ts.
stamp = st.one_of(
    st.integers(min_value=-400, max_value=30).map(
        lambda days: _iso(NOW_MS + days * 86_400_000 + 3_600_000 * (days % 5))
    ),
    st.sampled_from([None, "not a date", 1_790_000_000_000]),
)
event = st.builds(
    lambda ts, agent, task: json.dumps({"ts": ts, "agent": agent, "task": task}) + "\n",
    stamp,
    st.sampled_from(["forge", "the"]),
    text,
)
corpus = st.fixed_dictionaries(
    {path: note_file for path in NOTE_FILES[:3]},
    optional={JOURNAL: st.lists(event, max_size=25).map("".join), NOTE_FILES[4]: note_file},
)
query = st.one_of(
    st.lists(word, min_size=1, max_size=6).map(" ".join),
    st.just("the the the"),
    st.just("the to"),
    st.just("The THE tHe"),
)
limit = st.one_of(st.sampled_from([1, 2, 3, 8, 1000]), st.integers(min_value=1, max_value=60))


def _iso(ms: float) -> str:
    from mem.core import js

    return js.iso_from_ms(ms)


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


@pytest.fixture()
def scratch() -> Path:  # type: ignore[misc]
    directory = Path(tempfile.mkdtemp(prefix="mem-pruning-"))
    previous = os.environ.get("MEM_CACHE_DIR")
    os.environ["MEM_CACHE_DIR"] = str(directory / "cache")
    try:
        yield directory
    finally:
        if previous is None:
            del os.environ["MEM_CACHE_DIR"]
        else:
            os.environ["MEM_CACHE_DIR"] = previous
        shutil.rmtree(directory)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,  # long notes and many sections are the point here
    ],
)
@given(files=corpus, words=query, limits=st.lists(limit, min_size=1, max_size=4))
def test_pruned_top_k_equals_the_exhaustive_scorer(
    scratch: Path, files: dict[str, str], words: str, limits: list[int]
) -> None:
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    for wanted in limits:
        answer = recall.recall(str(root), recall.Request(words, limit=str(wanted)), NOW)
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))


def test_every_limit_of_a_corpus_full_of_ties(scratch: Path) -> None:
    root = scratch / "project"
    same = "### the cache\nthe cache the postgres\n"
    _write(
        root,
        {
            NOTE_FILES[0]: same * 40 + "### the\nthe\n" * 7 + same * 40,
            NOTE_FILES[1]: ("### postgres the\n" + "the " * 150 + "\n") * 30 + same * 10,
            JOURNAL: "".join(
                json.dumps({"ts": _iso(NOW_MS - day * 86_400_000), "agent": "the", "task": "cache"})
                + "\n"
                for day in range(0, 200, 3)
            ),
        },
    )
    for words in ("the", "cache the", "the postgres cache", "postgres"):
        every = plain_recall(str(root), words, NOW, 1000)
        for wanted in range(1, len(every) + 2):
            answer = recall.recall(str(root), recall.Request(words, limit=str(wanted)), NOW)
            assert comparable(answer) == comparable(every[:wanted]), (words, wanted)


def test_a_thousand_terms_are_exact(scratch: Path) -> None:
    root = scratch / "project"
    vocabulary = [f"w{number}" for number in range(1500)]
    notes = "".join(
        f"### note {number}\n" + " ".join(vocabulary[number : number + 40 : 3]) + "\n"
        for number in range(0, 1500, 7)
    )
    _write(root, {NOTE_FILES[0]: notes})
    for words in (
        " ".join(vocabulary[:1000]),
        " ".join(vocabulary[500:1500]),
        " ".join(["the"] * 999 + ["w3"]),
    ):
        for wanted in (1, 8, 1000):
            answer = recall.recall(str(root), recall.Request(words, limit=str(wanted)), NOW)
            assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,  # long notes and many sections are the point here
    ],
)
@given(
    journal=st.lists(
        st.builds(
            lambda day, hour, zoned, task: (
                json.dumps(
                    {
                        "ts": _iso(NOW_MS + day * 86_400_000 + hour * 3_600_000)[:-1]
                        + ("Z" if zoned else ""),
                        "agent": "forge",
                        "task": task,
                    }
                )
                + "\n"
            ),
            st.integers(min_value=-90, max_value=2),
            st.integers(min_value=-30, max_value=30),
            st.booleans(),
            text,
        ),
        min_size=1,
        max_size=30,
    ),
    words=query,
    wanted=limit,
)
def test_local_time_events_prune_exactly(
    scratch: Path, journal: list[str], words: str, wanted: int
) -> None:
    """Events whose ts names no zone decay by the reader's zone: pruning must still be exact."""
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, {JOURNAL: "".join(journal)})
    from mem import clock
    from mem.core import parse, score

    terms = parse.query_tokens(words)
    with index_support.opened(str(root)) as result:
        files = index.RecallFiles.given({row.id: row.rank for row in result.files.values()})
        every = topk.search(result.conn, terms, files, NOW_MS, None, clock.local_offset_ms)
        pruned = topk.search(result.conn, terms, files, NOW_MS, wanted, clock.local_offset_ms)
    assert score.order(pruned, wanted) == score.order(every, wanted)


def test_edited_sections_alone_are_reinserted(scratch: Path) -> None:
    root = scratch / "project"
    sections = [f"### note {number}\nthe body of note {number}\n" for number in range(300)]
    _write(root, {NOTE_FILES[0]: "# Decisions\n" + "".join(sections)})

    def ids() -> dict[str, int]:
        with index_support.opened(str(root)) as result:
            return dict(
                result.conn.execute("SELECT text, id FROM records WHERE kind = 'note'").fetchall()
            )

    before = ids()
    sections[10] = "### note 10\nthe body, edited\n"
    sections.insert(50, "### a new note\ninserted in the middle\n")
    del sections[200]
    path = root / NOTE_FILES[0]
    path.write_text("# Decisions\n" + "".join(sections), encoding="utf-8")
    os.utime(path, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    after = ids()
    kept = set(before) & set(after)
    assert len(kept) == 298
    assert all(before[text] == after[text] for text in kept)
    with index_support.opened(str(root)) as result:
        incremental = snapshots.snapshot(result.conn)
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with index_support.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental


def test_removing_many_records_at_once_equals_a_fresh_build(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big deletion rewrites every group in one pass: the postings must still be exact."""
    from mem.index import postings

    monkeypatch.setattr(postings, "BULK_GROUPS", 3)
    root = scratch / "project"
    _write(
        root,
        {
            NOTE_FILES[0]: "".join(f"### a {n}\nthe cache {n} postgres\n" for n in range(50)),
            NOTE_FILES[1]: "".join(f"### b {n}\nthe pgbouncer {n}\n" for n in range(50)),
        },
    )
    with index_support.opened(str(root)):
        pass
    (root / NOTE_FILES[0]).unlink()
    with index_support.opened(str(root)) as result:
        incremental = snapshots.snapshot(result.conn)
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with index_support.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental
    assert incremental["orphan_postings"] == []


def test_index_check_notices_tampered_postings(scratch: Path) -> None:
    from mem.index import check

    root = scratch / "project"
    _write(root, {NOTE_FILES[0]: "### a\nthe cache\n### b\nthe pgbouncer\n"})
    assert check.check(str(root))["ok"]
    with index_support.opened(str(root)) as result:
        result.conn.execute(
            "UPDATE postings SET records = CAST(records || records AS BLOB)"
            " WHERE term = (SELECT id FROM terms WHERE term = 'cache')"
        )
        result.conn.execute(
            "INSERT INTO postings (term, band, tf, part, records) VALUES (1, 3, 9, 0, ?)",
            ((987654321).to_bytes(8, "little"),),
        )
    found = check.check(str(root))
    assert not found["ok"]
    assert any(line.startswith("orphan_postings: unexpected") for line in found["differences"])
    assert any(line.startswith("records: unexpected") for line in found["differences"])


def test_groups_written_in_many_parts_answer_and_shrink_exactly(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build stages each batch of postings apart and merges them into whole groups; later
    syncs add parts beside them."""
    monkeypatch.setattr(tables.Inserter, "FLUSH_POSTINGS", 7)
    monkeypatch.setattr(tables.Inserter, "ROWS_PER_WRITE", 3)
    root = scratch / "project"
    notes = "".join(f"### n{n}\nthe cache {'the ' * (n % 3)}postgres\n" for n in range(60))
    _write(root, {NOTE_FILES[0]: notes, NOTE_FILES[1]: notes})
    for words in ("the", "the cache", "postgres the cache"):
        for wanted in (1, 5, 1000):
            answer = recall.recall(str(root), recall.Request(words, limit=str(wanted)), NOW)
            assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))
    (root / NOTE_FILES[0]).write_text(notes.replace("### n7\n", "### n7 edited\n"))
    with index_support.opened(str(root)) as result:
        split = result.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM postings GROUP BY term, band, tf"
            " HAVING count(*) > 1)"
        ).fetchone()[0]
        incremental = snapshots.snapshot(result.conn)
    assert split > 0
    for words in ("the", "the cache", "postgres the cache"):
        answer = recall.recall(str(root), recall.Request(words, limit="1000"), NOW)
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, 1000))
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with index_support.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental
