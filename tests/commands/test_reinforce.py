"""`mem reinforce` and `mem patterns` through the real console script."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
from support.cli import RunMem, answers, runs_in_one_process

SCORES = Path(".bmad/memory/pattern-scores.json")
PROMOTIONS = Path(".bmad/memory/promotions.ndjson")
T0 = "2026-07-01T10:00:00.000Z"
T1 = "2026-07-01T11:00:00.000Z"
T2 = "2026-07-01T12:00:00.000Z"
POSITIVE = ("--eval", "1", "--accept", "true", "--ci", "pass")


def reinforce_json(run_mem: RunMem, project: Path, *args: str, now: str = T0) -> dict:
    done = run_mem("reinforce", *args, "--json", cwd=project, env={"MEM_NOW": now})
    assert done.returncode == 0, done.stderr
    assert without_section_warning(done.stderr) == ""
    return json.loads(done.stdout)


def without_section_warning(stderr: str) -> str:
    """stderr without deviation D12's warning for a pattern id that names no section."""
    return re.sub(r'mem reinforce: warning: no "### .*" section in patterns\.md.*\n', "", stderr)


def promotions(project: Path) -> list[dict]:
    path = project / PROMOTIONS
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_fresh_full_positive_reinforce_is_persisted(run_mem: RunMem, project: Path) -> None:
    result = reinforce_json(run_mem, project, "--pattern", "p", *POSITIVE)
    assert result["reward"] == 1 and result["previous"] is None
    assert result["next"] == {
        "elo": 1216,
        "alpha": 2,
        "beta": 1,
        "mean": 2 / 3,
        "updates": 1,
        "lastTs": T0,
    }
    assert (result["evidenceStatus"], result["rankingEligible"]) == ("self-reported", False)
    assert json.loads((project / SCORES).read_text()) == {"p": result["next"]}


def test_a_second_call_starts_from_the_stored_score(run_mem: RunMem, project: Path) -> None:
    first = reinforce_json(run_mem, project, "--pattern", "p", *POSITIVE)
    second = reinforce_json(run_mem, project, "--pattern", "p", *POSITIVE, now=T1)
    assert second["previous"] == first["next"]
    assert second["next"]["updates"] == 2
    assert second["next"]["elo"] > first["next"]["elo"]


def test_a_single_ci_pass_proposes_nothing(run_mem: RunMem, project: Path) -> None:
    done = run_mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project)
    assert done.returncode == 0
    assert "promotion: none proposed" in done.stdout
    assert not (project / PROMOTIONS).exists()


def test_three_positive_calls_propose_and_never_approve(run_mem: RunMem, project: Path) -> None:
    for now in (T0, T1, T2):
        result = reinforce_json(
            run_mem, project, "--pattern", "p", *POSITIVE, "--evidence", "ev1,ev2", now=now
        )
    assert result["next"]["updates"] == 3 and result["next"]["mean"] >= 0.7
    promotion = result["promotion"]
    assert promotion["status"] == "PROPOSED" and promotion["governedBy"] == "shield"
    assert promotion["approvedBy"] is None and promotion["evidence"] == ["ev1", "ev2"]
    assert promotions(project) == [promotion]


def test_a_scores_file_that_is_not_an_object_is_refused(run_mem: RunMem, project: Path) -> None:
    (project / SCORES).write_text("[]\n")
    done = run_mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project)
    assert done.returncode == 1
    assert done.stderr == (
        "mem reinforce: Pattern scores file is not a JSON object; inspect it before writing.\n"
    )
    assert (project / SCORES).read_text() == "[]\n"
    assert not (project / ".bmad/memory/writer.lock").exists()


def test_an_unreadable_entry_is_refused_and_others_are_kept(run_mem: RunMem, project: Path) -> None:
    original = '{"bad": {"elo": "1250"}, "other": {"note": "kept as is"}}'
    (project / SCORES).write_text(original)
    done = run_mem("reinforce", "--pattern", "bad", "--ci", "pass", "--json", cwd=project)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "error": 'Pattern scores entry "bad" is not a valid score; inspect it before writing.'
    }
    assert (project / SCORES).read_text() == original
    reinforce_json(run_mem, project, "--pattern", "new", "--ci", "pass")
    stored = json.loads((project / SCORES).read_text())
    assert list(stored) == ["bad", "other", "new"]
    assert stored["other"] == {"note": "kept as is"}


