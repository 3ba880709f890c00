"""`mem recall --explain`: every part of a result's score, from which the score follows exactly."""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES
from support.cli import RunMem
from support.nexus import relocated

from mem import clock
from mem.core.javascript import jsmath
from mem.core.text import parse
from mem.domain import recall

NOW = "2026-10-18T09:30:00.000Z"
WORDS = ["postgres", "redis", "pool", "cache", "deploy", "Cache", "café", "x", "a-b", "pool"]

words = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)
section = st.tuples(words, words).map(lambda parts: f"### {parts[0]}\n{parts[1]}\n")
event = st.builds(
    lambda agent, task, stamp: f'{{"ts":"{stamp}","agent":"{agent}","task":"{task}"}}\n',
    st.sampled_from(["forge", "pool"]),
    words,
    st.sampled_from(
        [
            "2026-10-01T00:00:00.000Z",
            "2026-06-30T12:00:00Z",
            "2027-01-01T00:00:00.000Z",  # future: never decayed
            "2026-10-10T10:00",  # no zone: local time, as JavaScript reads it
            "yesterday",  # unparseable: never decayed
        ]
    ),
)
notes_files = st.lists(section, max_size=6).map("".join)
queries = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
some_events = st.lists(event, min_size=1, max_size=6).map("".join)


@contextlib.contextmanager
def _project(notes: str, events: str) -> Iterator[str]:
    """A project of one notes file and one journal, in a directory of its own (hypothesis
    runs many examples in one test, so the test's tmp_path would be shared)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / ".agents/memory").mkdir(parents=True)
        (root / ".bmad/memory").mkdir(parents=True)
        (root / ".agents/memory/decisions.md").write_text(notes, encoding="utf-8")
        (root / ".bmad/memory/journal.ndjson").write_text(events, encoding="utf-8")
        yield str(root)


def folded(parts: dict[str, Any]) -> float:
    """The score redone from the parts alone, with the scorer's arithmetic."""
    hits = 0.0
    matched = 0
    for term in parts["terms"]:
        expected = jsmath.log1p_weight(term["tf"]) if term["tf"] > 0 else 0
        assert term["contribution"] == expected
        if term["tf"] > 0:
            matched += 1
            hits += term["contribution"]
    assert (hits, matched) == (parts["hits"], parts["matched"])
    assert parts["coverage"] == matched / parts["queryTerms"]
    assert parts["lexical"] == hits * parts["coverage"] / math.sqrt(parts["n"])
    if parts["ageDays"] is None:
        assert parts["decay"] == 1
    else:
        assert parts["decay"] == jsmath.pow(0.5, parts["ageDays"] / 30)
    return float(parts["lexical"] * parts["decay"] * parts["evidence"])


def check_result(entry: dict[str, Any], query: str) -> None:
    parts = entry["explain"]
    assert folded(parts) == parts["score"] == entry["score"]
    terms = parse.query_tokens(query)
    tokens = parse.tokenize(entry["text"])
    assert [term["term"] for term in parts["terms"]] == terms
    assert [term["tf"] for term in parts["terms"]] == [tokens.count(term) for term in terms]
    assert parts["n"] == len(tokens)


@settings(max_examples=60)  # the profile (tests/conftest.py) has no deadline
@given(
    notes=notes_files,
    events=st.lists(event, max_size=6).map("".join),
    query=queries,
    limit=st.integers(min_value=1, max_value=12),
)
def test_the_parts_of_every_result_give_its_score(
    notes: str, events: str, query: str, limit: int
) -> None:
    with _project(notes, events) as root:
        request = recall.RecallRequest(query=query, limit=str(limit))
        plain = recall.recall(root, request, NOW, clock.local_offset_ms).entries
        explained = recall.recall(
            root,
            recall.RecallRequest(query=query, limit=str(limit), explain=True),
            NOW,
            clock.local_offset_ms,
        ).entries
    assert [{k: v for k, v in entry.items() if k != "explain"} for entry in explained] == plain
    for entry in explained:
        check_result(entry, query)


