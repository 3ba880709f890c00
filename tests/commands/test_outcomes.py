"""`mem outcomes` and evidence recall: strict store reading, statuses, boosts and drops."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support.cli import RunMem
from support.nexus import (
    NOT_ACCEPTED,
    clone_run,
    relocated,
    run_path,
    store_lines,
    synthetic_store,
    write_observation,
)

from mem.commands import observe
from mem.domain import outcome_receipts
from mem.errors import MemError

NOW = "2026-10-18T09:30:00.000Z"
INTEGRITY = "Outcome receipt integrity or uniqueness check failed."
NOTES = """# Lessons

### Verified artifacts only
- **Lesson**: record an outcome only after Nexus accepted current, independently verified evidence.

### Cache contract
Preserve false and zero cache values.

### Cache shortcut
Skip cache values when hot.

### Cache alternative
Drop cache values on every deploy.

### Cache resolution
Keep cache values, but version them.

### Billing export
Exports run nightly.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Fixture a (one accepted task) with runs one, two and three and some cache notes."""
    root = relocated("a-accepted", tmp_path)
    (root / ".agents" / "memory" / "lessons.md").write_text(NOTES, encoding="utf-8")
    clone_run(root, "one", "two")
    clone_run(root, "one", "three")
    return root


def record(project: Path, run_id: str, heading: str, **fields: Any) -> str:
    name = write_observation(
        project,
        f"obs-{run_id}.json",
        runId=run_id,
        memory={"file": ".agents/memory/lessons.md", "heading": heading},
        **fields,
    )
    return str(observe.observe(str(project), name, NOW)["id"])


def reasons(project: Path) -> list[str | None]:
    return [result["reason"] for result in outcome_receipts.inspect(str(project))]


def evidence(
    run_mem: RunMem, project: Path, *words: str, scope: str = "work"
) -> list[dict[str, Any]]:
    done = run_mem(
        "recall", *words, "--ranking", "evidence", "--context-scope", scope, "--json", cwd=project
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return list(json.loads(done.stdout)["results"])


def store(project: Path) -> Path:
    return project / ".bmad" / "memory" / "outcomes.ndjson"


def test_contradiction_then_supersession(project: Path, run_mem: RunMem) -> None:
    first = record(project, "one", "Cache contract")
    second = record(project, "two", "Cache alternative", contradicts=[first])
    assert reasons(project) == ["contradictory", "contradictory"]
    # The contradicted anchors are dropped; unverified notes survive.
    refs = [r["ref"] for r in evidence(run_mem, project, "cache", "values")]
    assert refs == ["Cache shortcut", "Cache resolution"]
    third = record(project, "three", "Cache resolution", supersedes=[second, first])
    assert store_lines(project)[2]["supersedes"] == sorted([first, second])
    assert reasons(project) == ["superseded", "superseded", None]
    results = evidence(run_mem, project, "cache", "values")
    assert [(r["ref"], r["evidence"]["receiptIds"]) for r in results] == [
        ("Cache resolution", [third]),
        ("Cache shortcut", []),
    ]
    text = run_mem("outcomes", cwd=project).stdout
    assert text == f"{first}: superseded\n{second}: superseded\n{third}: accepted-current\n"


def test_re_observing_a_contradicted_section_stays_contradictory(
    project: Path, run_mem: RunMem
) -> None:
    first = record(project, "one", "Cache contract")
    record(project, "two", "Cache alternative", contradicts=[first])
    record(project, "three", "Cache contract")
    assert reasons(project) == ["contradictory"] * 3
    refs = [r["ref"] for r in evidence(run_mem, project, "cache", "values")]
    assert "Cache contract" not in refs and "Cache alternative" not in refs


def test_evidence_boosts_the_observed_note(project: Path, run_mem: RunMem) -> None:
    receipt = record(project, "one", "Cache contract")
    lexical = json.loads(run_mem("recall", "cache", "values", "--json", cwd=project).stdout)[
        "results"
    ]
    assert lexical[0]["ref"] == "Cache shortcut"
    contract = next(r for r in lexical if r["ref"] == "Cache contract")
    results = evidence(run_mem, project, "cache", "values")
    top = results[0]
    assert top["ref"] == "Cache contract"
    assert top["score"] == contract["score"] * 1.25
    assert top["lexicalScore"] == contract["score"]
    assert top["evidence"] == {
        "status": "accepted-current",
        "receiptIds": [receipt],
        "reward": 1,
        "boost": 0.25,
        "lessonCausality": "unmeasured",
    }
    assert list(top) == [
        "score",
        "kind",
        "source",
        "sourceFile",
        "ref",
        "text",
        "lexicalScore",
        "evidence",
    ]
    assert all(r["evidence"]["status"] == "unverified" for r in results[1:])
    assert "Billing export" not in [r["ref"] for r in results]
    outside = evidence(run_mem, project, "cache", "values", scope="other")
    assert [r["ref"] for r in outside] == [
        "Cache shortcut",
        "Cache alternative",
        "Cache resolution",
    ]


def test_the_limit_applies_after_evidence(project: Path, run_mem: RunMem) -> None:
    record(project, "one", "Cache contract")
    done = run_mem(
        "recall",
        "cache",
        "values",
        "--ranking",
        "evidence",
        "--context-scope",
        "work",
        "--limit",
        "1",
        "--json",
        cwd=project,
    )
    assert [r["ref"] for r in json.loads(done.stdout)["results"]] == ["Cache contract"]


def test_a_stale_artifact_drops_the_note_but_not_from_lexical_recall(
    project: Path, run_mem: RunMem
) -> None:
    record(project, "one", "Cache contract")
    (project / "work" / "result.txt").write_text("verified: false\n")
    assert reasons(project) == [f"unavailable-or-ineligible-source: {NOT_ACCEPTED}"]
    assert "Cache contract" not in [r["ref"] for r in evidence(run_mem, project, "cache", "values")]
    lexical = json.loads(run_mem("recall", "cache", "--json", cwd=project).stdout)["results"]
    assert "Cache contract" in [r["ref"] for r in lexical]


def test_an_edited_section_is_stale(project: Path, run_mem: RunMem) -> None:
    record(project, "one", "Cache contract")
    lessons = project / ".agents" / "memory" / "lessons.md"
    lessons.write_text(lessons.read_text().replace("zero cache values", "zero cache values!"))
    assert reasons(project) == ["stale-memory-section"]
    assert "Cache contract" not in [r["ref"] for r in evidence(run_mem, project, "cache", "values")]


def test_a_deleted_note_file_is_unavailable(project: Path) -> None:
    record(project, "one", "Cache contract")
    lessons = project / ".agents" / "memory" / "lessons.md"
    lessons.unlink()
    assert reasons(project) == [
        f"unavailable-or-ineligible-source: ENOENT: no such file or directory, stat '{lessons}'"
    ]


def test_a_removed_section_is_unavailable(project: Path) -> None:
    record(project, "one", "Cache contract")
    lessons = project / ".agents" / "memory" / "lessons.md"
    lessons.write_text(lessons.read_text().replace("### Cache contract", "### Cache contracts"))
    assert reasons(project) == [
        "unavailable-or-ineligible-source: Memory heading must identify exactly one section."
    ]


def test_a_deleted_run_file_is_unavailable(project: Path, run_mem: RunMem) -> None:
    record(project, "one", "Cache contract")
    path = run_path(project)
    path.unlink()
    assert reasons(project) == [
        f"unavailable-or-ineligible-source: ENOENT: no such file or directory, stat '{path}'"
    ]
    assert "Cache contract" not in [r["ref"] for r in evidence(run_mem, project, "cache", "values")]


def test_a_replaced_verifier_is_unavailable(project: Path) -> None:
    record(project, "one", "Cache contract")
    verifier = project / "checks" / "verify.sh"
    verifier.write_text(verifier.read_text() + "\n# edited\n")
    assert reasons(project) == [f"unavailable-or-ineligible-source: {NOT_ACCEPTED}"]


def test_a_nexus_lock_file_makes_receipts_unavailable(project: Path, run_mem: RunMem) -> None:
    receipt = record(project, "one", "Cache contract")
    (project / ".bmad-plus" / "nexus" / "writer.lock").write_text("")
    done = run_mem("outcomes", cwd=project)
    assert done.stdout == (
        f"{receipt}: unavailable-or-ineligible-source: Nexus state is being written or "
        "recovered; retry observation after its owner finishes.\n"
    )
    assert done.returncode == 0


def test_a_symlinked_agents_memory_breaks_evidence_recall_only(
    project: Path, tmp_path: Path, run_mem: RunMem
) -> None:
    record(project, "one", "Cache contract")
    moved = tmp_path / "moved-memory"
    shutil.move(project / ".agents" / "memory", moved)
    os.symlink(moved, project / ".agents" / "memory")
    done = run_mem(
        "recall", "cache", "--ranking", "evidence", "--context-scope", "work", cwd=project
    )
    assert done.stderr == "mem recall: Memory paths cannot follow symbolic links or junctions.\n"
    assert done.returncode == 1
    assert run_mem("recall", "cache", cwd=project).returncode == 0
    assert reasons(project) == [
        "unavailable-or-ineligible-source: Memory paths cannot follow symbolic links or junctions."
    ]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text.replace("Operator association", "Operator assertion"), INTEGRITY),
        # (the same line twice is one receipt, deviation D11: tests/test_git_merges.py)
        (lambda text: text.rstrip("\n"), "Outcome store has an incomplete final record."),
        (lambda text: text + "not json\n", None),
        (lambda text: text.replace('"schemaVersion":1', '"schemaVersion":2'), INTEGRITY),
    ],
)
def test_a_damaged_store_fails_closed(
    project: Path, run_mem: RunMem, damage: Any, message: str | None
) -> None:
    record(project, "one", "Cache contract")
    store(project).write_text(damage(store(project).read_text()))
    for args in (
        ["outcomes"],
        ["recall", "cache", "--ranking", "evidence", "--context-scope", "work"],
    ):
        done = run_mem(*args, cwd=project)
        assert done.returncode == 1
        if message is not None:
            assert done.stderr == f"mem {args[0]}: {message}\n"
        else:
            assert "not JSON" in done.stderr
    assert run_mem("recall", "cache", cwd=project).returncode == 0


def test_blank_lines_are_ignored(project: Path) -> None:
    record(project, "one", "Cache contract")
    store(project).write_text("\n" + store(project).read_text() + "  \n")
    assert reasons(project) == [None]


def test_relationships_must_point_backwards(project: Path) -> None:
    first = record(project, "one", "Cache contract")
    record(project, "two", "Cache alternative", supersedes=[first])
    lines = store(project).read_text().splitlines(keepends=True)
    store(project).write_text(lines[1] + lines[0])
    with pytest.raises(MemError, match="^Outcome relationships must identify earlier receipts.$"):
        outcome_receipts.inspect(str(project))


def test_one_attempt_may_not_have_two_receipts(project: Path) -> None:
    from mem.core.javascript import js
    from mem.core.rules import receipts

    record(project, "one", "Cache contract")
    [receipt] = store_lines(project)
    body = {key: value for key, value in receipt.items() if key != "id"}
    body["interpretation"] = "a second story for the same attempt"
    twin = js.stringify({"id": receipts.receipt_id(body), **body}) + "\n"
    store(project).write_text(store(project).read_text() + twin)
    with pytest.raises(MemError, match="^Duplicate or missing outcome attempt identity.$"):
        outcome_receipts.inspect(str(project))


def test_more_than_1000_records(project: Path) -> None:
    store(project).parent.mkdir(parents=True, exist_ok=True)
    store(project).write_text(synthetic_store(1001))
    with pytest.raises(MemError, match="^Outcome store exceeds 1000 records.$"):
        outcome_receipts.inspect(str(project))


def test_empty_store_and_no_store(project: Path, run_mem: RunMem) -> None:
    assert run_mem("outcomes", cwd=project).stdout == "mem outcomes: no observations.\n"
    store(project).parent.mkdir(parents=True, exist_ok=True)
    store(project).write_text("")
    done = run_mem("outcomes", "--json", cwd=project)
    assert json.loads(done.stdout) == {"count": 0, "results": []}


def test_receipts_table_for_audits(project: Path, run_mem: RunMem) -> None:
    first = record(project, "one", "Cache contract")
    second = record(project, "two", "Cache alternative", contradicts=[first])
    path = run_mem("index", "path", cwd=project).stdout.strip()
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT line, id, intact, memory_heading, run_id, contradicts, relationship"
            " FROM receipts ORDER BY line"
        ).fetchall()
    conn.close()
    assert rows == [
        (1, first, 1, "Cache contract", "one", "[]", "contradictory"),
        (2, second, 1, "Cache alternative", "two", json.dumps([first]), "contradictory"),
    ]
