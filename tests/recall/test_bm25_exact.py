"""`recall --ranking bm25` is the exhaustive BM25 answer, and its postings stay exact.

The ranking scores from the index's groups (bm25_postings); these properties compare it
with a plain scorer that tokenizes every record's text again, on random corpora of several
scripts, identifiers, ties and repeated words, and compare an index kept up to date edit by
edit with a fresh build.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support import indexes
from support.plain import plain_bm25_counts

from mem import clock
from mem.core.ranking import score
from mem.core.text import tokens
from mem.domain import recall
from mem.index import bm25, snapshots

NOW = "2026-10-18T09:30:00.000Z"
NOW_MS = 1_792_315_800_000.0
NOTES = ".agents/memory/decisions.md"
LESSONS = ".agents/memory/lessons.md"
JOURNAL = ".bmad/memory/journal.ndjson"
WORDS = [
    "the", "the", "pool", "pooling", "Pooled", "uuid-v7", "server_idle_timeout",
    "HttpServer", "src/mem/core.py", "déconnexion", "deconnexion", "冪等キー", "決済",
    "миграции", "ошибка", "canción", "12-factor", "x", "Ω", "٣", "Cache", "caches", "v7",
    "2026", "ABC", "a1B", "X", "pool—Pool", "naïve", "e\u0301t\u00e9",
]  # fmt: skip

word = st.sampled_from(WORDS)
text = st.lists(word, max_size=8).map(" ".join)
section = st.tuples(text.filter(str.strip), text).map(lambda p: f"### {p[0]}\n{p[1]}\n")
note_file = st.lists(section, max_size=10).map(lambda s: "# Notes\n" + "".join(s))
event = st.builds(
    lambda days, task: (
        json.dumps({"ts": _iso(NOW_MS + days * 86_400_000), "agent": "forge", "task": task}) + "\n"
    ),
    st.integers(min_value=-200, max_value=5),
    text,
)
corpus = st.fixed_dictionaries(
    {NOTES: note_file}, optional={LESSONS: note_file, JOURNAL: st.lists(event, max_size=12)}
)
query = st.lists(word, min_size=1, max_size=4).map(" ".join)


def _iso(ms: float) -> str:
    from mem.core.javascript import js

    return js.iso_from_ms(ms)


def _write(root: Path, files: dict[str, object]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(content) if isinstance(content, list) else str(content)
        path.write_text(body, encoding="utf-8")


def _plain(root: Path, words: str, limit: int) -> list[tuple[float, str, str]]:
    """Every record tokenized again and scored, the whole corpus: BM25 as written."""
    with indexes.opened(str(root), bm25=True) as result:
        rows = result.conn.execute(
            "SELECT r.id, f.path, r.kind, r.ref, r.text, r.ordinal, r.ts_ms, f.id"
            " FROM records AS r JOIN files AS f ON f.id = r.file_id"
        ).fetchall()
        ranks = {row.id: row.rank for row in result.files.values()}
    counted = {
        row[0]: plain_bm25_counts(row[4], row[3] if row[2] == "note" else None) for row in rows
    }
    n = len(rows)
    average = sum(sum(c.values()) for c in counted.values()) / n if n else 1.0
    terms = tokens.query_terms(words)
    ranked = []
    for record_id, path, kind, ref, _, ordinal, ts_ms, file_id in rows:
        counts = counted[record_id]
        length = sum(counts.values())
        parts = []
        for term in terms:
            df = sum(1 for c in counted.values() if term in c)
            tf = counts.get(term, 0)
            parts.append(bm25.idf(n, df) * bm25.weight(tf, length, average) if tf else 0.0)
        if not any(parts):
            continue
        value = math.fsum(parts)
        if kind == "event":
            value = score.decayed(value, ts_ms, NOW_MS)
        shown = ref if kind == "note" else kind
        ranked.append((score.Ranked(value, ranks[file_id], ordinal, record_id), path, shown))
    top = score.order([item for item, _, _ in ranked], limit)
    by_id = {item.id: (path, ref) for item, path, ref in ranked}
    return [(item.score, *by_id[item.id]) for item in top]


def _answer(root: Path, words: str, limit: int) -> list[tuple[float, str, str]]:
    # The ranking alone: likely amendments reorder what it ranks (tests/domain/test_amendments.py).
    request = recall.RecallRequest(words, limit=str(limit), ranking="bm25", amendments=False)
    return [
        (entry["score"], "", entry["ref"] if entry["kind"] == "note" else entry["kind"])
        for entry in recall.recall(str(root), request, NOW, clock.local_offset_ms).entries
    ]


SETTINGS = settings(
    max_examples=40,
    deadline=None,
    # Shrinking these corpora takes minutes; a failure prints its example unshrunk.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@SETTINGS
@given(files=corpus, words=query, limit=st.sampled_from([1, 2, 3, 8, 1000]))
def test_top_k_equals_the_exhaustive_bm25_scorer(
    scratch: Path, files: dict[str, object], words: str, limit: int
) -> None:
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, files)
    answer = _answer(root, words, limit)
    plain = _plain(root, words, limit)
    assert [ref for _, _, ref in answer] == [ref for _, _, ref in plain]
    for (got, _, _), (want, _, _) in zip(answer, plain, strict=True):
        assert got == pytest.approx(want, rel=1e-12)


@SETTINGS
@given(first=corpus, second=corpus)
def test_incremental_sync_equals_a_fresh_build(
    scratch: Path, first: dict[str, object], second: dict[str, object]
) -> None:
    root = scratch / f"project-{len(list(scratch.iterdir()))}"
    _write(root, first)
    with indexes.opened(str(root), bm25=True):
        pass
    for relative in first:
        if relative not in second:
            (root / relative).unlink()
    # Grown, edited or new: the journal only grows when its new text starts with the old.
    _write(root, second)
    for relative in second:
        os.utime(root / relative, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    with indexes.opened(str(root), bm25=True) as result:
        incremental = snapshots.snapshot(result.conn)
    os.environ["MEM_CACHE_DIR"] = str(root / "fresh-cache")
    with indexes.opened(str(root), bm25=True) as result:
        assert snapshots.snapshot(result.conn) == incremental
