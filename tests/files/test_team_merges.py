"""Deviation D13: in team layout, memory merges without a conflict on every merge path.

Two clones and four branches each write events, receipts, evidence, lifecycle records,
reinforcements and promotions through `mem`; a plain `git merge` (no .gitattributes),
`git merge-tree --write-tree`, a rebase and a cherry-pick bring them together with no
conflict, and recall, outcomes, patterns and status answer the union of what was written,
nothing twice.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.cli import RunMem
from support.git import GIT_ENV, clone, commit_all, git, merge_tree, tracked
from support.nexus import relocated, write_observation

SETTINGS = Path(".agents/memory/mem.toml")
MEMORY = (".bmad", ".agents")


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def out(run_mem: RunMem, project: Path, *args: str) -> Any:
    return json.loads(ok(run_mem(*args, "--json", cwd=project)).stdout)


def memory_ids(run_mem: RunMem, project: Path) -> dict[str, str]:
    return {m["heading"]: m["id"] for m in out(run_mem, project, "context")["memories"]}


def no_conflicts(project: Path) -> None:
    for top in MEMORY:
        for folder, _, names in os.walk(project / top):
            for name in names:
                text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
                assert "<<<<<<<" not in text and ">>>>>>>" not in text, name


class Written:
    """What the branches wrote, as a user would list it."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.notes: list[str] = []
        self.reinforcements = 0


def add_note(run_mem: RunMem, project: Path, written: Written, kind: str, title: str) -> None:
    text = f"- **Context**: merged note {title}."
    done = run_mem(
        "note", "add", kind, "--title", title, "--stdin", "--json", cwd=project, input=text
    )
    written.notes.append(json.loads(ok(done).stdout)["id"])


def write_events(run_mem: RunMem, project: Path, written: Written, branch: str, n: int) -> None:
    for number in range(len(written.events), len(written.events) + n):
        done = out(
            run_mem, project, "write", "--agent", branch, "--task", f"merged {branch} {number}"
        )
        written.events.append(done["written"]["id"])


def reinforce(run_mem: RunMem, project: Path, written: Written, times: int) -> None:
    for _ in range(times):
        args = ("--pattern", "Result artifact contract", "--eval", "0.95", "--ci", "pass")
        now = {"MEM_NOW": f"{os.environ['MEM_NOW'][:10]}T10:00:{written.reinforcements:02d}Z"}
        args += ("--accept", "true", "--evidence", "e")
        ok(run_mem("reinforce", *args, cwd=project, env=now))
        written.reinforcements += 1


@pytest.fixture
def clones(tmp_path: Path, run_mem: RunMem, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Clone A (the Nexus fixture, where its run is) and clone B, both of one origin."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    alice = relocated("a-accepted", tmp_path)
    (alice / SETTINGS).write_text('layout = "team"\n')
    git(alice, "init", "-q", "-b", "main")
    commit_all(alice, "project")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(alice), str(origin)], check=True)
    bob = clone(origin, tmp_path / "bob")
    git(bob, "remote", "rename", "origin", "hub")
    git(alice, "remote", "add", "hub", str(origin))
    git(alice, "fetch", "-q", "hub")
    for person in (alice, bob):  # what evidence names the repository by
        git(person, "remote", "add", "origin", "git@GitHub.com:Org/Repo.git")
    return alice, bob


