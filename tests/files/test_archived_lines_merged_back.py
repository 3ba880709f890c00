"""Deviation D14: a store archived on one branch and appended to on another, then merged.

git brings the archived lines back into the live store (the `union` driver, or a person
keeping both sides of the conflict); they count in the archive only, for every archivable
store and every reader: the commands, `status` and the index.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from support import FIXTURES
from support.cli import RunMem
from support.demo import CACHE, RETRY
from support.git import GIT_ENV, git
from support.nexus import clone_run, relocated, write_observation

MEMORY = Path(".bmad/memory")
STORES = ["journal", "outcomes", "promotions", "evidence", "lifecycle"]
WAYS = ["union merge", "union rebase", "merge, both sides kept", "rebase, both sides kept"]


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def as_json(run_mem: RunMem, project: Path, *args: str) -> dict:  # type: ignore[type-arg]
    return json.loads(ok(run_mem(*args, "--json", cwd=project)).stdout)  # type: ignore[no-any-return]


# ---- one record on each branch, per store


def add_record(run_mem: RunMem, project: Path, store: str, which: int) -> None:
    """A record in `store`: which 0 is archived on main, which 1 is made on the branch."""
    memory = (CACHE, RETRY)[which]
    if store == "journal":
        args = ["write", "--agent", "forge", "--task", f"zebra {which}"]
    elif store == "outcomes":
        args = ["observe", "--input", write_observation(project, runId=("one", "two")[which])]
    elif store == "promotions":
        args = ["promote", memory, "--approve", "--by", "tester"]
    elif store == "evidence":
        args = ["evidence", "add", memory, "--source", "src/policy.py"]
    else:
        args = ["retract", memory, "--reason", f"wrong {which}"]
    ok(run_mem(*args, cwd=project, env={"MEM_NOW": f"2026-10-1{which + 1}T09:30:00.000Z"}))


def a_project(tmp_path: Path, run_mem: RunMem, store: str, union: bool) -> Path:
    """A git work tree with `mem init` done (and its .gitattributes kept only for `union`)."""
    if store == "outcomes":
        project = relocated("a-accepted", tmp_path)
        clone_run(project, "one", "two")  # a second accepted run: a second receipt
    else:
        project = tmp_path / "project"
        import shutil

        shutil.copytree(FIXTURES / "demo", project)
    git(project, "init", "-q", "-b", "main")
    git(project, "remote", "add", "origin", "git@GitHub.com:Org/Repo.git")
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "policy.py").write_text("VALUE = 1\n", encoding="utf-8")
    ok(run_mem("init", cwd=project))
    if not union:
        (project / ".gitattributes").unlink()
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "memory")
    return project


def keep_both_sides(path: Path) -> None:
    """What a person resolving an append-only file's conflict does: keep every line."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    markers = ("<<<<<<< ", ">>>>>>> ", "=======", "|||||||")
    path.write_text("".join(line for line in lines if not line.startswith(markers)))


def archive_on_main_append_on_a_branch(
    run_mem: RunMem, project: Path, store: str, way: str
) -> None:
    add_record(run_mem, project, store, 0)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first record")
    git(project, "checkout", "-q", "-b", "other")
    add_record(run_mem, project, store, 1)
    git(project, "commit", "-q", "-am", "second record")
    git(project, "checkout", "-q", "main")
    ok(run_mem("archive", store, "--approve", cwd=project))
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "archive")
    live = project / MEMORY / f"{store}.ndjson"
    rebase = "rebase" in way
    if rebase:
        git(project, "checkout", "-q", "other")
    command = ["rebase", "-q", "main"] if rebase else ["merge", "-q", "other", "-m", "merge"]
    done = subprocess.run(["git", "-C", str(project), *command], capture_output=True, text=True)
    if "union" in way:
        assert done.returncode == 0, done.stdout + done.stderr
    elif done.returncode:  # the conflict, resolved by keeping both sides
        keep_both_sides(live)
        git(project, "add", str(live))
        environment = {**os.environ, "GIT_EDITOR": "true"}
        next_step = ["rebase", "--continue"] if rebase else ["commit", "-q", "--no-edit"]
        subprocess.run(["git", "-C", str(project), *next_step], check=True, env=environment)
    assert "<<<<<<<" not in live.read_text()


def live_rows(run_mem: RunMem, project: Path, store: str) -> int:
    """How many rows the index holds for the live store (after a read synced it)."""
    ok(run_mem("recall", "zebra", cwd=project))
    path = ok(run_mem("index", "path", cwd=project)).stdout.strip()
    table = {
        "journal": "records",
        "outcomes": "receipts",
        "promotions": "promotions",
        "evidence": "evidence",
        "lifecycle": "lifecycle",
    }[store]
    with sqlite3.connect(path) as conn:
        (count,) = conn.execute(
            f"SELECT count(*) FROM {table} AS t JOIN files AS f ON f.id = t.file_id"
            " WHERE f.path = ?",
            (f"{MEMORY}/{store}.ndjson",),
        ).fetchone()
    return int(count)


