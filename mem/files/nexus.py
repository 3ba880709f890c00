"""A read-only reader of BMAD+ Nexus run state (nexus-run-state.md).

It answers one question for `mem observe`, `mem outcomes` and evidence recall: is a task
of a run accepted, with independently verified evidence that is still current? Every
answer is recomputed from the files (run file, protected resources, check executables,
scope and artifacts, dependencies); nothing is cached between reads and nothing is
written. The run file is parsed as JavaScript would, and the user-visible errors are the
reference's, including the few raw JavaScript crash texts it is known to print for
malformed shapes.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from mem import layout
from mem.core.javascript import js
from mem.errors import MemError
from mem.files import machine_paths, nexus_paths

RUN_LIMIT = 32 * 1024 * 1024
SNAPSHOT_FILE_LIMIT = 16 * 1024 * 1024
SCOPE_FILE_LIMIT = 10_000
NEXUS_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
DEVICE_NAME = re.compile(
    r"(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\..*)?", re.IGNORECASE | re.DOTALL
)
UNSAFE_CHARACTERS = set('\\:<>"|?*') | {chr(code) for code in range(0x20)}

NOT_ACCEPTED = (
    "Outcome source is not an accepted task with current independently verified evidence."
)
LOCKED = "Nexus state is being written or recovered; retry observation after its owner finishes."
UNBOUND = "Nexus acceptance does not bind the current attempt and artifacts."
CORRUPT = "Nexus: Corrupt run state; original bytes were preserved."
FOREIGN = "Nexus: Corrupt or foreign run state; original bytes were preserved."
OBSOLETE_ENVIRONMENT = (
    "Nexus: Verification environment is missing or obsolete; fresh evidence is required."
)
STALE = "Nexus: Stale evidence: checked artifacts or write scope changed."
TASK_STATES = ("pending", "accepted", "rejected")
EXECUTION_STATES = ("running", "blocked", "ambiguous", "completed", "failed", "cancelled")
VERIFICATION_STATES = ("pending", "running", "passed", "failed", "ambiguous")


class _Undefined:
    """JavaScript's `undefined`: what reading a missing property gives."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


def _get(value: Any, key: str) -> Any:
    """`value[key]` with JavaScript's semantics, including its crash on null and undefined."""
    if value is None:
        raise MemError(f"Cannot read properties of null (reading '{key}')")
    if value is UNDEFINED:
        raise MemError(f"Cannot read properties of undefined (reading '{key}')")
    return value.get(key, UNDEFINED) if isinstance(value, dict) else UNDEFINED


def _truthy(value: Any) -> bool:
    if value is None or value is UNDEFINED or value is False or value == "":
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return True


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return _number(value) and math.isfinite(value) and value == int(value)


def _strict_equal(first: Any, second: Any) -> bool:
    """JavaScript `===` on JSON values: primitives by value, objects by identity."""
    if _number(first) and _number(second):
        return bool(first == second)
    if isinstance(first, str) and isinstance(second, str):
        return first == second
    return first is second


def _one_of(value: Any, choices: tuple[str, ...]) -> bool:
    return isinstance(value, str) and value in choices


def _json(value: Any) -> str | None:
    """JSON.stringify, which gives undefined for undefined."""
    return None if value is UNDEFINED else js.stringify(value)


def _json_sha256(value: Any) -> str:
    """SHA-256 of the compact JSON of a value, failing as Node's hash does on undefined."""
    if value is UNDEFINED:
        raise MemError(
            'The "data" argument must be of type string or an instance of Buffer, TypedArray, '
            "or DataView. Received undefined"
        )
    return hashlib.sha256(js.stringify(value).encode("utf-8")).hexdigest()


def _first(items: list[Any], task_id: Any) -> Any:
    """The first task (or task definition) with that id; None when there is none."""
    for item in items:
        if isinstance(item, dict) and _strict_equal(item.get("id", UNDEFINED), task_id):
            return item
    return None


class Run(NamedTuple):
    root: str
    run: dict[str, Any]
    locked: bool


