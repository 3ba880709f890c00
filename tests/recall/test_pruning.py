"""The pruned top-k is the exhaustive answer: same records, same order, same scores to the bit.

Recall reads only the postings that can still change its answer (mem.index.topk). These
properties compare it with the plain scorer over the canonical files (tests/support/plain.py) on
random corpora built to stress the bounds: many exact ties, one very common word, lengths on
both sides of the exact length classes, events spread over many 4-day buckets (past and
future, dated and not), queries of stop words only, repeated terms and a thousand terms.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.corpora import JOURNAL, NOTE_PATHS, NOW, NOW_MS, limit, write_files
from support.corpora import tie_corpus as corpus
from support.corpora import tie_query as query
from support.corpora import tie_text as text
from support.plain import comparable, plain_recall

from mem import clock, index
from mem.core.javascript import js
from mem.domain import recall
from mem.index import lexical, snapshots, tables


@settings(
    max_examples=50,
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
    write_files(root, files)
    for wanted in limits:
        answer = recall.recall(
            str(root), recall.RecallRequest(words, limit=str(wanted)), NOW, clock.local_offset_ms
        ).entries
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))


def test_every_limit_of_a_corpus_full_of_ties(scratch: Path) -> None:
    root = scratch / "project"
    same = "### the cache\nthe cache the postgres\n"
    write_files(
        root,
        {
            NOTE_PATHS[0]: same * 40 + "### the\nthe\n" * 7 + same * 40,
            NOTE_PATHS[1]: ("### postgres the\n" + "the " * 150 + "\n") * 30 + same * 10,
            JOURNAL: "".join(
                json.dumps(
                    {
                        "ts": js.iso_from_ms(NOW_MS - day * 86_400_000),
                        "agent": "the",
                        "task": "cache",
                    }
                )
                + "\n"
                for day in range(0, 200, 3)
            ),
        },
    )
    for words in ("the", "cache the", "the postgres cache", "postgres"):
        every = plain_recall(str(root), words, NOW, 1000)
        for wanted in range(1, len(every) + 2):
            answer = recall.recall(
                str(root),
                recall.RecallRequest(words, limit=str(wanted)),
                NOW,
                clock.local_offset_ms,
            ).entries
            assert comparable(answer) == comparable(every[:wanted]), (words, wanted)


def test_a_thousand_terms_are_exact(scratch: Path) -> None:
    root = scratch / "project"
    vocabulary = [f"w{number}" for number in range(1500)]
    notes = "".join(
        f"### note {number}\n" + " ".join(vocabulary[number : number + 40 : 3]) + "\n"
        for number in range(0, 1500, 7)
    )
    write_files(root, {NOTE_PATHS[0]: notes})
    for words in (
        " ".join(vocabulary[:1000]),
        " ".join(vocabulary[500:1500]),
        " ".join(["the"] * 999 + ["w3"]),
    ):
        for wanted in (1, 8, 1000):
            answer = recall.recall(
                str(root),
                recall.RecallRequest(words, limit=str(wanted)),
                NOW,
                clock.local_offset_ms,
            ).entries
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
                        "ts": js.iso_from_ms(NOW_MS + day * 86_400_000 + hour * 3_600_000)[:-1]
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
    write_files(root, {JOURNAL: "".join(journal)})
    from mem import clock
    from mem.core.ranking import score
    from mem.core.text import parse

    terms = parse.query_tokens(words)
    with indexes.opened(str(root)) as result:
        files = index.RecallFiles.given({row.id: row.rank for row in result.files.values()})
        every = lexical.search(result.conn, terms, files, NOW_MS, None, clock.local_offset_ms)
        pruned = lexical.search(result.conn, terms, files, NOW_MS, wanted, clock.local_offset_ms)
    assert score.order(pruned, wanted) == score.order(every, wanted)


def test_edited_sections_alone_are_reinserted(scratch: Path) -> None:
    root = scratch / "project"
    sections = [f"### note {number}\nthe body of note {number}\n" for number in range(300)]
    write_files(root, {NOTE_PATHS[0]: "# Decisions\n" + "".join(sections)})

    def ids() -> dict[str, int]:
        with indexes.opened(str(root)) as result:
            return dict(
                result.conn.execute("SELECT text, id FROM records WHERE kind = 'note'").fetchall()
            )

    before = ids()
    sections[10] = "### note 10\nthe body, edited\n"
    sections.insert(50, "### a new note\ninserted in the middle\n")
    del sections[200]
    path = root / NOTE_PATHS[0]
    path.write_text("# Decisions\n" + "".join(sections), encoding="utf-8")
    os.utime(path, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    after = ids()
    kept = set(before) & set(after)
    assert len(kept) == 298
    assert all(before[text] == after[text] for text in kept)
    with indexes.opened(str(root)) as result:
        incremental = snapshots.snapshot(result.conn)
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with indexes.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental


def test_removing_many_records_at_once_equals_a_fresh_build(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big deletion rewrites every group in one pass: the postings must still be exact."""
    from mem.index import postings

    monkeypatch.setattr(postings, "BULK_GROUPS", 3)
    root = scratch / "project"
    write_files(
        root,
        {
            NOTE_PATHS[0]: "".join(f"### a {n}\nthe cache {n} postgres\n" for n in range(50)),
            NOTE_PATHS[1]: "".join(f"### b {n}\nthe pgbouncer {n}\n" for n in range(50)),
        },
    )
    with indexes.opened(str(root)):
        pass
    (root / NOTE_PATHS[0]).unlink()
    with indexes.opened(str(root)) as result:
        incremental = snapshots.snapshot(result.conn)
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with indexes.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental
    assert incremental["orphan_postings"] == []