def counted(run_mem: RunMem, project: Path, store: str) -> object:
    """What the store's own readers say, for the first (archived) and second record."""
    if store == "journal":
        found = as_json(run_mem, project, "recall", "zebra", "--include-archive")["results"]
        return sorted((entry["text"].split()[2], entry["source"]) for entry in found)
    if store == "outcomes":
        receipts = as_json(run_mem, project, "outcomes")["results"]
        status = as_json(run_mem, project, "status")["receipts"]["count"]
        return [receipt["source"]["runId"] for receipt in receipts], status
    if store == "promotions":
        refused = run_mem("promote", CACHE, "--approve", "--by", "tester", cwd=project)
        return refused.returncode, "already promoted" in refused.stderr
    if store == "evidence":
        return [as_json(run_mem, project, "evidence", "list", m)["count"] for m in (CACHE, RETRY)]
    memories = as_json(run_mem, project, "context")["memories"]
    return sorted((m["id"] == CACHE, m["status"]) for m in memories if m["id"] in (CACHE, RETRY))


EXPECTED: dict[str, Callable[[str], object]] = {
    # the archived event once (from its archive), the new one once (live)
    "journal": lambda archive: [("0", archive), ("1", "journal.ndjson")],
    "outcomes": lambda _: (["two"], 1),
    # the archived promotion happened all the same: the memory is not promoted twice
    "promotions": lambda _: (1, True),
    "evidence": lambda _: [0, 1],
    # the archived retraction no longer applies, as on main right after the archive
    "lifecycle": lambda _: [(False, "retracted"), (True, "active")],
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("store", STORES)
def test_archived_lines_a_merge_brings_back_count_in_the_archive_only(
    tmp_path: Path, run_mem: RunMem, store: str, way: str
) -> None:
    project = a_project(tmp_path, run_mem, store, union="union" in way)
    archive_on_main_append_on_a_branch(run_mem, project, store, way)
    live = (project / MEMORY / f"{store}.ndjson").read_text().splitlines()
    (archive,) = os.listdir(project / MEMORY / "archive")
    archived = (project / MEMORY / "archive" / archive).read_text().splitlines()
    # git brought the archived lines back: the live store holds them and the new one
    assert len(live) == len(archived) + 1 and set(archived) < set(live)

    assert counted(run_mem, project, store) == EXPECTED[store](archive)
    assert live_rows(run_mem, project, store) == 1
    check = as_json(run_mem, project, "index", "check")
    assert check["ok"], check["differences"]
    finding = {"store": store, "file": f"{MEMORY}/{store}.ndjson", "lines": len(archived)}
    assert check["archivedLines"] == [finding]
    assert as_json(run_mem, project, "status")["findings"]["archivedLines"] == [finding]
    text = ok(run_mem("status", cwd=project)).stdout
    assert f"{MEMORY}/{store}.ndjson: {len(archived)} line(s) also in its archives" in text


def test_an_archive_removed_gives_its_lines_back_to_the_live_journal(
    project: Path, run_mem: RunMem
) -> None:
    ok(run_mem("write", "--agent", "forge", "--task", "zebra kept", cwd=project))
    journal = project / MEMORY / "journal.ndjson"
    before = journal.read_text()
    ok(run_mem("archive", "journal", "--approve", cwd=project))
    journal.write_text(before)  # as a merge would bring the lines back
    assert as_json(run_mem, project, "recall", "zebra")["results"] == []
    for archive in (project / MEMORY / "archive").iterdir():
        archive.unlink()
    assert [
        entry["source"] for entry in as_json(run_mem, project, "recall", "zebra")["results"]
    ] == ["journal.ndjson"]
    assert as_json(run_mem, project, "index", "check")["ok"]


def test_two_archives_of_one_span_count_each_line_once(project: Path, run_mem: RunMem) -> None:
    """Two branches that both archived: each event once, from the older archive name."""
    ok(run_mem("write", "--agent", "forge", "--task", "zebra twice", cwd=project))
    journal = project / MEMORY / "journal.ndjson"
    before = journal.read_text()
    ok(run_mem("archive", "journal", "--approve", cwd=project))
    journal.write_text(before)
    ok(run_mem("archive", "journal", "--approve", cwd=project))  # same span: a -2 name
    found = as_json(run_mem, project, "recall", "zebra", "--include-archive")["results"]
    assert len(found) == 1
    assert as_json(run_mem, project, "index", "check")["ok"]
