"""`mem evidence add` and `mem evidence list` through the real console script."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from support.cli import RunMem
from support.demo import CACHE, LESSONS, RETRY, evidence_args
from support.git import git

from mem.core.javascript import js
from mem.domain import memories

STORE = Path(".bmad/memory/evidence.ndjson")


def _records(project: Path) -> list[dict[str, object]]:
    path = project / STORE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_add_records_hashes_with_the_contract_layout(git_project: Path, run_mem: RunMem) -> None:
    done = run_mem(
        *evidence_args(CACHE, "src/policy.py", "./src//limits.py"),
        cwd=git_project,
    )
    assert done.returncode == 0, done.stderr
    revision = memories.load(str(git_project))[3].revision
    assert done.stdout == (
        f"mem evidence: src/policy.py recorded for {CACHE} (revision {revision[:12]})\n"
        f"mem evidence: src/limits.py recorded for {CACHE} (revision {revision[:12]})\n"
    )
    records = _records(git_project)
    assert [list(record) for record in records] == [
        ["id", "schemaVersion", "kind", "ts", "memory", "repo", "source", "batch"]
    ] * 2
    first = records[0]
    assert first["kind"] == "memory-evidence" and first["schemaVersion"] == 1
    assert first["ts"] == "2026-10-18T09:30:00.000Z"
    assert first["memory"] == {
        "id": CACHE,
        "file": LESSONS,
        "heading": "Cache contract",
        "revision": revision,
    }
    assert first["repo"] == "github.com/Org/Repo"
    data = (git_project / "src/policy.py").read_bytes()
    assert first["source"] == {
        "path": "src/policy.py",
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }
    assert records[0]["batch"] == records[1]["batch"]
    body = {key: value for key, value in first.items() if key != "id"}
    assert first["id"] == hashlib.sha256(js.stringify(body).encode()).hexdigest()
    # neither content nor an absolute path is stored
    raw = (git_project / STORE).read_text(encoding="utf-8")
    assert str(git_project) not in raw and "VALUE = 1" not in raw


def test_re_adding_an_unchanged_source_writes_nothing(git_project: Path, run_mem: RunMem) -> None:
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    before = (git_project / STORE).read_bytes()
    again = run_mem(
        "evidence", "add", CACHE, "--source", "src/policy.py", "--json", cwd=git_project
    )
    assert again.returncode == 0
    assert (git_project / STORE).read_bytes() == before
    reply = json.loads(again.stdout)
    assert reply["written"] == [] and [r["source"]["path"] for r in reply["unchanged"]] == [
        "src/policy.py"
    ]
    text = run_mem(
        *evidence_args(CACHE, "src/policy.py", "src/retry.py"),
        cwd=git_project,
    )
    assert "src/policy.py already recorded for" in text.stdout
    assert "src/retry.py recorded for" in text.stdout
    (git_project / "src/policy.py").write_text("changed\n", encoding="utf-8")
    changed = run_mem(
        "evidence", "add", CACHE, "--source", "src/policy.py", "--json", cwd=git_project
    )
    assert len(json.loads(changed.stdout)["written"]) == 1
    assert len(_records(git_project)) == 3


def test_refusals_name_each_path_and_write_nothing(git_project: Path, run_mem: RunMem) -> None:
    (git_project / "src/big.bin").write_bytes(b"x" * (1024 * 1024 + 1))
    (git_project / "src/link.py").symlink_to("policy.py")
    (git_project / "linked").symlink_to("src")
    exact = git_project / "src/exact.bin"
    exact.write_bytes(b"x" * 1024 * 1024)
    done = run_mem(
        *evidence_args(
            CACHE,
            "src/policy.py",
            "../outside.py",
            "/etc/passwd",
            ".git/config",
            "src/missing.py",
            "src",
            "src/big.bin",
            "src/link.py",
            "linked/policy.py",
        ),
        cwd=git_project,
    )
    assert done.returncode == 1 and done.stdout == ""
    message = done.stderr
    assert message.startswith("mem evidence: Evidence not recorded (nothing was written): ")
    for expected in (
        "../outside.py: must be a relative path",
        "/etc/passwd: must be a relative path",
        ".git/config: must be a relative path",
        "src/missing.py: does not exist",
        "src: is a directory",
        "src/big.bin: is larger than 1 MiB (1048577 bytes)",
        "src/link.py: is a symbolic link",
        "linked/policy.py: passes through the symbolic link linked",
    ):
        assert expected in message
    assert "src/policy.py" not in message
    assert not (git_project / STORE).exists()
    ok = run_mem("evidence", "add", CACHE, "--source", "src/exact.bin", cwd=git_project)
    assert ok.returncode == 0, ok.stderr


def test_fifty_sources_per_call_and_per_revision(git_project: Path, run_mem: RunMem) -> None:
    for number in range(52):
        (git_project / "src" / f"f{number}.txt").write_text(str(number), encoding="utf-8")
    too_many = [arg for n in range(51) for arg in ("--source", f"src/f{n}.txt")]
    done = run_mem("evidence", "add", CACHE, *too_many, cwd=git_project)
    assert done.returncode == 1 and "At most 50 --source paths per call (51 given)." in done.stderr
    fifty = [arg for n in range(50) for arg in ("--source", f"src/f{n}.txt")]
    assert run_mem("evidence", "add", CACHE, *fifty, cwd=git_project).returncode == 0
    over = run_mem("evidence", "add", CACHE, "--source", "src/f51.txt", "--json", cwd=git_project)
    assert over.returncode == 1
    assert json.loads(over.stdout) == {
        "error": f"Memory {CACHE} would rest on 51 source paths at this revision;"
        " at most 50 are allowed."
    }
    assert len(_records(git_project)) == 50
    none = run_mem("evidence", "add", CACHE, cwd=git_project)
    assert none.returncode == 1 and "At least one --source is required" in none.stderr


def test_identity_must_be_provable(git_project: Path, run_mem: RunMem, tmp_path: Path) -> None:
    git(git_project, "remote", "add", "upstream", "git@github.com:Other/Repo.git")
    git(git_project, "remote", "remove", "origin")
    git(git_project, "remote", "add", "fork", "git@github.com:Me/Repo.git")
    done = run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    assert done.returncode == 1
    assert done.stderr == (
        "mem evidence: Repository identity is not provable: "
        "configure exactly one remote or an origin remote.\n"
    )
    # A folder named like the repository proves nothing either.
    plain = tmp_path / "Repo"
    (plain / "src").mkdir(parents=True)
    (plain / "src/policy.py").write_text("x", encoding="utf-8")
    outside = run_mem(
        "evidence", "add", CACHE, "--source", "src/policy.py", "--root", str(plain), cwd=git_project
    )
    assert outside.returncode == 1 and "is not the top level of a git work tree" in outside.stderr
    sub = run_mem(
        *evidence_args(CACHE, "policy.py"),
        "--root",
        str(git_project / "src"),
        cwd=git_project,
    )
    assert sub.returncode == 1 and "is not the top level of a git work tree" in sub.stderr
    assert not (git_project / STORE).exists()


def test_root_can_be_another_work_tree(git_project: Path, run_mem: RunMem, tmp_path: Path) -> None:
    other = tmp_path / "service"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "remote", "add", "origin", "https://tok@gitlab.com/Team/Service.git")
    (other / "main.go").write_text("package main\n", encoding="utf-8")
    done = run_mem(
        *evidence_args(RETRY, "main.go"),
        "--root",
        str(other),
        "--json",
        cwd=git_project,
    )
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["written"][0]["repo"] == "gitlab.com/Team/Service"


def test_unknown_and_prefix_ids(git_project: Path, run_mem: RunMem) -> None:
    write = run_mem("evidence", "add", CACHE[:10], "--source", "src/policy.py", cwd=git_project)
    assert write.returncode == 1
    assert write.stderr == f"mem evidence: Unknown memory id: {CACHE[:10]}\n"
    read = run_mem("evidence", "list", CACHE[:10], cwd=git_project)
    assert read.returncode == 1 and CACHE in read.stderr


def test_list_marks_current_records(git_project: Path, run_mem: RunMem) -> None:
    empty = run_mem("evidence", "list", CACHE, cwd=git_project)
    assert empty.stdout == f"mem evidence: no records for {CACHE} ({LESSONS} § Cache contract)\n"
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    run_mem("evidence", "add", RETRY, "--source", "src/retry.py", cwd=git_project)
    lessons = git_project / LESSONS
    lessons.write_text(
        lessons.read_text(encoding="utf-8").replace(
            "Preserve false and zero cache values.", "Preserve false, zero and empty cache values."
        ),
        encoding="utf-8",
    )
    run_mem("evidence", "add", CACHE, "--source", "src/limits.py", cwd=git_project)
    listed = json.loads(run_mem("evidence", "list", CACHE, "--json", cwd=git_project).stdout)
    assert listed["count"] == 2
    assert [(r["source"]["path"], r["current"]) for r in listed["results"]] == [
        ("src/policy.py", False),
        ("src/limits.py", True),
    ]
    text = run_mem("evidence", "list", CACHE, cwd=git_project).stdout
    assert text.startswith(f"mem evidence: 2 record(s) for {CACHE}")
    assert "(older revision)" in text and "(current)" in text


def test_a_corrupt_store_fails_closed(git_project: Path, run_mem: RunMem) -> None:
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    store = git_project / STORE
    store.write_text(
        store.read_text(encoding="utf-8").replace("src/policy.py", "src/other.py"), encoding="utf-8"
    )
    done = run_mem("audit", cwd=git_project)
    assert done.returncode == 1
    assert done.stderr == "mem audit: Evidence record integrity check failed at line 1.\n"
    store.write_text('{"torn', encoding="utf-8")
    torn = run_mem("evidence", "list", CACHE, cwd=git_project)
    assert torn.stderr == "mem evidence: Evidence store has an incomplete final record.\n"
    assert os.path.getsize(store) == 6