def test_a_torn_promotions_store_refuses_before_writing_scores(
    run_mem: RunMem, project: Path
) -> None:
    for now in (T0, T1):
        reinforce_json(run_mem, project, "--pattern", "p", *POSITIVE, now=now)
    (project / PROMOTIONS).write_text('{"id":"torn"')
    scores_before = (project / SCORES).read_bytes()
    done = run_mem("reinforce", "--pattern", "p", *POSITIVE, cwd=project, env={"MEM_NOW": T2})
    assert done.returncode == 1
    assert done.stderr == (
        "mem reinforce: Memory store has an incomplete final line; inspect it before writing.\n"
    )
    assert (project / SCORES).read_bytes() == scores_before
    assert (project / PROMOTIONS).read_text() == '{"id":"torn"'


def test_a_symlinked_scores_file_is_never_written_through(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n")
    (project / SCORES).symlink_to(outside)
    done = run_mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project)
    assert done.returncode == 1
    assert done.stderr == "mem reinforce: Memory paths cannot follow symbolic links or junctions.\n"
    assert outside.read_text() == "{}\n"
    assert not list((project / ".bmad/memory").glob("*.tmp"))


def test_numeric_pattern_ids_are_stored_in_javascript_key_order(
    run_mem: RunMem, project: Path
) -> None:
    for pattern_id in ("zeta", "2026", "10", "007"):
        reinforce_json(run_mem, project, "--pattern", pattern_id, "--ci", "pass")
    text = (project / SCORES).read_text()
    keys = [line.split('"')[1] for line in text.splitlines() if line.startswith('  "')]
    assert keys == ["10", "2026", "zeta", "007"]


def test_patterns_lists_best_first(run_mem: RunMem, project: Path) -> None:
    for now in (T0, T1, T2):
        reinforce_json(
            run_mem, project, "--pattern", "chromadb batch ingestion", *POSITIVE, now=now
        )
    reinforce_json(run_mem, project, "--pattern", "flaky", "--ci", "fail")
    reinforce_json(run_mem, project, "--pattern", "steady", "--ci", "pass")
    done = run_mem("patterns", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "mem patterns: 3 scored pattern(s), best first\n"
        '  1. "chromadb batch ingestion" mean 0.798 elo 1245.8 (alpha=3.94, beta=1.00, updates=3)\n'
        "     last 2026-07-01T12:00:00.000Z  in patterns.md: yes  promotion: PROPOSED\n"
        '  2. "steady" mean 0.667 elo 1216.0 (alpha=2.00, beta=1.00, updates=1)\n'
        "     last 2026-07-01T10:00:00.000Z  in patterns.md: no  promotion: -\n"
        '  3. "flaky" mean 0.333 elo 1184.0 (alpha=1.00, beta=2.00, updates=1)\n'
        "     last 2026-07-01T10:00:00.000Z  in patterns.md: no  promotion: -\n"
    )
    listed = json.loads(run_mem("patterns", "--json", cwd=project).stdout)
    assert listed["count"] == 3
    assert list(listed["patterns"][0]) == [
        "patternId",
        "elo",
        "alpha",
        "beta",
        "mean",
        "updates",
        "lastTs",
        "inPatternsMd",
        "promotionStatus",
    ]
    assert [entry["patternId"] for entry in listed["patterns"]] == [
        "chromadb batch ingestion",
        "steady",
        "flaky",
    ]


def test_patterns_shows_the_newest_promotion_status(run_mem: RunMem, project: Path) -> None:
    reinforce_json(run_mem, project, "--pattern", "p", "--ci", "pass")
    with (project / PROMOTIONS).open("a") as store:
        store.write('{"id":"a","patternId":"p","status":"PROPOSED"}\n')
        store.write('{"id":"b","patternId":"p","status":"APPLIED","approvedBy":"ana"}\n')
    listed = json.loads(run_mem("patterns", "--json", "-d", str(project)).stdout)
    assert listed["patterns"][0]["promotionStatus"] == "APPLIED"


