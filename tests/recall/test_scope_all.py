"""`recall --scope all` is the merge of every project's own recall, in the documented order."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.indexes import cache_at
from support.portfolios import NOW, audited_portfolio, event, register
from support.trees import write

from mem import clock
from mem.cli import app
from mem.domain import recall
from mem.errors import MemError

WORDS = ["postgres", "pooling", "cache", "retry", "the", "pgbouncer"]
NOTE_FILES = [
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".agents/memory/decisions.md",
    ".agents/memory/patterns.md",
]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
note = st.tuples(st.sampled_from(NOTE_FILES), text, text)
journal_event = st.tuples(st.integers(1, 28), st.sampled_from(["forge", "scout"]), text)
project = st.tuples(st.lists(note, max_size=6), st.lists(journal_event, max_size=4))


def build(base: Path, projects: list[Any], brain_notes: list[tuple[str, str]]) -> Path:
    brain = base / "_brain"
    notes = "".join(f"### {heading}\n{body}\n" for heading, body in brain_notes)
    write(brain / "lessons.md", "# Lessons\n" + notes)
    for number, (notes_of, events) in enumerate(projects):
        root = base / f"p{number}"
        by_file: dict[str, str] = {}
        for file, heading, body in notes_of:
            by_file[file] = by_file.get(file, "# Notes\n") + f"### {heading}\n{body}\n"
        for file, content in by_file.items():
            write(root / file, content)
        lines = [
            event(f"2026-10-{day:02d}T08:00:00.000Z", agent, task) for day, agent, task in events
        ]
        write(root / ".bmad/memory/journal.ndjson", "".join(lines))
        # Names run against the path order, so the merge visibly orders by path.
        register(brain, root, name=f"z{len(projects) - number}")
    return brain


def own_recalls(base: Path, brain: Path, count: int, query: str) -> list[dict[str, Any]]:
    """Every project's own recall, and the brain's notes as a portfolio recall returns them."""
    merged = []
    for number in range(count):
        root = str((base / f"p{number}").resolve())
        entries = recall.recall(
            root, recall.RecallRequest(query, limit="1000"), NOW, clock.local_offset_ms
        ).entries
        merged += [(entry, root, position) for position, entry in enumerate(entries)]
    empty = base / "empty"
    empty.mkdir(exist_ok=True)
    request = recall.RecallRequest(query, scope="portfolio", portfolio=str(brain), limit="1000")
    entries = recall.recall(str(empty.resolve()), request, NOW, clock.local_offset_ms).entries
    merged += [(entry, str(brain.resolve()), position) for position, entry in enumerate(entries)]
    merged.sort(key=lambda item: (-item[0]["score"], item[1], item[2]))
    return [{**shape(entry), "project": root} for entry, root, _ in merged]


def shape(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in ("score", "kind", "source", "ref", "text")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(project, min_size=1, max_size=4),
    st.lists(st.tuples(text, text), max_size=3),
    text,
    st.integers(1, 30),
)
def test_scope_all_is_the_merge_of_every_projects_own_recall(
    projects: list[Any], brain_notes: list[tuple[str, str]], query: str, limit: int
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="mem-all-"))
    try:
        with cache_at(str(scratch / "cache")):
            brain = build(scratch, projects, brain_notes)
            expected = own_recalls(scratch, brain, len(projects), query)[:limit]
            request = recall.RecallRequest(
                query, scope="all", portfolio=str(brain), limit=str(limit)
            )
            answer = recall.recall(str(scratch / "p0"), request, NOW, clock.local_offset_ms)
        got = [{**shape(entry), "project": entry["project"]} for entry in answer.entries]
        assert got == expected  # floats compare exactly: scores to the bit
        assert answer.skipped == []
        for entry in answer.entries:
            assert entry["projectName"] == (
                "_brain"
                if entry["project"].endswith("_brain")
                else f"z{len(projects) - int(Path(entry['project']).name[1:])}"
            )
    finally:
        shutil.rmtree(scratch)


@pytest.fixture
def portfolio(tmp_path: Path) -> tuple[Path, list[Path]]:
    return audited_portfolio(tmp_path)


def run(*args: str) -> Any:
    return CliRunner(catch_exceptions=False).invoke(app.cli, list(args))


def test_text_names_the_project_before_the_source(portfolio: tuple[Path, list[Path]]) -> None:
    brain, roots = portfolio
    done = run(
        "recall", "pgbouncer", "--scope", "all", "--portfolio", str(brain), "-d", str(roots[0])
    )
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == 'mem recall: 7 match(es) for "pgbouncer" (scope: all)'
    assert "note _brain: lessons.md § Brain pooling" in lines[1]
    assert [line.split("] ", 1)[1] for line in lines[3::2]] == [
        "note project-0: lessons.md § Pool connections",
        "note project-1: lessons.md § Pool connections",
        "note project-2: lessons.md § Pool connections",
        "event project-0: journal.ndjson#" + lines[9].split("#", 1)[1],
        "event project-1: journal.ndjson#" + lines[11].split("#", 1)[1],
        "event project-2: journal.ndjson#" + lines[13].split("#", 1)[1],
    ]


def test_json_names_project_and_narrows(portfolio: tuple[Path, list[Path]]) -> None:
    brain, roots = portfolio
    done = run(
        "recall",
        "pgbouncer",
        "--scope",
        "all",
        "--portfolio",
        str(brain),
        "--project",
        "project-1",
        "--project",
        str(roots[2].resolve()),
        "--json",
    )
    result = json.loads(done.stdout)
    assert {entry["projectName"] for entry in result["results"]} == {"project-1", "project-2"}
    assert {entry["project"] for entry in result["results"]} == {
        str(roots[1].resolve()),
        str(roots[2].resolve()),
    }
    assert result["scope"] == "all" and result["skipped"] == []


def test_unknown_project_name_lists_the_known_ones(portfolio: tuple[Path, list[Path]]) -> None:
    brain, _ = portfolio
    done = run("recall", "x", "--scope", "all", "--portfolio", str(brain), "--project", "nope")
    assert done.exit_code == 1
    assert done.stderr == (
        'mem recall: --project "nope" names no registered project'
        " (known: _brain, project-0, project-1, project-2)\n"
    )


def test_a_vanished_project_is_reported_and_skipped(portfolio: tuple[Path, list[Path]]) -> None:
    brain, roots = portfolio
    shutil.rmtree(roots[1])
    done = run("recall", "pgbouncer", "--scope", "all", "--portfolio", str(brain))
    assert done.exit_code == 0
    assert "project-1" not in done.stdout
    assert done.stderr == (
        f"mem recall: warning: skipped project-1 ({roots[1].resolve()}): not found\n"
    )
    result = json.loads(
        run("recall", "pgbouncer", "--scope", "all", "--portfolio", str(brain), "--json").stdout
    )
    assert result["skipped"] == [
        {"project": str(roots[1].resolve()), "projectName": "project-1", "reason": "not found"}
    ]


def test_retired_notes_are_left_out_unless_asked_for(portfolio: tuple[Path, list[Path]]) -> None:
    brain, _ = portfolio
    plain = json.loads(
        run("recall", "cache", "--scope", "all", "--portfolio", str(brain), "--json").stdout
    )
    assert plain["results"] == []
    listed = run(
        "recall",
        "old cache",
        "--scope",
        "all",
        "--portfolio",
        str(brain),
        "--include-retired",
        "--json",
    )
    results = json.loads(listed.stdout)["results"]
    assert [(entry["projectName"], entry["status"]) for entry in results] == [
        ("project-0", "retracted"),
        ("project-1", "retracted"),
        ("project-2", "retracted"),
    ]
    text = run(
        "recall", "old cache", "--scope", "all", "--portfolio", str(brain), "--include-retired"
    )
    assert "note project-0: lessons.md § Old cache [retracted]" in text.stdout


def test_scope_all_needs_a_brain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "lonely").mkdir()
    with pytest.raises(MemError, match="No brain is linked or detected"):
        recall.recall(
            str(tmp_path / "lonely"),
            recall.RecallRequest("x", scope="all"),
            NOW,
            clock.local_offset_ms,
        )


def test_evidence_ranking_stays_project_local(portfolio: tuple[Path, list[Path]]) -> None:
    brain, _ = portfolio
    done = run("recall", "x", "--scope", "all", "--ranking", "evidence", "--portfolio", str(brain))
    assert done.exit_code == 1
    assert "Evidence ranking supports project-local lexical recall only." in done.stderr


def test_with_evidence_annotates_each_projects_notes(portfolio: tuple[Path, list[Path]]) -> None:
    brain, _ = portfolio
    done = run(
        "recall",
        "pgbouncer",
        "--scope",
        "all",
        "--portfolio",
        str(brain),
        "--with-evidence",
        "--json",
    )
    results = json.loads(done.stdout)["results"]
    notes = [entry for entry in results if entry["kind"] == "note"]
    assert [(entry["projectName"], "memory" in entry) for entry in notes] == [
        ("_brain", False),
        ("project-0", True),
        ("project-1", True),
        ("project-2", True),
    ]
    assert {entry["memory"]["status"] for entry in notes[1:]} == {"active"}


@pytest.mark.parametrize("include_retired", [False, True])
@pytest.mark.parametrize("query", ["old cache", "pgbouncer", "drop it review"])
def test_retired_notes_merge_as_each_project_recalls_them(
    portfolio: tuple[Path, list[Path]], query: str, include_retired: bool
) -> None:
    brain, roots = portfolio
    expected = []
    for root in sorted(str(path.resolve()) for path in roots):
        request = recall.RecallRequest(query, limit="1000", include_retired=include_retired)
        expected += [
            (entry["score"], root, position, entry)
            for position, entry in enumerate(
                recall.recall(root, request, NOW, clock.local_offset_ms).entries
            )
        ]
    expected.sort(key=lambda item: (-item[0], item[1], item[2]))
    request = recall.RecallRequest(
        query, scope="all", portfolio=str(brain), limit="1000", include_retired=include_retired
    )
    got = recall.recall(str(roots[0]), request, NOW, clock.local_offset_ms).entries
    got = [entry for entry in got if entry["projectName"] != "_brain"]
    assert [
        {key: value for key, value in entry.items() if key not in ("project", "projectName")}
        for entry in got
    ] == [entry for _, _, _, entry in expected]


@pytest.mark.parametrize("ranking", ["lexical", "bm25"])
def test_explain_over_the_portfolio_says_the_score_it_ranked(
    portfolio: tuple[Path, list[Path]], ranking: str
) -> None:
    """`--scope all --explain`: each explanation sums to the score the entry ranked by; a
    lexical one is, part for part, its own project's recall --explain (bm25 weighs terms
    over the whole portfolio)."""
    brain, roots = portfolio
    query = "pgbouncer pooling"
    request = recall.RecallRequest(
        query, scope="all", portfolio=str(brain), ranking=ranking, explain=True
    )
    merged = recall.recall(str(roots[0]), request, NOW, clock.local_offset_ms).entries
    assert len(merged) >= 4
    assert [entry["explain"]["score"] for entry in merged] == [entry["score"] for entry in merged]
    if ranking == "bm25":
        return
    own = {}
    for root in roots:
        mine = recall.RecallRequest(query, explain=True, limit="1000")
        for entry in recall.recall(str(root.resolve()), mine, NOW, clock.local_offset_ms).entries:
            own[(str(root.resolve()), entry["ref"])] = entry["explain"]
    for entry in merged:
        if entry["projectName"] != "_brain":
            assert entry["explain"] == own[(entry["project"], entry["ref"])]
