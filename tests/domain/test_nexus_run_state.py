"""The Nexus run-state reader against the reference's probe table (nexus-run-state.md §11).

Fixture h (accepted and observed, unchanged) is relocated and changed in one way each;
the answer is the status `mem outcomes` gives its receipt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.nexus import LOCKED, NOT_ACCEPTED, mutate_run, relocated, run_path

from mem.domain import outcome_receipts

UNAVAILABLE = "unavailable-or-ineligible-source: "
FOREIGN = "Nexus: Corrupt or foreign run state; original bytes were preserved."
CORRUPT = "Nexus: Corrupt run state; original bytes were preserved."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return relocated("h-observed-current", tmp_path)


def status(project: Path) -> str:
    [result] = outcome_receipts.inspect(str(project))
    return str(result["reason"] or "accepted-current")


def task(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["run"]["tasks"][0]


def attempt(envelope: dict[str, Any]) -> dict[str, Any]:
    return task(envelope)["attempts"][-1]


def verification(envelope: dict[str, Any]) -> dict[str, Any]:
    return attempt(envelope)["verification"]


def definition(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["run"]["plan"]["tasks"][0]


def check_record(envelope: dict[str, Any]) -> dict[str, Any]:
    return verification(envelope)["checks"][0]


def test_unchanged_is_current(project: Path) -> None:
    assert status(project) == "accepted-current"


def raw(project: Path, change: Callable[[str], str]) -> None:
    path = run_path(project)
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: text + "}", CORRUPT),
        (lambda text: "\ufeff" + text, CORRUPT),
        (lambda text: "null", "Cannot read properties of null (reading 'schemaVersion')"),
        (lambda text: "5", FOREIGN),
        (lambda text: text.replace('"schemaVersion": 1,', '"schemaVersion": 2,', 1), FOREIGN),
        (lambda text: text.replace('"sha256": "', '"sha256": "0', 1), FOREIGN),
        (
            lambda text: text.replace('"schemaVersion": 1,', '"schemaVersion": 1.0,'),
            "accepted-current",
        ),
    ],
)
def test_raw_run_file_changes(project: Path, change: Callable[[str], str], message: str) -> None:
    raw(project, change)
    assert status(project) == (message if message == "accepted-current" else UNAVAILABLE + message)


def _set(
    path: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any
) -> Callable[[dict[str, Any]], None]:
    def change(envelope: dict[str, Any]) -> None:
        path(envelope)[key] = value

    return change


def _drop(
    path: Callable[[dict[str, Any]], dict[str, Any]], key: str
) -> Callable[[dict[str, Any]], None]:
    def change(envelope: dict[str, Any]) -> None:
        del path(envelope)[key]

    return change


def _run(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["run"]


def _env(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope


def _reorder_environment(envelope: dict[str, Any]) -> None:
    environment = verification(envelope)["environment"]
    environment["values"] = dict(reversed(list(environment["values"].items())))


def _append_running_attempt(envelope: dict[str, Any]) -> None:
    extra = dict(attempt(envelope), id="00000000-0000-4000-8000-000000000000", execution="running")
    task(envelope)["attempts"].append(extra)


def _project_slash(envelope: dict[str, Any]) -> None:
    envelope["run"]["project"] += "/"


RESEALED = [  # (change, expected status); the envelope hash is recomputed after each change
    (_set(_run, "sequence", 7.5), UNAVAILABLE + FOREIGN),
    (_set(_run, "sequence", True), UNAVAILABLE + FOREIGN),
    (_set(_run, "schemaVersion", True), UNAVAILABLE + FOREIGN),
    (_set(_run, "tasks", {}), UNAVAILABLE + FOREIGN),
    (_set(_env, "run", None), UNAVAILABLE + FOREIGN),
    (_project_slash, UNAVAILABLE + FOREIGN),
    (_set(_run, "sequence", 7.0), "accepted-current"),
    (
        lambda e: definition(e).update(objective="changed"),
        UNAVAILABLE + "Nexus: Run plan integrity mismatch.",
    ),
    (
        _drop(_run, "plan"),
        UNAVAILABLE + 'The "data" argument must be of type string or an instance of Buffer, '
        "TypedArray, or DataView. Received undefined",
    ),
    (_set(task, "integration", "done"), UNAVAILABLE + "Nexus: Invalid task lifecycle record."),
    (
        _set(attempt, "verificationRounds", -1),
        UNAVAILABLE + "Nexus: Invalid attempt lifecycle record.",
    ),
    (
        _drop(attempt, "verification"),
        UNAVAILABLE + "Cannot read properties of undefined (reading 'status')",
    ),
    (
        _drop(attempt, "cancellation"),
        UNAVAILABLE + "Cannot read properties of undefined (reading 'status')",
    ),
    (
        _drop(attempt, "backend"),
        UNAVAILABLE + "Cannot read properties of undefined (reading 'kind')",
    ),
    (
        lambda e: task(e)["integrationReceipt"].update(attemptId="other"),
        UNAVAILABLE + "Nexus acceptance does not bind the current attempt and artifacts.",
    ),
    (
        _drop(task, "integrationReceipt"),
        UNAVAILABLE + "Nexus acceptance does not bind the current attempt and artifacts.",
    ),
    (
        lambda e: task(e)["integrationReceipt"].update(artifactHashes={}),
        UNAVAILABLE + "Nexus acceptance does not bind the current attempt and artifacts.",
    ),
    (lambda e: verification(e)["environment"].update(policy="x"), UNAVAILABLE + NOT_ACCEPTED),
    (_reorder_environment, UNAVAILABLE + NOT_ACCEPTED),
    (_set(check_record, "exitCode", 1), UNAVAILABLE + NOT_ACCEPTED),
    (_set(check_record, "exitCode", "0"), UNAVAILABLE + NOT_ACCEPTED),
    (_set(check_record, "exitCode", 0.0), "accepted-current"),
    (_set(check_record, "signal", "SIGTERM"), UNAVAILABLE + NOT_ACCEPTED),
    (_set(check_record, "error", []), UNAVAILABLE + NOT_ACCEPTED),
    (_set(verification, "checks", []), UNAVAILABLE + NOT_ACCEPTED),
    (_set(verification, "attemptId", "other"), UNAVAILABLE + NOT_ACCEPTED),
    (lambda e: attempt(e)["cancellation"].update(status="requested"), UNAVAILABLE + NOT_ACCEPTED),
    (_set(verification, "status", "failed"), UNAVAILABLE + NOT_ACCEPTED),
    (_append_running_attempt, UNAVAILABLE + NOT_ACCEPTED),
    (_drop(task, "acceptedAt"), "stale-outcome-source"),
    (_set(check_record, "error", ""), "stale-outcome-source"),
    (_set(verification, "extra", True), "stale-outcome-source"),
    (lambda e: attempt(e)["baseline"].update(revision="abc"), "stale-outcome-source"),
    (lambda e: attempt(e)["baseline"].update(repository="/elsewhere"), "stale-outcome-source"),
]


@pytest.mark.parametrize(("change", "expected"), RESEALED)
def test_resealed_run_changes(
    project: Path, change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    mutate_run(project, change)
    assert status(project) == expected


def test_changed_objective_with_a_new_plan_hash_is_a_stale_source(project: Path) -> None:
    mutate_run(project, lambda e: definition(e).update(objective="changed"), replan=True)
    assert status(project) == "stale-outcome-source"


def test_consistently_changed_environment_is_a_stale_source(project: Path) -> None:
    from support.nexus import sha256_json

    def change(envelope: dict[str, Any]) -> None:
        environment = verification(envelope)["environment"]
        environment["values"]["PATH"] = "/somewhere/else"
        environment["sha256"] = sha256_json(environment["values"])
        for record in verification(envelope)["checks"]:
            record["environment"] = environment

    mutate_run(project, change)
    assert status(project) == "stale-outcome-source"


@pytest.mark.parametrize(
    ("check", "field"),
    [
        ({"command": "/nonexistent/sh"}, "command"),
        ({"command": "bin/sh"}, "command"),
        ({"command": "node"}, "command"),
        ({"cwd": "nope"}, "cwd"),
    ],
)
def test_plan_check_changes(project: Path, check: dict[str, str], field: str) -> None:
    mutate_run(project, lambda e: definition(e)["checks"][0].update(check), replan=True)
    assert status(project) == UNAVAILABLE + NOT_ACCEPTED


@pytest.mark.parametrize("dependency", ["ghost", "task", "Bad"])
def test_bad_dependencies(project: Path, dependency: str) -> None:
    mutate_run(project, lambda e: definition(e).update(dependsOn=[dependency]), replan=True)
    assert status(project) == UNAVAILABLE + NOT_ACCEPTED


def test_a_symlinked_check_command_stays_fresh(project: Path) -> None:
    mutate_run(project, lambda e: definition(e)["checks"][0].update(command="/bin/sh"), replan=True)
    assert status(project) == "accepted-current"


@pytest.mark.parametrize(
    "change",
    [
        lambda p: (p / "checks" / "verify.sh").write_text("echo changed\n"),
        lambda p: (p / "checks" / "verify.sh").unlink(),
        lambda p: (p / "work" / "extra.txt").write_text("new\n"),
        lambda p: (p / "work" / "aux.txt").write_text("device name\n"),
        lambda p: os.symlink(p / "work" / "result.txt", p / "work" / "link.txt"),
        lambda p: os.mkfifo(p / "work" / "pipe"),
        lambda p: [f.unlink() for f in (p / "work").iterdir()] and (p / "work").rmdir(),
    ],
)
def test_file_changes_make_evidence_stale(project: Path, change: Callable[[Path], Any]) -> None:
    change(project)
    assert status(project) == UNAVAILABLE + NOT_ACCEPTED


@pytest.mark.parametrize(
    "change",
    [
        lambda p: (p / "work" / "empty").mkdir(),
        lambda p: (p / "work" / "result.txt").write_bytes((p / "work" / "result.txt").read_bytes()),
        lambda p: (p / ".bmad-plus" / "nexus" / "runs" / "other.json").write_text("garbage"),
    ],
)
def test_harmless_changes_keep_evidence_current(
    project: Path, change: Callable[[Path], Any]
) -> None:
    change(project)
    assert status(project) == "accepted-current"


@pytest.mark.parametrize("lock", ["writer.lock", "recovery.lock"])
def test_lock_files_block(project: Path, lock: str) -> None:
    (project / ".bmad-plus" / "nexus" / lock).write_text("")
    assert status(project) == UNAVAILABLE + LOCKED


def test_a_lock_directory_is_not_a_regular_file(project: Path) -> None:
    lock = project / ".bmad-plus" / "nexus" / "writer.lock"
    lock.mkdir()
    assert status(project) == UNAVAILABLE + f"Adapter target is not a regular file: {lock}"


def test_a_corrupt_run_is_reported_before_a_lock(project: Path) -> None:
    (project / ".bmad-plus" / "nexus" / "writer.lock").write_text("")
    raw(project, lambda text: text + "}")
    assert status(project) == UNAVAILABLE + CORRUPT


def test_symlinked_nexus_directory(project: Path, tmp_path: Path) -> None:
    moved = tmp_path / "nexus-state"
    os.rename(project / ".bmad-plus", moved)
    os.symlink(moved, project / ".bmad-plus")
    assert status(project) == (
        UNAVAILABLE + f"Adapter path contains a symlink or junction: {project / '.bmad-plus'}"
    )


def test_symlinked_and_directory_run_files(project: Path, tmp_path: Path) -> None:
    path = run_path(project)
    moved = tmp_path / "one.json"
    os.rename(path, moved)
    os.symlink(moved, path)
    assert status(project) == UNAVAILABLE + f"Adapter path contains a symlink or junction: {path}"
    path.unlink()
    path.mkdir()
    assert status(project) == UNAVAILABLE + f"Adapter target is not a regular file: {path}"


def test_the_reader_never_writes(project: Path) -> None:
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*") if p.is_file()}
    status(project)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*") if p.is_file()}
    assert after == before