def test_patterns_on_a_project_without_scores(run_mem: RunMem, project: Path) -> None:
    assert run_mem("patterns", cwd=project).stdout == "mem patterns: no scored patterns\n"
    assert json.loads(run_mem("patterns", "--json", cwd=project).stdout) == {
        "count": 0,
        "patterns": [],
    }


def test_patterns_refuses_a_corrupt_scores_file(run_mem: RunMem, project: Path) -> None:
    (project / SCORES).write_text("{not json!!")
    done = run_mem("patterns", cwd=project)
    assert done.returncode == 1
    assert (
        done.stderr
        == "mem patterns: Pattern scores file is not valid JSON; inspect it before writing.\n"
    )
    done = run_mem("patterns", "--json", cwd=project)
    assert (done.returncode, done.stdout) == (
        1,
        '{"error":"Pattern scores file is not valid JSON; inspect it before writing."}\n',
    )


def _index(run_mem: RunMem, project: Path) -> sqlite3.Connection:
    done = run_mem("index", "path", cwd=project)
    assert done.returncode == 0, done.stderr
    return sqlite3.connect(done.stdout.strip())


def test_scores_and_promotions_are_index_tables(run_mem: RunMem, project: Path) -> None:
    for now in (T0, T1, T2):
        reinforce_json(run_mem, project, "--pattern", "p", *POSITIVE, "--evidence", "ev1", now=now)
    reinforce_json(run_mem, project, "--pattern", "q", "--ci", "fail")
    conn = _index(run_mem, project)
    rows = conn.execute(
        "SELECT pattern_id, updates, last_ts FROM pattern_scores ORDER BY position"
    ).fetchall()
    assert rows == [("p", 3, T2), ("q", 1, T0)]
    promoted = conn.execute("SELECT pattern_id, status, evidence FROM promotions").fetchall()
    assert promoted == [("p", "PROPOSED", '["ev1"]')]
    conn.close()
    (project / SCORES).write_text("{not json!!")  # a corrupt store empties its table, no more
    conn = _index(run_mem, project)
    assert conn.execute("SELECT count(*) FROM pattern_scores").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM promotions").fetchone() == (1,)
    conn.close()


def test_stores_for_audits_do_not_change_recall(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    before = run_mem(
        "recall", "chromadb", "--ranking", "evidence", "--context-scope", "work", cwd=project
    )
    assert before.returncode == 0, before.stderr
    outside = tmp_path / "scores.json"
    outside.write_bytes(b"\xff chromadb")
    (project / SCORES).symlink_to(outside)
    after = run_mem(
        "recall", "chromadb", "--ranking", "evidence", "--context-scope", "work", cwd=project
    )
    assert (after.returncode, after.stdout, after.stderr) == (0, before.stdout, "")


@pytest.mark.slow
def test_concurrent_reinforces_lose_nothing(project: Path) -> None:
    # Three writer processes of their own, each reinforcing five times.
    run = {"args": ["reinforce", "--pattern", "shared", "--ci", "pass"], "cwd": str(project)}
    writers = [runs_in_one_process([run] * 5) for _ in range(3)]
    outcomes = [
        (code, without_section_warning(stderr))
        for writer in writers
        for code, _, stderr in answers(writer)
    ]
    assert outcomes == [(0, "")] * 15
    stored = json.loads((project / SCORES).read_text())
    assert stored["shared"]["updates"] == 15
    assert not (project / ".bmad/memory/writer.lock").exists()
    assert not [name for name in os.listdir(project / ".bmad/memory") if name.endswith(".tmp")]
    proposed = promotions(project)
    assert len(proposed) == 13  # every call from the third on
    assert {record["status"] for record in proposed} == {"PROPOSED"}
    assert {record["approvedBy"] for record in proposed} == {None}