def load_run(root: str, run_id: Any) -> Run:
    """The run file's envelope and plan integrity, lifecycle shapes and the lock files (L1-L11)."""
    nexus_paths.nexus_target(root, f"{layout.NEXUS}/.probe")
    if not machine_paths.is_directory(root):
        raise MemError("Nexus: Project directory is not a directory.")
    if not isinstance(run_id, str) or not NEXUS_ID.fullmatch(run_id):
        raise MemError("Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -.")
    path = nexus_paths.nexus_target(root, f"{layout.NEXUS_RUNS}/{run_id}.json")
    data = machine_paths.read_limited(path, RUN_LIMIT)
    if data is None:
        raise MemError("Nexus: Run state exceeds the size limit.")
    try:
        # Node decodes invalid UTF-8 with replacement characters; the envelope hash then fails.
        envelope = js.parse_json(data.decode("utf-8", errors="replace"))
    except ValueError:
        raise MemError(CORRUPT) from None
    run = _envelope_run(envelope, run_id, root)
    _check_plan(run)
    _check_lifecycle(run)
    writer = nexus_paths.nexus_target(root, layout.NEXUS_WRITER_LOCK)
    recovery = nexus_paths.nexus_target(root, layout.NEXUS_RECOVERY_LOCK)
    return Run(root, run, machine_paths.exists(writer) or machine_paths.exists(recovery))


def _envelope_run(envelope: Any, run_id: str, root: str) -> dict[str, Any]:
    schema = _get(envelope, "schemaVersion")
    run = _get(envelope, "run")
    if (
        not (_number(schema) and schema == 1)
        or not _truthy(run)
        or _get(envelope, "sha256") != _json_sha256(run)
        or not isinstance(run, dict)
        or not (_number(run.get("schemaVersion")) and run["schemaVersion"] == 1)
        or run.get("id") != run_id
        or run.get("project") != root
        or not _integer(run.get("sequence"))
        or not isinstance(run.get("tasks"), list)
    ):
        raise MemError(FOREIGN)
    return run


def _check_plan(run: dict[str, Any]) -> None:
    plan = _get(run, "plan")
    plan_hash = _json_sha256(plan)
    plan_tasks = _get(plan, "tasks")
    same_ids = isinstance(plan_tasks, list) and [_json(_get(t, "id")) for t in run["tasks"]] == [
        _json(_get(t, "id")) for t in plan_tasks
    ]
    if run.get("planHash") != plan_hash or not same_ids:
        raise MemError("Nexus: Run plan integrity mismatch.")


def _check_lifecycle(run: dict[str, Any]) -> None:
    for task in run["tasks"]:
        if not isinstance(_get(task, "attempts"), list) or not _one_of(
            _get(task, "integration"), TASK_STATES
        ):
            raise MemError("Nexus: Invalid task lifecycle record.")
    seen: set[str] = set()
    for task in run["tasks"]:
        for attempt in task["attempts"]:
            attempt_id = _get(attempt, "id")
            rounds = _get(attempt, "verificationRounds")
            valid = (
                isinstance(attempt_id, str)
                and attempt_id not in seen
                and _strict_equal(_get(attempt, "taskId"), task.get("id", UNDEFINED))
                and _strict_equal(_get(attempt, "runId"), run["id"])
                and _integer(rounds)
                and rounds >= 0
                and isinstance(_get(attempt, "verificationHistory"), list)
                and isinstance(_get(attempt, "reconciliations"), list)
                and _one_of(_get(attempt, "execution"), EXECUTION_STATES)
                and _one_of(_get(_get(attempt, "verification"), "status"), VERIFICATION_STATES)
            )
            if not valid:
                raise MemError("Nexus: Invalid attempt lifecycle record.")
            seen.add(attempt_id)
    # The reference reads these of every task's last attempt outside any error handling.
    for task in run["tasks"]:
        if task["attempts"]:
            last = task["attempts"][-1]
            _get(_get(last, "cancellation"), "status")
            _get(_get(last, "backend"), "kind")