def test_four_branches_of_two_clones_merge_every_way_without_conflict(
    clones: tuple[Path, Path], run_mem: RunMem, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = clones
    ids = memory_ids(run_mem, alice)
    written = Written()
    monkeypatch.setenv("MEM_NOW", "2026-12-01T09:00:00.000Z")

    git(alice, "checkout", "-q", "-b", "a1", "main")  # merged with a plain git merge
    write_events(run_mem, alice, written, "a1", 3)
    ok(run_mem("observe", "--input", write_observation(alice), cwd=alice))
    os.unlink(alice / "obs.json")
    evidence = ("evidence", "add", ids["Verified artifacts only"], "--source", "checks/verify.sh")
    ok(run_mem(*evidence, cwd=alice))
    reinforce(run_mem, alice, written, 6)  # the sixth proposes a promotion
    add_note(run_mem, alice, written, "decision", "Alpha choice")
    commit_all(alice, "a1")

    monkeypatch.setenv("MEM_NOW", "2026-12-02T09:00:00.000Z")
    git(alice, "checkout", "-q", "-b", "a2", "main")  # merged by git merge-tree --write-tree
    write_events(run_mem, alice, written, "a2", 2)
    ok(run_mem("retract", ids["Chained evidence"], "--reason", "Wrong", cwd=alice))
    reinforce(run_mem, alice, written, 2)
    add_note(run_mem, alice, written, "pattern", "Alpha shape")
    commit_all(alice, "a2")

    monkeypatch.setenv("MEM_NOW", "2026-12-03T09:00:00.000Z")
    git(bob, "checkout", "-q", "-b", "b1", "main")  # rebased onto main
    write_events(run_mem, bob, written, "b1", 2)
    superseded = ids["2026-06-01 — Verifier checks run under /bin/sh"]
    with_ = ("--with", ids["Verified artifacts only"], "--reason", "Replaced")
    ok(run_mem("supersede", superseded, *with_, cwd=bob))
    add_note(run_mem, bob, written, "lesson", "Bob learnt")
    commit_all(bob, "b1 one")
    write_events(run_mem, bob, written, "b1", 1)
    commit_all(bob, "b1 two")

    monkeypatch.setenv("MEM_NOW", "2026-12-04T09:00:00.000Z")
    git(bob, "checkout", "-q", "-b", "b2", "main")  # cherry-picked
    write_events(run_mem, bob, written, "b2", 2)
    reinforce(run_mem, bob, written, 1)
    add_note(run_mem, bob, written, "decision", "Beta choice")
    ok(
        run_mem(
            "evidence",
            "add",
            ids["Result artifact contract"],
            "--source",
            "work/result.txt",
            cwd=bob,
        )
    )
    commit_all(bob, "b2")
    git(bob, "push", "-q", "hub", "b1", "b2")
    git(alice, "fetch", "-q", "hub")
    assert not (alice / ".gitattributes").exists()

    git(alice, "checkout", "-q", "main")
    doctor = ok(run_mem("doctor", "merge", cwd=alice)).stdout
    assert doctor.count("no memory file conflicts") == 5, doctor  # hub/main too
    git(alice, "merge", "-q", "--no-ff", "--no-edit", "a1")
    code, output = merge_tree(alice, "main", "a2")
    assert code == 0, output
    tree = output.splitlines()[0]
    merged = git(alice, "commit-tree", tree, "-p", "main", "-p", "a2", "-m", "merge a2").strip()
    git(alice, "merge", "-q", "--ff-only", merged)
    git(alice, "checkout", "-q", "-b", "rebased", "hub/b1")
    git(alice, "rebase", "-q", "main")
    git(alice, "checkout", "-q", "main")
    git(alice, "merge", "-q", "--ff-only", "rebased")
    git(alice, "cherry-pick", "hub/b2")
    no_conflicts(alice)
    assert git(alice, "status", "--porcelain") == ""
    assert not [path for path in tracked(alice, ".bmad") if "/.local/" in path]

    monkeypatch.setenv("MEM_NOW", "2026-12-05T09:00:00.000Z")
    everything = out(run_mem, alice, "recall", "merged", "--limit", "1000")["results"]
    found = [entry for entry in everything if entry["kind"] == "event"]
    assert sorted(entry["ref"] for entry in found) == sorted(written.events)
    assert {entry["source"] for entry in found} == {"journal.ndjson"}
    assert len(written.events) == len(set(written.events)) == 10
    notes = out(run_mem, alice, "recall", "merged", "note", "--limit", "1000")["results"]
    assert sorted(e["ref"] for e in notes if e["kind"] == "note") == sorted(
        m["heading"] for m in out(run_mem, alice, "context")["memories"] if m["id"] in written.notes
    )
    assert (
        len({m["id"] for m in out(run_mem, alice, "context")["memories"]} & set(written.notes)) == 4
    )
    outcomes = ok(run_mem("outcomes", cwd=alice)).stdout
    assert outcomes.count(": accepted-current\n") == len(outcomes.splitlines()) == 1, outcomes
    listed = ok(run_mem("patterns", cwd=alice)).stdout
    assert f"updates={written.reinforcements})" in listed, listed
    assert "promotion: PROPOSED" in listed
    assert any("/promotions.d/" in path for path in tracked(alice, ".bmad"))
    statuses = {m["heading"]: m["status"] for m in out(run_mem, alice, "context")["memories"]}
    assert statuses["Chained evidence"] == "retracted"
    assert statuses["2026-06-01 — Verifier checks run under /bin/sh"] == "superseded"
    status = out(run_mem, alice, "status")
    assert status["receipts"]["count"] == 1
    assert status["project"]["noteFiles"] == {"decisions.md": 2, "lessons.md": 1, "patterns.md": 1}
    journal = next(store for store in status["stores"] if store["store"] == "journal")
    assert journal["shards"] == 4  # a1, a2, b1, b2
    assert status["findings"]["sharedIds"] == []
    assert ok(run_mem("index", "check", cwd=alice)).stdout.startswith("mem index check: ok")
    audit = ok(run_mem("audit", cwd=alice))
    evidenced = [ids["Verified artifacts only"], ids["Result artifact contract"]]
    assert [line.split()[1] for line in audit.stdout.splitlines()] == evidenced


# ---- any interleaving of writers over shards answers as one classic store


EVENT = st.tuples(
    st.integers(0, 2),  # writer
    st.integers(0, 1),  # agent: two writers may write the very same line
    st.sampled_from(["alpha", "beta", "alpha beta", "gamma alpha"]),
    st.integers(1, 28),  # day of the month
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(writes=st.lists(EVENT, min_size=1, max_size=12))
@example(writes=[(0, 0, "alpha", 3), (1, 0, "alpha", 3), (2, 1, "alpha beta", 3)])
def test_any_interleaving_of_writers_answers_as_one_classic_store(
    tmp_path_factory: pytest.TempPathFactory,
    run_mem: RunMem,
    writes: list[tuple[int, int, str, int]],
) -> None:
    base = tmp_path_factory.mktemp("interleaving")
    team, classic = base / "team", base / "classic"
    for project in (team, classic):
        (project / ".agents/memory").mkdir(parents=True)
    (team / SETTINGS).write_text('layout = "team"\n')
    local = team / ".bmad/memory/.local"
    for writer, agent, task, day in writes:
        local.mkdir(parents=True, exist_ok=True)
        (local / "writer").write_text(f"w{writer}\n")  # three clones, one folder
        env = {"MEM_NOW": f"2026-11-{day:02d}T10:00:00.000Z"}
        ok(run_mem("write", "--agent", f"a{agent}", "--task", task, cwd=team, env=env))
    # The classic store holding the same records: the shards in their order, one file.
    shards = sorted((team / ".bmad/memory/journal.d").glob("*/*.ndjson"))
    journal = classic / ".bmad/memory/journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b"".join(shard.read_bytes() for shard in shards))
    for project in (team, classic):
        ok(run_mem("index", "check", cwd=project))
    env = {"MEM_NOW": "2026-12-01T00:00:00.000Z"}
    for query in ("alpha", "beta", "alpha gamma"):
        args = ("recall", query, "--limit", "1000", "--json")
        assert (
            ok(run_mem(*args, cwd=team, env=env)).stdout
            == ok(run_mem(*args, cwd=classic, env=env)).stdout
        )


def test_concurrent_lifecycle_records_apply_oldest_first_whatever_the_writer_ids(
    project: Path, run_mem: RunMem
) -> None:
    """Two branches retired one memory, each unaware of the other: after the merge the
    older record wins, as it would in one classic store, not the writer id that sorts first."""
    (project / SETTINGS).write_text('layout = "team"\n')
    ids = memory_ids(run_mem, project)
    retired, successor = list(ids.values())[:2]
    local = project / ".bmad/memory/.local"
    local.mkdir(parents=True)
    (local / "writer").write_text("zzz\n")
    env = {"MEM_NOW": "2026-10-18T09:00:00.000Z"}
    ok(run_mem("retract", retired, "--reason", "Wrong", cwd=project, env=env))
    older = next((project / ".bmad/memory/lifecycle.d").glob("*/zzz.ndjson"))
    kept = older.read_bytes()
    older.unlink()  # the other branch did not have it
    (local / "writer").write_text("aaa\n")
    env = {"MEM_NOW": "2026-10-18T10:00:00.000Z"}
    ok(run_mem("supersede", retired, "--with", successor, "--reason", "New", cwd=project, env=env))
    older.write_bytes(kept)  # the merge
    statuses = {m["id"]: m["status"] for m in out(run_mem, project, "context")["memories"]}
    assert statuses[retired] == "retracted"
    shown = out(run_mem, project, "show", retired)
    assert shown["status"] == "retracted"
