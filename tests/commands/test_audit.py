"""`mem audit`: statuses, reasons and order, and that it writes nothing at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.demo import CACHE, LESSONS, evidence_args, record_cache_evidence
from support.git import git
from support.trees import stat_tree

from mem.domain import memories

DECISIONS = ".agents/memory/decisions.md"


def _audit(run_mem: RunMem, project: Path, *args: str) -> dict[str, object]:
    done = run_mem("audit", *args, "--json", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _sources(result: dict[str, object]) -> dict[str, tuple[str, str | None]]:
    return {s["path"]: (s["status"], s["reason"]) for s in result["sources"]}  # type: ignore[index,attr-defined]


def test_each_status_and_reason(git_project: Path, run_mem: RunMem, isolated_env: Path) -> None:
    src = git_project / "src"
    (src / "stable.py").write_text("stable\n", encoding="utf-8")
    added = run_mem(
        *evidence_args(CACHE, "src/policy.py", "src/limits.py", "src/retry.py", "src/stable.py"),
        cwd=git_project,
    )
    assert added.returncode == 0, added.stderr

    untouched = _audit(run_mem, git_project, CACHE)
    assert untouched["count"] == 1
    assert untouched["results"][0]["status"] == "unchanged"  # type: ignore[index]

    (src / "policy.py").write_text("# policy.py\nVALUE = 2\n", encoding="utf-8")  # same size
    (src / "limits.py").unlink()
    (src / "retry.py").unlink()
    (src / "retry.py").symlink_to("stable.py")
    result = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert result["memory"]["id"] == CACHE and result["status"] == "missing"
    assert _sources(result) == {
        "src/limits.py": ("missing", "does not exist"),
        "src/policy.py": ("changed", "differs from the record (same size, different SHA-256)"),
        "src/retry.py": ("inconclusive", "is a symbolic link"),
        "src/stable.py": ("unchanged", None),
    }
    policy = next(s for s in result["sources"] if s["path"] == "src/policy.py")
    assert (
        policy["currentSha256"] != policy["recordedSha256"] and len(policy["currentSha256"]) == 64
    )

    text = run_mem("audit", CACHE, cwd=git_project).stdout
    assert text == (
        f"missing  {CACHE}  {LESSONS} § Cache contract\n"
        "  missing  src/limits.py: does not exist\n"
        "  changed  src/policy.py: differs from the record (same size, different SHA-256)\n"
        "  inconclusive  src/retry.py: is a symbolic link\n"
    )

    (src / "policy.py").write_text("longer than before\n" * 3, encoding="utf-8")
    git(git_project, "remote", "set-url", "origin", "git@github.com:Org/Fork.git")
    moved = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert moved["status"] == "inconclusive"
    assert {status for status, _ in _sources(moved).values()} == {"inconclusive"}
    reason = (
        "repository identity differs: recorded github.com/Org/Repo, checkout github.com/Org/Fork"
    )
    assert _sources(moved)["src/stable.py"] == ("inconclusive", reason)

    git(git_project, "remote", "set-url", "origin", "https://GitHub.com/Org/Repo")
    back = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert _sources(back)["src/policy.py"] == (
        "changed",
        "differs from the record (size 22 -> 57 bytes)",
    )

    lessons = git_project / LESSONS
    lessons.write_text(
        lessons.read_text(encoding="utf-8").replace("zero cache values", "zero cache values only"),
        encoding="utf-8",
    )
    revised = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert revised["status"] == "unknown" and revised["sources"] == []
    assert run_mem("audit", CACHE, cwd=git_project).stdout == (
        f"unknown  {CACHE}  {LESSONS} § Cache contract\n"
        "  no evidence for the current revision (4 record(s) for earlier revisions)\n"
    )
    assert not (isolated_env / "cache").exists(), "audit must not build an index cache"


def test_directory_and_oversized_sources_are_inconclusive(
    git_project: Path, run_mem: RunMem
) -> None:
    record_cache_evidence(run_mem, git_project)
    (git_project / "src/policy.py").unlink()
    (git_project / "src/policy.py").mkdir()
    (git_project / "src/limits.py").write_bytes(b"x" * (1024 * 1024 + 5))
    result = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert _sources(result) == {
        "src/limits.py": ("inconclusive", "is larger than 1 MiB (1048581 bytes)"),
        "src/policy.py": ("inconclusive", "is a directory"),
    }
    (git_project / ".git").rename(git_project / "git-moved")
    gone = _audit(run_mem, git_project, CACHE)["results"][0]  # type: ignore[index]
    assert {status for status, _ in _sources(gone).values()} == {"inconclusive"}
    assert "repository identity is not provable" in str(_sources(gone)["src/policy.py"][1])


def test_audit_writes_nothing(git_project: Path, run_mem: RunMem, isolated_env: Path) -> None:
    record_cache_evidence(run_mem, git_project)
    (git_project / "src/policy.py").write_text("edited\n", encoding="utf-8")
    (git_project / "src/limits.py").unlink()
    before = stat_tree(git_project)
    for args in ((), (CACHE,), ("--json",), (CACHE, "--json"), ("--limit", "1")):
        done = run_mem("audit", *args, cwd=git_project)
        assert done.returncode == 0, done.stderr
    assert stat_tree(git_project) == before
    assert not (isolated_env / "cache").exists()
    assert not (git_project / ".bmad/memory/writer.lock").exists()


def test_order_and_limit(git_project: Path, run_mem: RunMem) -> None:
    src = git_project / "src"
    for name in ("a", "b", "c", "d", "e"):
        (src / f"{name}.txt").write_text(name, encoding="utf-8")
    ids = {}
    for file, heading, source in (
        (LESSONS, "Retry budget", "a"),  # stays unchanged
        (DECISIONS, "2026-06-02 — Postgres connection pooling", "b"),  # changed
        (LESSONS, "Hetzner firewall first", "c"),  # missing
        (LESSONS, "Cache contract", "d"),  # revised: unknown
        (DECISIONS, "2026-06-01 — Use BullMQ for job queues", "e"),  # inconclusive (symlink)
    ):
        ids[source] = memories.memory_id(file, heading)
        done = run_mem(
            "evidence", "add", ids[source], "--source", f"src/{source}.txt", cwd=git_project
        )
        assert done.returncode == 0, done.stderr
    (src / "b.txt").write_text("bb", encoding="utf-8")
    (src / "c.txt").unlink()
    (src / "e.txt").unlink()
    (src / "e.txt").symlink_to("a.txt")
    lessons = git_project / LESSONS
    lessons.write_text(
        lessons.read_text(encoding="utf-8").replace("zero cache", "zero-value cache"),
        encoding="utf-8",
    )

    everything = _audit(run_mem, git_project)
    assert everything["count"] == 5
    order = [(r["status"], r["memory"]["id"]) for r in everything["results"]]  # type: ignore[index]
    assert order == [
        ("missing", ids["c"]),
        ("changed", ids["b"]),
        ("inconclusive", ids["e"]),
        ("unknown", ids["d"]),
        ("unchanged", ids["a"]),
    ]
    limited = run_mem("audit", "--limit", "2", cwd=git_project).stdout.splitlines()
    assert limited[0].startswith(f"missing  {ids['c']}")
    assert limited[-1] == "mem audit: showing 2 of 5 memories with evidence (--limit)"
    assert _audit(run_mem, git_project, "--limit", "1000")["count"] == 5
    for bad in ("0", "1001", "abc", "-1", "1.5"):
        done = run_mem("audit", "--limit", bad, cwd=git_project)
        assert done.returncode == 1
        assert done.stderr == "mem audit: --limit must be an integer from 1 to 1000\n"


def test_no_evidence(project: Path, run_mem: RunMem) -> None:
    assert run_mem("audit", cwd=project).stdout == "mem audit: no memories have evidence.\n"
    assert json.loads(run_mem("audit", "--json", cwd=project).stdout) == {"count": 0, "results": []}
    one = _audit(run_mem, project, CACHE)
    assert one["results"][0]["status"] == "unknown"  # type: ignore[index]
    unknown = run_mem("audit", "mem_00000000000000000000", cwd=project)
    assert unknown.returncode == 1
    assert unknown.stderr == "mem audit: Unknown memory id: mem_00000000000000000000\n"


@pytest.mark.parametrize("args", [(), (CACHE,)])
def test_exit_zero_whatever_the_status(
    git_project: Path, run_mem: RunMem, args: tuple[str, ...]
) -> None:
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    (git_project / "src/policy.py").unlink()
    assert run_mem("audit", *args, cwd=git_project).returncode == 0