@dataclass(slots=True)
class _Freshness:
    """Section 5: whether a task's recorded evidence still matches the files, recursively."""

    root: str
    run: dict[str, Any]
    proven: set[str] = field(default_factory=set)

    def check(self, task_id: str, path: tuple[str, ...] = ()) -> None:
        if task_id in path:
            raise MemError(f"Nexus: Dependency cycle at {task_id}")
        if task_id in self.proven:
            return
        task = _first(self.run["tasks"], task_id)
        definition = _first(self.run["plan"]["tasks"], task_id)
        attempts = _get(task, "attempts")
        if not attempts:
            raise MemError("Nexus: Current attempt has no eligible passed verification.")
        attempt = attempts[-1]
        verification = _get(attempt, "verification")
        if not (
            _get(verification, "status") == "passed"
            and _strict_equal(_get(verification, "attemptId"), _get(attempt, "id"))
            and _get(attempt, "execution") == "completed"
            and _get(_get(attempt, "cancellation"), "status") != "requested"
        ):
            raise MemError("Nexus: Current attempt has no eligible passed verification.")
        environment = _get(verification, "environment")
        if (
            not _truthy(environment)
            or _get(environment, "policy") != "minimal-local-v1"
            or _get(environment, "sha256") != _json_sha256(_get(environment, "values"))
        ):
            raise MemError(OBSOLETE_ENVIRONMENT)
        self.protected(definition)
        scope = self.snapshot(self.scope_files(_list(_get(definition, "scope"))))
        artifacts = self.snapshot(_list(_get(definition, "artifacts")))
        if _json(scope) != _json(_get(verification, "scopeHashes")) or _json(artifacts) != _json(
            _get(verification, "artifactHashes")
        ):
            raise MemError(STALE)
        self.check_records(definition, attempt, verification, environment)
        for dependency in _list(_get(definition, "dependsOn")):
            if not isinstance(dependency, str) or not NEXUS_ID.fullmatch(dependency):
                raise MemError("Nexus: Task ID must use 1-64 lowercase letters, numbers, _ or -.")
            other = _first(self.run["tasks"], dependency)
            if other is None:
                raise MemError(f"Nexus: Unknown task: {dependency}")
            if _get(other, "integration") != "accepted":
                raise MemError(f"Nexus: Dependency has not been accepted: {dependency}")
            self.check(dependency, (*path, task_id))
        self.proven.add(task_id)

    def protected(self, definition: Any) -> None:
        """The verifier and agent resources and the executables still have their plan hashes."""
        resources = _get(definition, "resourceHashes")
        changed = "Nexus: Protected verifier or agent resource changed since the plan was created."
        if not isinstance(resources, dict):
            raise MemError(changed)
        if _json(self.snapshot(js.property_order(resources))) != _json(resources):
            raise MemError(changed)
        for check in _list(_get(definition, "checks")):
            self.command_matches(check, "Nexus: Verifier executable changed since plan creation.")
        execution = _get(definition, "execution")
        if _truthy(execution):
            self.command_matches(execution, "Nexus: Worker executable changed since plan creation.")

    def command_matches(self, step: Any, changed: str) -> None:
        cwd = _get(step, "cwd")
        self.directory("." if cwd is UNDEFINED else cwd)
        command = _get(step, "command")
        if not isinstance(command, str):
            raise MemError("Nexus: Check command must be node or an absolute executable path.")
        digest = hashlib.sha256(machine_paths.executable_bytes(command)).hexdigest()
        if _get(step, "commandHash") != digest:
            raise MemError(changed)

    def check_records(
        self, definition: Any, attempt: Any, verification: Any, environment: Any
    ) -> None:
        records = _get(verification, "checks")
        planned = _get(definition, "checks")
        incomplete = MemError("Nexus: Verification receipt is incomplete.")
        if not isinstance(records, list) or not isinstance(planned, list):
            raise incomplete
        if [_json(_get(r, "id")) for r in records] != [_json(_get(c, "id")) for c in planned]:
            raise incomplete
        for record in records:
            exit_code = _get(record, "exitCode")
            if not (
                _number(exit_code)
                and exit_code == 0
                and not _truthy(_get(record, "error"))
                and not _truthy(_get(record, "signal"))
                and _strict_equal(_get(record, "attemptId"), _get(attempt, "id"))
                and _json(_get(record, "environment")) == _json(environment)
            ):
                raise incomplete

    def directory(self, relative: Any) -> None:
        relative = _portable(relative, directory=True)
        nexus_paths.nexus_target(self.root, _child(relative, ".nexus-directory-probe"))
        if not machine_paths.is_directory(self.absolute(relative)):
            raise MemError(f"Nexus: Check cwd is not a directory: {relative}")

    def absolute(self, relative: str) -> str:
        return self.root if relative == "." else os.path.join(self.root, *relative.split("/"))

    def snapshot(self, paths: list[Any]) -> dict[str, str]:
        """Required files, de-duplicated and in UTF-16 order, each mapped to its SHA-256."""
        unique = list(dict.fromkeys(_portable(path) for path in paths))
        return {path: self.file_hash(path) for path in sorted(unique, key=js.utf16_key)}

    def file_hash(self, relative: str) -> str:
        target = nexus_paths.nexus_target(self.root, relative)
        if not machine_paths.exists(target):
            raise MemError(f"Nexus: Required file is missing: {relative}")
        data = machine_paths.read_limited(target, SNAPSHOT_FILE_LIMIT)
        if data is None:
            raise MemError(f"Nexus: File exceeds the 16 MiB snapshot limit: {relative}")
        return hashlib.sha256(data).hexdigest()

    def scope_files(self, scope: list[Any]) -> list[str]:
        collected: list[str] = []
        for entry in scope:
            entry = _portable(entry, directory=True)
            if machine_paths.entry_kind(self.absolute(entry)) == "file":
                nexus_paths.nexus_target(self.root, entry)
                collected.append(entry)
            else:
                nexus_paths.nexus_target(self.root, _child(entry, ".nexus-scope-probe"))
                self.walk(entry, collected)
        return collected

    def walk(self, relative: str, collected: list[str]) -> None:
        kind = machine_paths.entry_kind(self.absolute(relative))
        if kind is None:
            return
        if kind == "link":
            raise MemError(f"Nexus: Scope contains a symlink or junction: {relative}")
        if kind == "directory":
            self.directory(relative)
            names = machine_paths.directory_names(self.absolute(relative))
            for name in sorted(names, key=js.utf16_key):
                self.walk(_child(relative, name), collected)
        elif kind == "file":
            collected.append(relative)
            if len(collected) > SCOPE_FILE_LIMIT:
                raise MemError(f"Nexus: Scope exceeds the {SCOPE_FILE_LIMIT} file snapshot limit.")
        else:
            raise MemError(f"Nexus: Scope contains a non-regular file: {relative}")


