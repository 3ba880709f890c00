"""Bad input gets one clear refusal and writes nothing; odd but valid input gets an exact answer.

Deviation D9 (NaN signals), D12 (a pattern id that names no section), an empty
`--context-scope`, JSON nested too deeply (in a store line or an input file) and queries of
any length.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import RunMem
from support.plain import comparable, plain_recall

from mem import clock
from mem.domain import recall

NOW = "2026-10-18T09:30:00.000Z"
JOURNAL = Path(".bmad/memory/journal.ndjson")
SCORES = Path(".bmad/memory/pattern-scores.json")
EVAL = '--eval must be a number, got "abc"'
ACCEPT = '--accept must be true, false, yes, no or a number, got "maybe"'
CI = '--ci must be pass, fail or a number, got "PASS"'


# ---- D9: signals that JavaScript's Number() reads as NaN


@pytest.mark.parametrize(
    ("signal", "message"),
    [(("--eval", "abc"), EVAL), (("--accept", "maybe"), ACCEPT), (("--ci", "PASS"), CI)],
)
def test_a_nan_signal_is_refused_and_nothing_is_written(
    project: Path, run_mem: RunMem, signal: tuple[str, str], message: str
) -> None:
    journal = (project / JOURNAL).read_bytes()
    done = run_mem("write", "--agent", "forge", "--task", "t", *signal, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"mem write: {message}\n")
    done = run_mem("write", "--agent", "forge", *signal, "--json", cwd=project)
    error_line = json.dumps({"error": message}, separators=(",", ":")) + "\n"
    assert (done.returncode, done.stdout) == (1, error_line)
    done = run_mem("reinforce", "--pattern", "chromadb batch ingestion", *signal, cwd=project)
    assert (done.returncode, done.stderr) == (1, f"mem reinforce: {message}\n")
    assert (project / JOURNAL).read_bytes() == journal
    assert not (project / SCORES).exists()
    assert not (project / ".bmad/memory/writer.lock").exists()


def test_every_other_signal_keeps_the_reference_meaning(project: Path, run_mem: RunMem) -> None:
    done = run_mem(
        "write",
        "--agent",
        "forge",
        "--eval",
        "",
        "--accept",
        "NO",
        "--ci",
        "0x10",
        "--json",
        cwd=project,
    )
    assert json.loads(done.stdout)["written"]["signals"] == {
        "evalScore": 0,
        "acceptance": False,
        "ci": 16,
    }
    done = run_mem("write", "--agent", "forge", "--eval", "Infinity", "--json", cwd=project)
    assert done.returncode == 0 and '"evalScore":null' in (project / JOURNAL).read_text()


# ---- D12: a reinforced pattern id that names no section


def test_a_pattern_without_a_section_is_recorded_with_a_warning(
    project: Path, run_mem: RunMem
) -> None:
    done = run_mem("reinforce", "--pattern", "ChromaDB batch ingestin", "--ci", "pass", cwd=project)
    assert done.returncode == 0
    assert done.stderr == (
        'mem reinforce: warning: no "### ChromaDB batch ingestin" section in patterns.md'
        ' (did you mean "chromadb batch ingestion"?)\n'
    )
    assert "ChromaDB batch ingestin" in json.loads((project / SCORES).read_text())
    done = run_mem("reinforce", "--pattern", "zzz", "--ci", "pass", "--json", cwd=project)
    assert done.stderr == 'mem reinforce: warning: no "### zzz" section in patterns.md\n'
    assert json.loads(done.stdout)["patternId"] == "zzz"
    done = run_mem(
        "reinforce", "--pattern", "chromadb batch ingestion", "--ci", "pass", cwd=project
    )
    assert (done.returncode, done.stderr) == (0, "")


# ---- evidence ranking with an empty --context-scope


def test_an_empty_context_scope_is_no_scope(project: Path, run_mem: RunMem) -> None:
    evidence = ("recall", "postgres", "--ranking", "evidence")
    without = run_mem(*evidence, cwd=project)
    empty = run_mem(*evidence, "--context-scope", "", cwd=project)
    assert (empty.returncode, empty.stdout, empty.stderr) == (
        without.returncode,
        without.stdout,
        without.stderr,
    )
    assert empty.stderr == "mem recall: An explicit non-empty project scope is required.\n"
    comma = run_mem(*evidence, "--context-scope", ",", cwd=project)
    assert comma.stderr == "mem recall: Outcome scope must be a normalized relative path.\n"


# ---- JSON nested too deeply


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("levels", [101, 500, 100_000])
def test_a_deeply_nested_store_line_is_a_corrupt_line_for_every_reader(
    project: Path, run_mem: RunMem, levels: int
) -> None:
    memory = project / ".bmad/memory"
    line = '{"ts":"2026-10-01T00:00:00.000Z","agent":"x","signals":' + deep(levels) + "}\n"
    number = (memory / "journal.ndjson").read_text().count("\n") + 1
    with (memory / "journal.ndjson").open("a") as handle:
        handle.write(line)
    (memory / "promotions.ndjson").write_text(line)
    for args in (
        ("recall", "postgres"),
        ("recall", "postgres", "--ranking", "evidence", "--context-scope", "src"),
        ("patterns",),
        ("outcomes",),
        ("audit",),
        ("context",),
        ("status",),
        ("consolidate",),
    ):
        done = run_mem(*args, cwd=project)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    check = run_mem("index", "check", cwd=project)
    assert check.returncode == 0
    reason = "skipped by readers (JSON nested deeper than 100 levels)"
    assert f".bmad/memory/journal.ndjson:{number}: {reason}" in check.stdout


def test_a_deeply_nested_line_in_a_strict_store_stops_its_commands_clearly(
    project: Path, run_mem: RunMem
) -> None:
    memory = project / ".bmad/memory"
    (memory / "outcomes.ndjson").write_text(deep(500) + "\n")
    done = run_mem("outcomes", cwd=project)
    assert done.returncode == 1
    assert done.stderr == (
        "mem outcomes: Outcome store .bmad/memory/outcomes.ndjson line 1 is not JSON:"
        " JSON nested deeper than 100 levels\n"
    )
    (memory / "lifecycle.ndjson").write_text(deep(500) + "\n")
    lifecycle = (memory / "lifecycle.ndjson").read_bytes()
    memory_id = "mem_" + "0" * 20
    done = run_mem("retract", memory_id, "--reason", "r", cwd=project)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (memory / "lifecycle.ndjson").read_bytes() == lifecycle
    done = run_mem("context", cwd=project)
    assert done.stderr == (
        "mem context: Lifecycle store line 1 is nested deeper than 100 levels.\n"
    )
    assert run_mem("recall", "postgres", cwd=project).returncode == 0  # lexical recall goes on


def test_a_deeply_nested_input_file_is_refused_by_name(project: Path, run_mem: RunMem) -> None:
    (project / "deep.json").write_text('{"runId":' + deep(1000) + "}")
    done = run_mem("observe", "--input", "deep.json", cwd=project)
    assert (done.returncode, done.stderr) == (
        1,
        "mem observe: Observation deep.json is not valid JSON:"
        " JSON nested deeper than 100 levels\n",
    )
    assert not (project / ".bmad/memory/outcomes.ndjson").exists()
    (project / SCORES).write_text('{"p":' + deep(5000) + "}\n")
    done = run_mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project)
    assert done.stderr == (
        "mem reinforce: Pattern scores file is not valid JSON; inspect it before writing.\n"
    )


# ---- queries of any length


def test_a_ten_thousand_term_query_is_answered_exactly(project: Path, run_mem: RunMem) -> None:
    words = ["postgres", "pooling", "redis"] + [f"filler{number}" for number in range(9_997)]
    query = " ".join(words)
    done = run_mem("recall", *words, "--limit", "1000", "--json", cwd=project)
    assert done.returncode == 0, done.stderr[-500:]
    found = json.loads(done.stdout)
    expected = plain_recall(str(project), query, NOW, limit=1000)
    assert comparable(found["results"]) == comparable(expected)
    assert found["count"] == len(expected) > 0
    text = run_mem("recall", *words[:994], cwd=project)  # "Expression tree is too large" before
    assert text.returncode == 0 and text.stdout.startswith("mem recall: ")


corpus_words = ["postgres", "redis", "pool", "cache", "deploy", "queue", "x1", "y2"]
phrases = st.lists(st.sampled_from(corpus_words), max_size=8).map(" ".join)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(
    notes=st.lists(phrases, max_size=8),
    events=st.lists(st.tuples(phrases, st.integers(1, 28)), max_size=6),
    query=st.lists(st.sampled_from(corpus_words), min_size=1, max_size=12),
    limit=st.integers(1, 12),
)
def test_a_query_of_any_length_ranks_exactly_as_the_plain_scorer(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    notes: list[str],
    events: list[tuple[str, int]],
    query: list[str],
    limit: int,
) -> None:
    root = tmp_path_factory.mktemp("long")
    (root / ".agents/memory").mkdir(parents=True)
    (root / ".bmad/memory").mkdir(parents=True)
    (root / ".agents/memory/lessons.md").write_text(
        "".join(f"### note {number}\n{text}\n" for number, text in enumerate(notes))
    )
    (root / JOURNAL).write_text(
        "".join(
            json.dumps({"ts": f"2026-10-{day:02d}T00:00:00.000Z", "agent": "forge", "task": text})
            + "\n"
            for text, day in events
        )
    )
    monkeypatch.setenv("MEM_CACHE_DIR", str(root / "cache"))
    request = recall.RecallRequest(query=" ".join(query), limit=str(limit))
    found = recall.recall(str(root), request, NOW, clock.local_offset_ms).entries
    assert comparable(found) == comparable(plain_recall(str(root), " ".join(query), NOW, limit))
