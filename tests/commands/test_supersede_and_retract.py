"""`mem supersede` and `mem retract`: revision-bound, first terminating event wins, race-safe."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import RunMem, mem_command
from support.demo import CACHE, LESSONS, RETRY

from mem.commands import retract, supersede
from mem.core.javascript import js
from mem.core.rules.memory import Outcome
from mem.domain import lifecycle_events, memories
from mem.errors import MemError

HETZNER = memories.memory_id(LESSONS, "Hetzner firewall first")
STORE = Path(".bmad/memory/lifecycle.ndjson")
NOW = "2026-10-18T09:30:00.000Z"


def _events(project: Path) -> list[dict[str, object]]:
    path = project / STORE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _statuses(run_mem: RunMem, project: Path) -> dict[str, tuple[str, str | None, str | None]]:
    state = json.loads(run_mem("context", "--json", cwd=project).stdout)
    return {m["id"]: (m["status"], m["supersededBy"], m["reason"]) for m in state["memories"]}


def _edit(project: Path, old: str, new: str) -> None:
    lessons = project / LESSONS
    text = lessons.read_text(encoding="utf-8")
    assert old in text
    lessons.write_text(text.replace(old, new), encoding="utf-8")


def test_supersede_appends_a_revision_bound_event(project: Path, run_mem: RunMem) -> None:
    done = run_mem(
        "supersede",
        CACHE,
        "--with",
        RETRY,
        "--reason",
        "Policy changed after review",
        "--json",
        cwd=project,
    )
    assert done.returncode == 0, done.stdout
    reply = json.loads(done.stdout)
    event = reply["written"]
    assert reply["unchanged"] is None
    assert list(event) == ["id", "schemaVersion", "kind", "ts", "memory", "with", "reason"]
    current = {m.id: m for m in memories.load(str(project))}
    assert event["kind"] == "superseded" and event["schemaVersion"] == 1
    assert event["memory"] == current[CACHE].ref() and event["with"] == current[RETRY].ref()
    assert event["reason"] == "Policy changed after review"
    body = {key: value for key, value in event.items() if key != "id"}
    assert event["id"] == hashlib.sha256(js.stringify(body).encode()).hexdigest()
    assert _events(project) == [event]
    assert _statuses(run_mem, project)[CACHE] == (
        "superseded",
        RETRY,
        "Policy changed after review",
    )
    assert _statuses(run_mem, project)[RETRY] == ("active", None, None)


def test_identical_repeats_are_no_ops_and_conflicts_are_refused(
    project: Path, run_mem: RunMem
) -> None:
    first = run_mem("supersede", CACHE, "--with", RETRY, "--reason", "r", cwd=project)
    assert first.stdout.startswith(f"mem supersede: {CACHE} superseded by {RETRY} (event ")
    store = (project / STORE).read_bytes()
    again = run_mem("supersede", CACHE, "--with", RETRY, "--reason", "r", cwd=project)
    assert again.returncode == 0
    assert again.stdout == (
        f"mem supersede: {CACHE} was already superseded by {RETRY} at this revision;"
        " nothing written\n"
    )
    retract = run_mem("retract", CACHE, "--reason", "wrong", cwd=project)
    assert retract.returncode == 1
    assert retract.stderr == (
        f"mem retract: Memory {CACHE} is already superseded by {RETRY} at this revision.\n"
    )
    other = run_mem("supersede", CACHE, "--with", HETZNER, "--reason", "r", "--json", cwd=project)
    assert json.loads(other.stdout) == {
        "error": f"Memory {CACHE} is already superseded by {RETRY} at this revision."
    }
    assert (project / STORE).read_bytes() == store

    assert run_mem("retract", HETZNER, "--reason", "incorrect", cwd=project).returncode == 0
    repeat = run_mem("retract", HETZNER, "--reason", "incorrect", "--json", cwd=project)
    assert json.loads(repeat.stdout)["written"] is None
    refused = run_mem("supersede", HETZNER, "--with", RETRY, "--reason", "r", cwd=project)
    assert (
        refused.stderr
        == f"mem supersede: Memory {HETZNER} is already retracted at this revision.\n"
    )
    assert len(_events(project)) == 2


def test_events_stop_applying_when_either_text_changes(project: Path, run_mem: RunMem) -> None:
    markdown = (project / LESSONS).read_bytes()
    run_mem("supersede", CACHE, "--with", RETRY, "--reason", "r", cwd=project)
    assert (project / LESSONS).read_bytes() == markdown, "Markdown is never rewritten"
    _edit(project, "### Retry budget\n", "### Retry budget\nRevised.\n")
    assert _statuses(run_mem, project)[CACHE] == ("active", None, None)
    # the old supersession no longer applies, so another terminating event may be recorded
    assert run_mem("retract", CACHE, "--reason", "now wrong", cwd=project).returncode == 0
    _edit(project, "zero cache values", "zero cache values, revised")
    assert _statuses(run_mem, project)[CACHE] == ("active", None, None)
    _edit(project, "zero cache values, revised", "zero cache values")
    # the original text is back: the first event that applies to it wins again
    assert _statuses(run_mem, project)[CACHE] == ("retracted", None, "now wrong")


def test_validation(project: Path, run_mem: RunMem) -> None:
    cases = [
        (
            ("supersede", CACHE, "--with", CACHE, "--reason", "r"),
            "A memory cannot supersede itself.",
        ),
        (
            ("supersede", CACHE, "--reason", "r"),
            "--with <new-id> is required: the full id of the replacing memory.",
        ),
        (
            ("supersede", CACHE, "--with", RETRY[:12], "--reason", "r"),
            f"Unknown memory id: {RETRY[:12]}",
        ),
        (("retract", CACHE), "--reason must be non-empty text of at most 2000 characters."),
        (
            ("retract", CACHE, "--reason", " \t"),
            "--reason must be non-empty text of at most 2000 characters.",
        ),
        (
            ("retract", CACHE, "--reason", "x" * 2001),
            "--reason must be non-empty text of at most 2000 characters.",
        ),
        (
            ("retract", "mem_ffffffffffffffffffff", "--reason", "r"),
            "Unknown memory id: mem_ffffffffffffffffffff",
        ),
    ]
    for args, message in cases:
        done = run_mem(*args, cwd=project)
        assert done.returncode == 1, args
        assert done.stderr == f"mem {args[0]}: {message}\n"
    assert run_mem("retract", CACHE, "--reason", "x" * 2000, cwd=project).returncode == 0
    assert len(_events(project)) == 1


def test_ambiguous_ids_are_refused(project: Path, run_mem: RunMem) -> None:
    lessons = project / LESSONS
    lessons.write_text(
        lessons.read_text(encoding="utf-8") + "\n### Retry budget\nSecond copy.\n", encoding="utf-8"
    )
    done = run_mem("supersede", CACHE, "--with", RETRY, "--reason", "r", cwd=project)
    assert done.stderr == (
        f"mem supersede: Memory id {RETRY} is ambiguous: {LESSONS} has 2 sections"
        ' headed "Retry budget".\n'
    )


def test_no_cycles_at_current_revisions(project: Path, run_mem: RunMem) -> None:
    assert (
        run_mem("supersede", CACHE, "--with", RETRY, "--reason", "r", cwd=project).returncode == 0
    )
    assert (
        run_mem("supersede", RETRY, "--with", HETZNER, "--reason", "r", cwd=project).returncode == 0
    )
    cycle = run_mem("supersede", HETZNER, "--with", CACHE, "--reason", "r", cwd=project)
    assert cycle.returncode == 1
    assert cycle.stderr == (
        f"mem supersede: Superseding {HETZNER} with {CACHE} would close a cycle: {CACHE} already"
        f" leads to {HETZNER} through supersessions ({CACHE} -> {RETRY} -> {HETZNER}).\n"
    )
    # once the chain's middle text changes, its supersessions no longer apply: no cycle left
    _edit(project, "### Retry budget\n", "### Retry budget\nRevised.\n")
    assert (
        run_mem("supersede", HETZNER, "--with", CACHE, "--reason", "r", cwd=project).returncode == 0
    )


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(4))
def test_concurrent_conflicting_calls_exactly_one_wins(project: Path, round_: int) -> None:
    calls = [
        ["supersede", CACHE, "--with", RETRY, "--reason", "replaced"],
        ["retract", CACHE, "--reason", "withdrawn"],
        ["supersede", CACHE, "--with", HETZNER, "--reason", "replaced otherwise"],
    ]
    calls = calls[round_ % 3 :] + calls[: round_ % 3]
    processes = [
        subprocess.Popen(
            [*mem_command(), *args],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in calls
    ]
    results = [(process.wait(timeout=60), *process.communicate()) for process in processes]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1, 1], results
    for code, _, stderr in results:
        if code == 1:
            assert f"Memory {CACHE} is already " in stderr and "at this revision." in stderr
    assert len(_events(project)) == 1
    assert not (project / ".bmad/memory/writer.lock").exists()


_OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["supersede", "retract", "edit"]),
        st.integers(0, 2),
        st.integers(0, 2),
    ),
    max_size=12,
)


def _operate(root: str, kind: str, old: str, new: str) -> Outcome:
    if kind == "retract":
        return retract.retract(root, old, "r", NOW)
    return supersede.supersede(root, old, new, "r", NOW)


@settings(max_examples=40, deadline=None)
@given(_OPERATIONS)
def test_operations_append_one_line_or_nothing(operations: list[tuple[str, int, int]]) -> None:
    headings = ["Alpha", "Beta", "Gamma"]
    ids = [memories.memory_id(LESSONS, heading) for heading in headings]
    bodies = ["a", "b", "c"]
    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.realpath(scratch)
        notes = Path(root, LESSONS)
        notes.parent.mkdir(parents=True)
        store = Path(root, STORE)

        def write_notes() -> None:
            notes.write_text(
                "".join(f"### {h}\n{b}\n\n" for h, b in zip(headings, bodies, strict=True)),
                encoding="utf-8",
            )

        write_notes()
        for kind, first, second in operations:
            if kind == "edit":
                bodies[first] += "+"
                write_notes()
                continue
            before = store.read_bytes() if store.exists() else b""
            try:
                outcome = _operate(root, kind, ids[first], ids[second])
            except MemError:
                assert (store.read_bytes() if store.exists() else b"") == before
                continue
            after = store.read_bytes()
            assert after.count(b"\n") - before.count(b"\n") == (1 if outcome.written else 0)
            assert after.startswith(before)
            assert (
                _operate(root, kind, ids[first], ids[second]).written is False
            )  # the identical repeat is a no-op
            assert store.read_bytes() == after
            current, found = lifecycle_events.project_statuses(root)
            target = next(m for m in current if m.id == ids[first])
            assert found[(target.id, target.revision)].status != "active"