def _portable(relative: Any, directory: bool = False) -> str:
    """A portable project-relative path, as Nexus requires of every file key and cwd."""
    if (
        not isinstance(relative, str)
        or not js.trim(relative)
        or js.length(relative) > 500
        or "\0" in relative
    ):
        raise MemError("Nexus: Relative path must be a nonempty bounded string.")
    if directory and relative == ".":
        return relative
    if (
        any(character in UNSAFE_CHARACTERS for character in relative)
        or relative.startswith("/")
        or relative == ".."
        or relative.startswith("../")
    ):
        raise MemError(f"Nexus: Unsafe relative path: {relative}")
    for segment in relative.split("/"):
        if segment in ("", ".") or segment[-1] in ". " or DEVICE_NAME.fullmatch(segment):
            raise MemError(f"Nexus: Nonportable path: {relative}")
    return relative


def _child(directory: str, name: str) -> str:
    return name if directory == "." else f"{directory}/{name}"


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise MemError(f"Nexus: Expected a list in the plan, found {_json(value)}.")
    return value


def accepted_source(root: str, run_id: Any, task_id: Any) -> dict[str, Any]:
    """The `source` of an outcome receipt, if the task is accepted with current evidence (§6-§7)."""
    loaded = load_run(root, run_id)
    if loaded.locked:
        raise MemError(LOCKED)
    run = loaded.run
    task = _first(run["tasks"], task_id)
    if task is None or task.get("integration") != "accepted":
        raise MemError(NOT_ACCEPTED)
    try:
        _Freshness(root, run).check(task_id)
    except MemError:
        # The reference never shows why evidence is stale, only that it is not eligible.
        raise MemError(NOT_ACCEPTED) from None
    attempt = task["attempts"][-1]
    verification = attempt["verification"]
    if attempt.get("execution") != "completed" or verification.get("status") != "passed":
        raise MemError(NOT_ACCEPTED)
    receipt = task.get("integrationReceipt")
    if (
        not isinstance(receipt, dict)
        or not _strict_equal(receipt.get("attemptId", UNDEFINED), attempt["id"])
        or _json(receipt.get("artifactHashes", UNDEFINED))
        != _json(verification.get("artifactHashes", UNDEFINED))
    ):
        raise MemError(UNBOUND)
    definition = _first(run["plan"]["tasks"], task_id)
    baseline = attempt.get("baseline", UNDEFINED)
    source = {
        "kind": "nexus",
        "runId": run_id,
        "taskId": task_id,
        "attemptId": attempt["id"],
        "verificationId": verification.get("id", UNDEFINED),
        "verificationSha256": _json_sha256(verification),
        "acceptedAt": task.get("acceptedAt", UNDEFINED),
        "artifactHashes": receipt["artifactHashes"],
        "resourceHashes": definition.get("resourceHashes", UNDEFINED),
        "scope": definition.get("scope", UNDEFINED),
        "objective": definition.get("objective", UNDEFINED),
        "baseline": baseline if _truthy(baseline) else None,
    }
    # JSON.stringify leaves out undefined properties.
    return {key: value for key, value in source.items() if value is not UNDEFINED}
