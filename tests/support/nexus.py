"""Relocated copies of the Nexus fixtures (fixtures/nexus) and ways to change them in tests."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support import FIXTURES

NEXUS = FIXTURES / "nexus"
sys.path.insert(0, str(NEXUS))

import relocate  # noqa: E402  (the fixtures' own relocation tool)

from mem.core.javascript import js  # noqa: E402
from mem.core.rules import receipts  # noqa: E402

NOT_ACCEPTED = (
    "Outcome source is not an accepted task with current independently verified evidence."
)
MISSING = object()  # an observation field left out entirely
LOCKED = "Nexus state is being written or recovered; retry observation after its owner finishes."


def relocated(name: str, tmp_path: Path, **options: Any) -> Path:
    """A copy of a fixture project at a symlink-free path, its run files bound to it."""
    destination = Path(os.path.realpath(tmp_path)) / name
    relocate.copy_and_relocate(str(NEXUS / name / "project"), str(destination), **options)
    return destination


def expected(name: str, file: str) -> tuple[str, int]:
    """A recorded output of the reference (`expected/<file>`): text and exit status."""
    text = (NEXUS / name / "expected" / file).read_text(encoding="utf-8")
    body, _, status = text.rstrip("\n").rpartition("\n")
    assert status.startswith("[exit ")
    return (body + "\n" if body else ""), int(status[6:-1])


def run_path(project: Path, run_id: str = "one") -> Path:
    return project / ".bmad-plus" / "nexus" / "runs" / f"{run_id}.json"


def sha256_json(value: Any) -> str:
    return hashlib.sha256(relocate.js_stringify(value).encode("utf-8")).hexdigest()


def load_run(project: Path, run_id: str = "one") -> dict[str, Any]:
    return relocate.js_loads(run_path(project, run_id).read_text(encoding="utf-8"))


def save_run(
    project: Path,
    envelope: dict[str, Any],
    run_id: str = "one",
    *,
    reseal: bool = True,
    replan: bool = False,
) -> None:
    """Write a run file; `replan` recomputes planHash, `reseal` the envelope hash."""
    run = envelope.get("run") if isinstance(envelope, dict) else None
    if replan and isinstance(run, dict):
        run["planHash"] = sha256_json(run["plan"])
    if reseal and isinstance(run, dict):
        envelope["sha256"] = sha256_json(run)
    run_path(project, run_id).write_text(
        relocate.js_stringify(envelope, indent=2) + "\n", encoding="utf-8"
    )


def mutate_run(
    project: Path,
    change: Callable[[dict[str, Any]], Any],
    run_id: str = "one",
    *,
    reseal: bool = True,
    replan: bool = False,
) -> None:
    envelope = load_run(project, run_id)
    change(envelope)
    save_run(project, envelope, run_id, reseal=reseal, replan=replan)


def clone_run(project: Path, source: str, target: str) -> None:
    """Another accepted run of the same plan (a second source of evidence for a test)."""
    envelope = load_run(project, source)
    run = envelope["run"]
    run["id"] = target
    for task in run["tasks"]:
        for attempt in task["attempts"]:
            attempt["runId"] = target
    save_run(project, envelope, target)


def write_observation(project: Path, name: str = "obs.json", **fields: Any) -> str:
    observation = {
        "runId": "one",
        "taskId": "task",
        "memory": {"file": ".agents/memory/lessons.md", "heading": "Verified artifacts only"},
        "scope": ["work"],
        "interpretation": "Operator association only; lesson causality is not claimed.",
    }
    for key, value in fields.items():
        if value is MISSING:
            observation.pop(key, None)
        else:
            observation[key] = value
    (project / name).write_text(json.dumps(observation), encoding="utf-8")
    return name


def store_lines(project: Path) -> list[dict[str, Any]]:
    store = project / ".bmad" / "memory" / "outcomes.ndjson"
    if not store.exists():
        return []
    return [json.loads(line) for line in store.read_text(encoding="utf-8").splitlines() if line]


def synthetic_store(count: int, ts: str = "2026-10-18T09:30:00.000Z") -> str:
    """A store of `count` valid accepted-outcome receipts of one old run."""
    lines = []
    for number in range(count):
        body = {
            "schemaVersion": 1,
            "kind": "accepted-outcome",
            "ts": ts,
            "memory": {
                "file": ".agents/memory/lessons.md",
                "heading": "Old",
                "textSha256": "0" * 64,
            },
            "scope": ["work"],
            "source": {
                "kind": "nexus",
                "runId": "old",
                "taskId": "task",
                "attemptId": f"a{number}",
            },
            "interpretation": "synthetic",
            "verification": {
                "status": "passed",
                "acceptance": "accepted",
                "lessonCausality": "unmeasured",
            },
            "supersedes": [],
            "contradicts": [],
        }
        lines.append(js.stringify({"id": receipts.receipt_id(body), **body}) + "\n")
    return "".join(lines)