def test_json_adds_an_explain_key_and_nothing_else(project: Path, run_mem: RunMem) -> None:
    plain = json.loads(run_mem("recall", "postgres", "pooling", "--json", cwd=project).stdout)
    done = run_mem("recall", "postgres", "pooling", "--json", "--explain", cwd=project)
    assert done.returncode == 0, done.stderr
    explained = json.loads(done.stdout)
    assert [entry.pop("explain") for entry in explained["results"]]
    assert explained == plain
    assert "explain" not in json.dumps(plain)


def test_text_shows_the_parts_as_indented_lines(project: Path, run_mem: RunMem) -> None:
    done = run_mem("recall", "postgres", "pooling", "--explain", "--limit", "2", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        'mem recall: 2 match(es) for "postgres pooling" (scope: project)',
        "  1. [1.071] note decisions.md § 2026-06-02 — Postgres connection pooling",
        "     2026-06-02 — Postgres connection pooling - **Decision**: use pgbouncer pooling"
        " for postgres",
        "       score 1.0708403008923584 = lexical 1.0708403008923584 × decay 1 × evidence 1",
        "       lexical = hits 3.386294361119891 × coverage 1 (2/2) / √n (n 10)",
        "       postgres: tf 2, +1.6931471805599454",
        "       pooling: tf 2, +1.6931471805599454",
        "  2. [0.374] event journal.ndjson#5367648f4864",
        "     forge claude-code claude refactor postgres connection pooling success"
        ' {"evalScore":0.9,"acceptance":true,"ci":"pass"}',
        "       score 0.3739792527210278 = lexical 0.5547001962252291 × decay 0.6742006858226857"
        " × evidence 1",
        "       lexical = hits 2 × coverage 1 (2/2) / √n (n 13)",
        "       postgres: tf 1, +1",
        "       pooling: tf 1, +1",
        "       decay = 0.5 ^ (ageDays 17.0625 / 30)",
    ]
    plain = run_mem("recall", "postgres", "pooling", "--limit", "2", cwd=project).stdout
    assert [line for line in done.stdout.splitlines() if not line.startswith("       ")] == (
        plain.splitlines()
    )


def test_evidence_ranking_shows_its_factor(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("h-observed-current", tmp_path)
    heading = next(
        line[4:]
        for line in (project / ".agents/memory/lessons.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("### ")
    )
    done = run_mem(
        "recall",
        heading,
        "--json",
        "--explain",
        "--ranking",
        "evidence",
        "--context-scope",
        "work",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    boosted = [entry for entry in results if entry["evidence"]["status"] == "accepted-current"]
    assert boosted
    for entry in results:
        check_result(entry, heading)
        factor = entry["explain"]["evidence"]
        assert factor == (1.25 if entry in boosted else 1)
    for entry in boosted:
        assert entry["lexicalScore"] == entry["explain"]["lexical"] * entry["explain"]["decay"]


def test_portfolio_results_are_explained_from_their_own_index(
    tmp_path: Path, run_mem: RunMem
) -> None:
    shutil.copytree(FIXTURES / "golden/11-recall-portfolio/project", tmp_path / "p")
    done = run_mem(
        "recall",
        "hetzner",
        "firewall",
        "-d",
        "app",
        "--scope",
        "portfolio",
        "--portfolio",
        "brain",
        "--json",
        "--explain",
        cwd=tmp_path / "p",
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert {entry["sourceFile"].split("/")[0] for entry in results} == {".agents", ".."}
    for entry in results:
        check_result(entry, "hetzner firewall")


@settings(max_examples=40)
@given(notes=notes_files, events=some_events, query=queries)
def test_a_bm25_explanation_gives_the_ranked_score_to_the_bit(
    notes: str, events: str, query: str
) -> None:
    with _project(notes, events) as root:
        request = recall.RecallRequest(query, ranking="bm25", amendments=False, explain=True)
        explained = recall.recall(root, request, NOW, clock.local_offset_ms).entries
    for entry in explained:
        parts = entry["explain"]
        assert parts["score"] == parts["bm25"] * parts["decay"] == entry["score"]
        assert parts["bm25"] == math.fsum(term["weight"] for term in parts["terms"])
