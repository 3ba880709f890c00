"""Deviation D11: journals that merge with git.

`mem init` asks git for the union merge driver on the NDJSON stores; a line that a merge
leaves twice counts once everywhere; different lines sharing an id are reported; and no
writer appends to a store that still holds conflict markers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support import FIXTURES
from support.cli import RunMem, answers, runs_in_one_process, write_args
from support.git import GIT_ENV, git
from support.nexus import relocated, write_observation

STORES = [
    ".bmad/memory/journal.ndjson",
    ".bmad/memory/outcomes.ndjson",
    ".bmad/memory/promotions.ndjson",
    ".bmad/memory/evidence.ndjson",
    ".bmad/memory/lifecycle.ndjson",
]
UNION_LINES = "".join(f"{store} merge=union\n" for store in STORES)
CONFLICTED = "Memory store has unresolved merge conflict markers; resolve them before writing."
JOURNAL = Path(".bmad/memory/journal.ndjson")


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def recall_refs(run_mem: RunMem, project: Path, *words: str) -> list[str]:
    done = ok(run_mem("recall", *words, "--limit", "1000", "--json", cwd=project))
    return [entry["ref"] for entry in json.loads(done.stdout)["results"]]


# ---- .gitattributes


def test_init_appends_the_missing_union_lines_and_never_rewrites(
    project: Path, run_mem: RunMem
) -> None:
    attributes = project / ".gitattributes"
    attributes.write_text("*.png binary\n.bmad/memory/outcomes.ndjson   merge=union")
    done = ok(run_mem("init", "--json", cwd=project))
    added = [line for line in UNION_LINES.splitlines() if "outcomes" not in line]
    assert json.loads(done.stdout)["gitattributes"] == added
    assert attributes.read_text() == (
        "*.png binary\n.bmad/memory/outcomes.ndjson   merge=union\n" + "\n".join(added) + "\n"
    )
    before = attributes.read_bytes()
    assert json.loads(ok(run_mem("init", "--json", cwd=project)).stdout)["gitattributes"] == []
    assert attributes.read_bytes() == before


def test_init_creates_gitattributes_when_there_is_none(project: Path, run_mem: RunMem) -> None:
    done = ok(run_mem("init", cwd=project))
    assert (project / ".gitattributes").read_text() == UNION_LINES
    assert "  added    .gitattributes: .bmad/memory/journal.ndjson merge=union\n" in done.stdout


# ---- identical lines count once


def test_a_concatenated_journal_lists_each_event_once(project: Path, run_mem: RunMem) -> None:
    for task in ("zebra one", "zebra two"):
        ok(run_mem("write", "--agent", "forge", "--task", task, cwd=project))
    before = recall_refs(run_mem, project, "zebra")
    assert len(before) == 2
    journal = project / JOURNAL
    journal.write_text(journal.read_text() * 2)  # a resolution that kept both sides whole
    assert recall_refs(run_mem, project, "zebra") == before
    assert ok(run_mem("index", "check", cwd=project)).stdout.startswith("mem index check: ok")
    path = ok(run_mem("index", "path", cwd=project)).stdout.strip()
    import sqlite3

    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE text LIKE '%zebra%'").fetchone() == (
            2,
        )
    ok(run_mem("write", "--agent", "forge", "--task", "zebra three", cwd=project))
    assert len(recall_refs(run_mem, project, "zebra")) == 3


def test_a_duplicated_receipt_counts_once(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("a-accepted", tmp_path)
    ok(run_mem("observe", "--input", write_observation(project), cwd=project))
    store = project / ".bmad/memory/outcomes.ndjson"
    store.write_text(store.read_text() * 3)
    listed = ok(run_mem("outcomes", cwd=project)).stdout
    assert listed.count(": accepted-current") == 1
    status = json.loads(ok(run_mem("status", "--json", cwd=project)).stdout)
    assert status["receipts"]["count"] == 1
    done = run_mem("observe", "--input", write_observation(project), cwd=project)
    assert "Duplicate outcome" in done.stderr  # the attempt is known once, and still refused


def test_different_lines_sharing_an_id_are_reported(project: Path, run_mem: RunMem) -> None:
    for ci in ("pass", "fail"):  # same instant, agent and task: one id, two different lines
        ok(run_mem("write", "--agent", "forge", "--task", "twin", "--ci", ci, cwd=project))
    lines = (project / JOURNAL).read_text().splitlines()
    event_id = json.loads(lines[-1])["id"]
    numbers = f"{len(lines) - 1}, {len(lines)}"
    expected = f"  .bmad/memory/journal.ndjson: id {event_id} on different lines {numbers}\n"
    check = ok(run_mem("index", "check", cwd=project))
    assert expected in check.stdout
    assert expected in ok(run_mem("status", cwd=project)).stdout
    shared = json.loads(ok(run_mem("status", "--json", cwd=project)).stdout)["findings"]
    assert shared["sharedIds"] == [
        {
            "file": ".bmad/memory/journal.ndjson",
            "id": event_id,
            "lines": [len(lines) - 1, len(lines)],
        }
    ]
    assert recall_refs(run_mem, project, "twin") == [event_id, event_id]


# ---- conflict markers


def conflicted(text: str) -> str:
    return f"{text}<<<<<<< HEAD\n{text.splitlines()[0]}\n=======\n{{}}\n>>>>>>> theirs\n"


def test_no_writer_appends_to_a_conflicted_store(project: Path, run_mem: RunMem) -> None:
    memory = project / ".bmad/memory"
    journal = memory / "journal.ndjson"
    journal.write_text(conflicted(journal.read_text()))
    lifecycle = memory / "lifecycle.ndjson"
    lifecycle.write_text("<<<<<<< ours\n=======\n>>>>>>> theirs\n")
    promotions = memory / "promotions.ndjson"
    promotions.write_text("<<<<<<< ours\n=======\n>>>>>>> theirs\n")
    before = {path.name: path.read_bytes() for path in memory.iterdir()}
    from mem.domain import memories

    retry = memories.memory_id(".agents/memory/lessons.md", "Retry budget")
    for args in (("write", "--agent", "forge", "--task", "t"), ("retract", retry, "--reason", "r")):
        done = run_mem(*args, cwd=project)
        assert (done.returncode, done.stderr) == (1, f"mem {args[0]}: {CONFLICTED}\n"), args
    done = run_mem("write", "--agent", "forge", "--json", cwd=project)
    assert done.stdout == json.dumps({"error": CONFLICTED}, separators=(",", ":")) + "\n"
    for _ in range(2):
        ok(
            run_mem(
                "reinforce", "--pattern", "chromadb batch ingestion", "--ci", "pass", cwd=project
            )
        )
    done = run_mem(
        "reinforce", "--pattern", "chromadb batch ingestion", "--ci", "pass", cwd=project
    )
    assert (done.returncode, done.stderr) == (1, f"mem reinforce: {CONFLICTED}\n")
    after = {path.name: path.read_bytes() for path in memory.iterdir()}
    assert json.loads(after.pop("pattern-scores.json"))["chromadb batch ingestion"]["updates"] == 2
    assert after == before
    assert ok(run_mem("recall", "postgres", cwd=project)).stdout  # readers go on


# ---- two clones, one journal


def clone(origin: Path, target: Path) -> Path:
    subprocess.run(
        ["git", "clone", "-q", str(origin), str(target)], check=True, capture_output=True
    )
    return target


def write_many(project: Path, agent: str, count: int) -> None:
    """count writes, by three writer processes of their own at once."""
    writers = [
        runs_in_one_process(
            [
                {
                    "args": write_args(agent, f"concurrent {agent} {number}"),
                    "cwd": str(project),
                    "env": {"MEM_NOW": f"2026-10-18T09:{number // 60:02d}:{number % 60:02d}.000Z"},
                }
                for number in range(first, count, 3)
            ]
        )
        for first in range(3)
    ]
    for writer in writers:
        for code, _, stderr in answers(writer):
            assert code == 0, stderr


def test_two_clones_appending_concurrently_merge_without_loss_or_duplicates(
    tmp_path: Path, run_mem: RunMem, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    seed = tmp_path / "seed"
    shutil.copytree(FIXTURES / "demo", seed)
    git(seed, "init", "-q", "-b", "main")
    ok(run_mem("init", cwd=seed))
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "memory")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(origin)], check=True)
    alice = clone(origin, tmp_path / "alice")
    bob = clone(origin, tmp_path / "bob")

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda args: write_many(*args), [(alice, "alice", 12), (bob, "bob", 12)]))
    for person in (alice, bob):
        git(person, "commit", "-q", "-am", f"work of {person.name}")
    git(alice, "push", "-q", "origin", "main")
    git(bob, "pull", "-q", "--no-rebase", "origin", "main")  # the union driver: no conflict
    journal = (bob / JOURNAL).read_text()
    assert "<<<<<<<" not in journal
    found = recall_refs(run_mem, bob, "concurrent")
    assert len(found) == len(set(found)) == 24
    tasks = [json.loads(line)["task"] for line in journal.splitlines() if "concurrent" in line]
    assert sorted(tasks) == sorted(
        f"concurrent {agent} {number}" for agent in ("alice", "bob") for number in range(12)
    )
    git(bob, "push", "-q", "origin", "main")
    git(alice, "pull", "-q", "--no-rebase", "origin", "main")
    assert sorted(recall_refs(run_mem, alice, "concurrent")) == sorted(found)
    assert os.listdir(alice / ".bmad/memory") == os.listdir(bob / ".bmad/memory")
