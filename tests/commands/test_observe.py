"""`mem observe`: every validation of bmad-mem.md section 11, in order, with its exact message."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.cli import RunMem, mem_command
from support.nexus import (
    LOCKED,
    MISSING,
    NOT_ACCEPTED,
    clone_run,
    mutate_run,
    relocated,
    store_lines,
    synthetic_store,
    write_observation,
)

from mem.commands import observe
from mem.core.javascript import js
from mem.core.rules import receipts
from mem.domain import outcome_receipts
from mem.errors import MemError
from mem.files import nexus

NOW = "2026-10-18T09:30:00.000Z"


@pytest.fixture
def accepted(tmp_path: Path) -> Path:
    return relocated("a-accepted", tmp_path)


def refused(project: Path, message: str, **fields: Any) -> None:
    """Observing fails with exactly this message and the store is untouched."""
    store = project / ".bmad" / "memory" / "outcomes.ndjson"
    before = store.read_bytes() if store.exists() else None
    name = write_observation(project, **fields)
    with pytest.raises(MemError) as caught:
        observe.observe(str(project), name, NOW)
    assert str(caught.value) == message
    assert (store.read_bytes() if store.exists() else None) == before


def test_missing_input_option(accepted: Path, run_mem: RunMem) -> None:
    done = run_mem("observe", cwd=accepted)
    assert done.stderr == "mem observe: Memory path must be a normalized project-relative path.\n"
    assert done.returncode == 1


@pytest.mark.parametrize("path", ["./obs.json", "../obs.json", "a//b.json", "/abs.json"])
def test_input_must_be_a_normalized_project_path(accepted: Path, path: str) -> None:
    with pytest.raises(MemError) as caught:
        observe.observe(str(accepted), path, NOW)
    assert str(caught.value) in (
        "Memory path must be a normalized project-relative path.",
        "Memory path escapes project.",
    )


def test_missing_input_file_names_the_path(accepted: Path) -> None:
    with pytest.raises(MemError) as caught:
        observe.observe(str(accepted), "nope.json", NOW)
    assert str(caught.value) == f"ENOENT: no such file or directory, stat '{accepted}/nope.json'"


def test_input_must_be_json(accepted: Path) -> None:
    (accepted / "bad.json").write_text("not json")
    with pytest.raises(MemError, match="bad.json is not valid JSON"):
        observe.observe(str(accepted), "bad.json", NOW)


@pytest.mark.parametrize("text", ["5", "null", '"x"', "true"])
def test_input_must_be_an_object(accepted: Path, text: str) -> None:
    (accepted / "in.json").write_text(text)
    with pytest.raises(MemError) as caught:
        observe.observe(str(accepted), "in.json", NOW)
    assert str(caught.value) == "Outcome input is required."


def test_an_array_passes_the_object_check(accepted: Path) -> None:
    (accepted / "in.json").write_text("[]")
    with pytest.raises(MemError) as caught:
        observe.observe(str(accepted), "in.json", NOW)
    assert str(caught.value) == "Run ID must be non-empty bounded text."


@pytest.mark.parametrize("run_id", [" ", "", 5, None, MISSING, "x" * 1001])
def test_run_id_must_be_bounded_text(accepted: Path, run_id: Any) -> None:
    refused(accepted, "Run ID must be non-empty bounded text.", runId=run_id)


@pytest.mark.parametrize("task_id", [5, " ", "t" * 1001])
def test_task_id_must_be_bounded_text(accepted: Path, task_id: Any) -> None:
    refused(accepted, "Task ID must be non-empty bounded text.", taskId=task_id)


@pytest.mark.parametrize("run_id", ["One", "../x", "-a", "a" * 65])
def test_run_id_must_be_a_nexus_id(accepted: Path, run_id: str) -> None:
    refused(
        accepted, "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -.", runId=run_id
    )


def test_missing_run_file(accepted: Path) -> None:
    path = accepted / ".bmad-plus" / "nexus" / "runs" / "zzz.json"
    refused(accepted, f"ENOENT: no such file or directory, stat '{path}'", runId="zzz")


@pytest.mark.parametrize("task_id", ["nope", "TASK"])
def test_unknown_task(accepted: Path, task_id: str) -> None:
    refused(accepted, NOT_ACCEPTED, taskId=task_id)


def test_nexus_lock_file_blocks(accepted: Path) -> None:
    (accepted / ".bmad-plus" / "nexus" / "recovery.lock").write_text("")
    refused(accepted, LOCKED)


def test_duplicate_attempt(accepted: Path, run_mem: RunMem) -> None:
    assert run_mem("observe", "--input", write_observation(accepted), cwd=accepted).returncode == 0
    done = run_mem("observe", "--input", "obs.json", "--json", cwd=accepted)
    assert (
        done.stdout
        == '{"error":"Duplicate outcome: this task attempt already supplied a receipt."}\n'
    )
    assert done.returncode == 1
    assert len(store_lines(accepted)) == 1


@pytest.mark.parametrize(
    "file",
    [
        "../brain/patterns.md",
        ".agents/memory/context.md",
        ".agents/memory/lessons.MD",
        "lessons.md",
        5,
    ],
)
def test_memory_file_must_be_a_project_note_file(accepted: Path, file: Any) -> None:
    refused(
        accepted,
        "Outcome memory source must be a project decisions, lessons or patterns Markdown file.",
        memory={"file": file, "heading": "Verified artifacts only"},
    )


def test_memory_anchor_missing(accepted: Path) -> None:
    refused(
        accepted,
        "Outcome memory source must be a project decisions, lessons or patterns Markdown file.",
        memory=MISSING,
    )


@pytest.mark.parametrize("heading", ["", "   ", "h" * 301, 7])
def test_memory_heading_must_be_bounded(accepted: Path, heading: Any) -> None:
    refused(
        accepted,
        "Memory heading must be non-empty bounded text.",
        memory={"file": ".agents/memory/lessons.md", "heading": heading},
    )


@pytest.mark.parametrize(
    "heading", ["Nowhere", " Verified artifacts only", "verified artifacts only"]
)
def test_memory_heading_must_name_one_section(accepted: Path, heading: str) -> None:
    refused(
        accepted,
        "Memory heading must identify exactly one section.",
        memory={"file": ".agents/memory/lessons.md", "heading": heading},
    )


def test_duplicate_heading_is_not_exactly_one(accepted: Path) -> None:
    lessons = accepted / ".agents" / "memory" / "lessons.md"
    lessons.write_text(lessons.read_text() + "\n### Verified artifacts only\nagain\n")
    refused(accepted, "Memory heading must identify exactly one section.")


def test_missing_memory_file(accepted: Path) -> None:
    path = accepted / ".bmad" / "memory" / "lessons.md"
    refused(
        accepted,
        f"ENOENT: no such file or directory, stat '{path}'",
        memory={"file": ".bmad/memory/lessons.md", "heading": "Verified artifacts only"},
    )


@pytest.mark.parametrize("scope", [[], "work", None, MISSING, [f"work/{n}" for n in range(31)]])
def test_scope_is_required(accepted: Path, scope: Any) -> None:
    refused(accepted, "An explicit non-empty project scope is required.", scope=scope)


@pytest.mark.parametrize("item", ["../work", "./work", "/work", "work/", "a\\b", "c:work", "", 5])
def test_scope_items_must_be_normalized(accepted: Path, item: Any) -> None:
    refused(accepted, "Outcome scope must be a normalized relative path.", scope=["work", item])


@pytest.mark.parametrize("scope", [["other"], ["work", "other"], ["workshop"], ["Work"]])
def test_scope_must_lie_inside_the_task_scope(accepted: Path, scope: list[str]) -> None:
    refused(accepted, "Outcome scope exceeds the accepted task scope.", scope=scope)


def test_scope_below_the_task_scope_is_recorded_sorted_and_unique(accepted: Path) -> None:
    name = write_observation(accepted, scope=["work/sub", "work", "work/sub"])
    receipt = observe.observe(str(accepted), name, NOW)
    assert receipt["scope"] == ["work", "work/sub"]


@pytest.mark.parametrize(
    "value", ["abc", {"a": 1}, 7, True, ["x", "x"], [f"id{n}" for n in range(31)]]
)
def test_relationships_must_be_a_unique_bounded_list(accepted: Path, value: Any) -> None:
    refused(
        accepted,
        "Outcome relationships must be a unique bounded receipt-ID list.",
        supersedes=value,
    )
    refused(
        accepted,
        "Outcome relationships must be a unique bounded receipt-ID list.",
        contradicts=value,
    )


@pytest.mark.parametrize("value", [["missing"], [["x"], ["x"]], [5]])
def test_related_receipt_must_exist(accepted: Path, value: list[Any]) -> None:
    # Like JavaScript's Set, two equal-looking arrays are distinct values: unique, but unknown.
    refused(
        accepted,
        "Related outcome must exist in the same applicable project scope.",
        supersedes=value,
    )


@pytest.mark.parametrize("value", [None, False, 0, "", MISSING])
def test_falsy_relationships_mean_none(accepted: Path, value: Any) -> None:
    name = write_observation(accepted, supersedes=value, contradicts=value)
    receipt = observe.observe(str(accepted), name, NOW)
    assert (receipt["supersedes"], receipt["contradicts"]) == ([], [])


def test_related_receipt_must_share_the_scope(tmp_path: Path) -> None:
    project = relocated("e-dependency-chain", tmp_path)
    (project / "work" / "t1" / "result.txt").write_text("from t1\nverified: true\n")
    [first] = store_lines(project)  # the t2 receipt, scope work/t2
    refused(
        project,
        "Related outcome must exist in the same applicable project scope.",
        runId="chain",
        taskId="t3",
        memory={"file": ".agents/memory/lessons.md", "heading": "Chained evidence"},
        scope=["work/t3"],
        contradicts=[first["id"]],
    )


def test_a_receipt_cannot_be_both_superseded_and_contradicted(accepted: Path) -> None:
    first = observe.observe(str(accepted), write_observation(accepted), NOW)
    clone_run(accepted, "one", "two")
    refused(
        accepted,
        "A receipt cannot be both superseded and contradicted.",
        runId="two",
        supersedes=[first["id"]],
        contradicts=[first["id"]],
    )


@pytest.mark.parametrize("text", [None, MISSING, "", "  \n", 42, "i" * 2001])
def test_interpretation_must_be_bounded_text(accepted: Path, text: Any) -> None:
    refused(accepted, "Lesson interpretation must be non-empty bounded text.", interpretation=text)


def test_sources_that_change_while_observing_are_refused(
    accepted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolutions = iter(
        [{"scope": ["work"], "attemptId": "a"}, {"scope": ["work"], "attemptId": "b"}]
    )
    monkeypatch.setattr(nexus, "accepted_source", lambda *_: next(resolutions))
    refused(accepted, "Outcome sources changed while being observed.")


def test_an_edited_section_while_observing_is_refused(
    accepted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anchors = iter([{"textSha256": "a"}, {"textSha256": "b"}])
    monkeypatch.setattr(outcome_receipts, "current_anchor", lambda *_: next(anchors))
    refused(accepted, "Outcome sources changed while being observed.")


def test_the_store_takes_at_most_1000_receipts(accepted: Path) -> None:
    store = accepted / ".bmad" / "memory" / "outcomes.ndjson"
    store.parent.mkdir(parents=True)
    store.write_text(synthetic_store(1000))
    refused(accepted, "Outcome store is full; archive it explicitly.")
    assert len(store.read_text().splitlines()) == 1000


def test_999_receipts_leave_room_for_one(accepted: Path) -> None:
    store = accepted / ".bmad" / "memory" / "outcomes.ndjson"
    store.parent.mkdir(parents=True)
    store.write_text(synthetic_store(999))
    observe.observe(str(accepted), write_observation(accepted), NOW)
    assert len(store.read_text().splitlines()) == 1000
    assert outcome_receipts.inspect(str(accepted))[-1]["eligible"] is True


def test_a_damaged_store_refuses_observation(accepted: Path) -> None:
    store = accepted / ".bmad" / "memory" / "outcomes.ndjson"
    store.parent.mkdir(parents=True)
    store.write_text(synthetic_store(1).replace("synthetic", "tampered"))
    refused(accepted, "Outcome receipt integrity or uniqueness check failed.")


def test_ineligible_source_is_reported_before_the_duplicate(tmp_path: Path) -> None:
    project = relocated("d-artifact-edited", tmp_path)
    refused(project, NOT_ACCEPTED)


def test_receipt_record_layout(accepted: Path, run_mem: RunMem) -> None:
    done = run_mem("observe", "--input", write_observation(accepted), "--json", cwd=accepted)
    written = json.loads(done.stdout)["written"]
    assert list(written) == [
        "id",
        "schemaVersion",
        "kind",
        "ts",
        "memory",
        "scope",
        "source",
        "interpretation",
        "verification",
        "supersedes",
        "contradicts",
    ]
    assert list(written["source"]) == [
        "kind",
        "runId",
        "taskId",
        "attemptId",
        "verificationId",
        "verificationSha256",
        "acceptedAt",
        "artifactHashes",
        "resourceHashes",
        "scope",
        "objective",
        "baseline",
    ]
    assert written["ts"] == NOW
    body = {key: value for key, value in written.items() if key != "id"}
    assert written["id"] == receipts.receipt_id(body)
    line = (accepted / ".bmad" / "memory" / "outcomes.ndjson").read_text()
    assert line == js.stringify(written) + "\n"


def test_missing_accepted_at_is_left_out_of_the_source(accepted: Path) -> None:
    mutate_run(accepted, lambda e: e["run"]["tasks"][0].pop("acceptedAt"))
    receipt = observe.observe(str(accepted), write_observation(accepted), NOW)
    assert "acceptedAt" not in receipt["source"]


def test_two_processes_observing_one_attempt(accepted: Path) -> None:
    write_observation(accepted)
    command = [*mem_command(), "observe", "--input", "obs.json"]
    racers = [
        subprocess.Popen(
            command, cwd=accepted, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [(racer.wait(timeout=60), racer.stderr.read()) for racer in racers]  # type: ignore[union-attr]
    for racer in racers:
        racer.stdout.close()  # type: ignore[union-attr]
        racer.stderr.close()  # type: ignore[union-attr]
    assert sorted(status for status, _ in results) == [0, 1]
    [loser] = [stderr for status, stderr in results if status == 1]
    assert (
        loser == "mem observe: Duplicate outcome: this task attempt already supplied a receipt.\n"
    )
    assert len(store_lines(accepted)) == 1
    assert not (accepted / ".bmad" / "memory" / "writer.lock").exists()


def test_symlinked_memory_store_is_refused(accepted: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (accepted / ".bmad").mkdir()
    os.symlink(elsewhere, accepted / ".bmad" / "memory")
    refused(accepted, "Memory paths cannot follow symbolic links or junctions.")
    assert list(elsewhere.iterdir()) == []
