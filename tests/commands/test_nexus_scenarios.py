"""Every scenario of fixtures/nexus, from a relocated copy, through the real `mem` command."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from support.cli import RunMem
from support.nexus import NEXUS, expected, relocated, store_lines

RECORDED = re.compile(
    r"mem observe: ([0-9a-f]{64}) recorded; lesson causality remains unmeasured\.\n"
)


def output(done) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    return done.stdout + done.stderr, done.returncode


def test_a_accepted_observes_once(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("a-accepted", tmp_path)
    assert output(run_mem("outcomes", cwd=project)) == expected("a-accepted", "outcomes-before.txt")
    done = run_mem("observe", "--input", "obs.json", cwd=project)
    assert done.returncode == 0 and not done.stderr
    match = RECORDED.fullmatch(done.stdout)
    assert match
    receipt_id = match.group(1)
    assert output(run_mem("outcomes", cwd=project)) == (f"{receipt_id}: accepted-current\n", 0)
    assert output(run_mem("observe", "--input", "obs.json", cwd=project)) == expected(
        "a-accepted", "observe-again.txt"
    )
    [receipt] = store_lines(project)
    assert receipt["id"] == receipt_id
    assert receipt["source"]["attemptId"] == "1695143e-b125-49d7-a6da-6c9de2b106d9"
    assert (
        receipt["source"]["verificationSha256"]
        == "758fad0d9fc33962a22f5fe357b02eefc38f8c6f50d04530d1573d3473a4911b"
    )
    assert receipt["source"]["artifactHashes"] == {
        "work/result.txt": "aa2775da389c3201edda891dfaebedc49537467cbf4e383f15e86750bf014497"
    }
    assert receipt["verification"] == {
        "status": "passed",
        "acceptance": "accepted",
        "lessonCausality": "unmeasured",
    }


@pytest.mark.parametrize("name", ["b-verification-failed", "c-verified-not-accepted"])
def test_never_accepted_work_gives_no_receipt(name: str, tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated(name, tmp_path)
    assert output(run_mem("observe", "--input", "obs.json", cwd=project)) == expected(
        name, "observe.txt"
    )
    assert output(run_mem("outcomes", cwd=project)) == expected(name, "outcomes.txt")
    assert not (project / ".bmad" / "memory" / "outcomes.ndjson").exists()


def test_b_json_error(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("b-verification-failed", tmp_path)
    done = run_mem("observe", "--input", "obs.json", "--json", cwd=project)
    assert (done.stdout, done.returncode) == expected("b-verification-failed", "observe-json.txt")
    assert not done.stderr


def test_d_edited_artifact_makes_the_receipt_ineligible(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("d-artifact-edited", tmp_path)
    before = (project / ".bmad" / "memory" / "outcomes.ndjson").read_bytes()
    assert output(run_mem("observe", "--input", "obs.json", cwd=project)) == expected(
        "d-artifact-edited", "observe.txt"
    )
    assert output(run_mem("outcomes", cwd=project)) == expected("d-artifact-edited", "outcomes.txt")
    assert output(run_mem("outcomes", "--json", cwd=project)) == expected(
        "d-artifact-edited", "outcomes-json.txt"
    )
    assert (project / ".bmad" / "memory" / "outcomes.ndjson").read_bytes() == before


def test_e_dependency_chain(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("e-dependency-chain", tmp_path)
    for observation, recorded in [
        ("obs.json", "observe.txt"),
        ("obs-t1.json", "observe-t1.txt"),
        ("obs-t3.json", "observe-t3.txt"),
    ]:
        done = run_mem("observe", "--input", observation, cwd=project)
        assert output(done) == expected("e-dependency-chain", recorded)
    assert output(run_mem("outcomes", cwd=project)) == expected(
        "e-dependency-chain", "outcomes.txt"
    )


def test_e_restoring_the_dependency_restores_eligibility(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("e-dependency-chain", tmp_path)
    (project / "work" / "t1" / "result.txt").write_text("from t1\nverified: true\n")
    [line] = run_mem("outcomes", cwd=project).stdout.splitlines()
    assert line.endswith(": accepted-current")


def test_f_writer_lock(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("f-writer-lock", tmp_path)
    assert output(run_mem("observe", "--input", "obs.json", cwd=project)) == expected(
        "f-writer-lock", "observe.txt"
    )
    assert output(run_mem("outcomes", cwd=project)) == expected("f-writer-lock", "outcomes.txt")
    (project / ".bmad-plus" / "nexus" / "writer.lock").unlink()
    [line] = run_mem("outcomes", cwd=project).stdout.splitlines()
    assert line.endswith(": accepted-current")
    done = run_mem("observe", "--input", "obs.json", cwd=project)
    assert done.stderr.startswith("mem observe: Duplicate outcome:")


def test_g_rerun_makes_an_old_receipt_stale(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("g-rerun-stale-source", tmp_path)
    before = expected("g-rerun-stale-source", "outcomes-before.txt")
    assert output(run_mem("outcomes", cwd=project)) == before
    done = run_mem("observe", "--input", "obs.json", cwd=project)
    match = RECORDED.fullmatch(done.stdout)
    assert match and done.returncode == 0
    assert output(run_mem("outcomes", cwd=project)) == (
        before[0] + f"{match.group(1)}: accepted-current\n",
        0,
    )


def test_h_observed_current(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("h-observed-current", tmp_path)
    assert output(run_mem("outcomes", cwd=project)) == expected(
        "h-observed-current", "outcomes.txt"
    )
    assert output(run_mem("outcomes", "--json", cwd=project)) == expected(
        "h-observed-current", "outcomes-json.txt"
    )
    assert output(run_mem("observe", "--input", "obs.json", cwd=project)) == expected(
        "h-observed-current", "observe-again.txt"
    )


def test_h_receipt_is_byte_identical_to_the_reference(tmp_path: Path, run_mem: RunMem) -> None:
    """Re-observing at the recorded instant writes exactly the reference's line."""
    project = relocated("h-observed-current", tmp_path)
    store = project / ".bmad" / "memory" / "outcomes.ndjson"
    recorded = store.read_bytes()
    [receipt] = store_lines(project)
    store.unlink()
    done = run_mem("observe", "--input", "obs.json", cwd=project, env={"MEM_NOW": receipt["ts"]})
    assert (
        done.stdout
        == f"mem observe: {receipt['id']} recorded; lesson causality remains unmeasured.\n"
    )
    assert store.read_bytes() == recorded