def test_index_check_notices_tampered_postings(scratch: Path) -> None:
    from mem.index import check

    root = scratch / "project"
    write_files(root, {NOTE_PATHS[0]: "### a\nthe cache\n### b\nthe pgbouncer\n"})
    assert check.check(str(root))["ok"]
    with indexes.opened(str(root)) as result:
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
    write_files(root, {NOTE_PATHS[0]: notes, NOTE_PATHS[1]: notes})
    for words in ("the", "the cache", "postgres the cache"):
        for wanted in (1, 5, 1000):
            answer = recall.recall(
                str(root),
                recall.RecallRequest(words, limit=str(wanted)),
                NOW,
                clock.local_offset_ms,
            ).entries
            assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, wanted))
    (root / NOTE_PATHS[0]).write_text(notes.replace("### n7\n", "### n7 edited\n"))
    with indexes.opened(str(root)) as result:
        split = result.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM postings GROUP BY term, band, tf"
            " HAVING count(*) > 1)"
        ).fetchone()[0]
        incremental = snapshots.snapshot(result.conn)
    assert split > 0
    for words in ("the", "the cache", "postgres the cache"):
        answer = recall.recall(
            str(root), recall.RecallRequest(words, limit="1000"), NOW, clock.local_offset_ms
        ).entries
        assert comparable(answer) == comparable(plain_recall(str(root), words, NOW, 1000))
    os.environ["MEM_CACHE_DIR"] = str(scratch / "fresh")
    with indexes.opened(str(root)) as result:
        assert snapshots.snapshot(result.conn) == incremental


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)
@given(files=corpus, words=query, wanted=limit, share=st.floats(0.0, 1.2))
def test_a_floor_leaves_out_only_the_records_that_score_under_it(
    scratch: Path, files: dict[str, str], words: str, wanted: int, share: float
) -> None:
    """`mem check findability` searches each query down to its note's own score (topk's
    floor): above it, the same records with the same scores as the whole ranking."""
    from mem import clock
    from mem.core.ranking import score
    from mem.core.text import parse

    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    write_files(root, files)
    terms = parse.query_tokens(words)
    with indexes.opened(str(root)) as result:
        searched = index.RecallFiles.given({row.id: row.rank for row in result.files.values()})
        every = lexical.search(result.conn, terms, searched, NOW_MS, None, clock.local_offset_ms)
        floor = share * max((item.score for item in every), default=0.0)
        pruned = lexical.search(
            result.conn, terms, searched, NOW_MS, wanted, clock.local_offset_ms, floor
        )

    def above(ranked: list[score.Ranked]) -> list[tuple[float, int]]:
        return [(item.score, item.id) for item in score.order(ranked, wanted) if item.score > floor]

    assert above(pruned) == above(every)