def test_full_relocation_keeps_receipts_current(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("h-observed-current", tmp_path, mode="full")
    [line] = run_mem("outcomes", cwd=project).stdout.splitlines()
    assert line == f"{store_lines(project)[0]['id']}: accepted-current"


def test_an_unrelocated_copy_is_foreign(tmp_path: Path, run_mem: RunMem) -> None:
    project = Path(os.path.realpath(tmp_path)) / "copy"
    shutil.copytree(NEXUS / "h-observed-current" / "project", project, symlinks=True)
    [line] = run_mem("outcomes", cwd=project).stdout.splitlines()
    assert line.endswith(
        ": unavailable-or-ineligible-source: "
        "Nexus: Corrupt or foreign run state; original bytes were preserved."
    )
    done = run_mem("observe", "--input", "obs.json", cwd=project)
    assert done.returncode == 1


def test_json_flow_through_the_cli(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("a-accepted", tmp_path)
    done = run_mem("observe", "--input", "obs.json", "--directory", str(project), "--json")
    assert done.returncode == 0
    receipt_id = json.loads(done.stdout)["written"]["id"]
    listed = json.loads(run_mem("outcomes", "--json", "-d", str(project)).stdout)
    assert [(r["id"], r["eligible"], r["reason"]) for r in listed["results"]] == [
        (receipt_id, True, None)
    ]
    recalled = run_mem(
        "recall",
        "verified",
        "artifacts",
        "--ranking",
        "evidence",
        "--context-scope",
        "work",
        "--json",
        cwd=project,
    )
    top = json.loads(recalled.stdout)["results"][0]
    assert (top["ref"], top["evidence"]["receiptIds"]) == ("Verified artifacts only", [receipt_id])
    again = run_mem("observe", "--input", "obs.json", "-d", str(project), "--json")
    assert again.returncode == 1
    assert "Duplicate" in json.loads(again.stdout)["error"]
