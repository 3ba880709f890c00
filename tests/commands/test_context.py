"""`mem context`, `recall --with-evidence`, lifecycle in evidence ranking, and the index tables."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from support.cli import RunMem
from support.demo import CACHE, LESSONS, RETRY, record_cache_evidence
from support.git import git
from support.nexus import relocated
from support.trees import stat_tree

from mem.domain import memories

DECISIONS = ".agents/memory/decisions.md"
POOLING = memories.memory_id(DECISIONS, "2026-06-02 — Postgres connection pooling")


def _context(run_mem: RunMem, project: Path, *args: str) -> dict[str, object]:
    done = run_mem("context", *args, "--json", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_missing_parts_are_listed_as_missing(project: Path, run_mem: RunMem) -> None:
    state = _context(run_mem, project)
    assert state["context"] == {
        "path": ".agents/memory/context.md",
        "text": (project / ".agents/memory/context.md").read_text(encoding="utf-8"),
    }
    assert state["handoff"] is None and state["brain"] is None and state["commits"] is None
    assert state["missing"] == ["handoff", "brain", "commits"]
    listed = state["memories"]
    assert [(m["id"], m["file"], m["heading"]) for m in listed] == [  # type: ignore[union-attr]
        (m.id, m.file, m.heading) for m in memories.load(str(project))
    ]
    assert all(
        list(m) == ["id", "file", "heading", "revision", "status", "supersededBy", "reason"]
        for m in listed
    )  # type: ignore[union-attr]
    assert all(m["status"] == "active" for m in listed)  # type: ignore[union-attr]
    text = run_mem("context", cwd=project).stdout
    assert "## handoff: missing" in text and "## brain: missing" in text
    assert "## commits: missing (not a git work tree)" in text
    assert f"active  {CACHE}  {LESSONS} § Cache contract" in text


def test_handoff_brain_and_commits(git_project: Path, run_mem: RunMem, tmp_path: Path) -> None:
    sessions = git_project / ".agents/memory/sessions"
    sessions.mkdir()
    (sessions / "2026-10-16-handoff.md").write_text("older\n", encoding="utf-8")
    (sessions / "2026-10-17-handoff.md").write_text("# Handoff\nnewest\n", encoding="utf-8")
    (sessions / "notes.txt").write_text("not a handoff\n", encoding="utf-8")
    brain = tmp_path / "_brain"
    brain.mkdir()
    (git_project / ".agents/memory/.brain-link").write_text(
        json.dumps(
            {
                "linked_brain": str(brain),
                "brain_type": "portfolio",
                "linked_at": "2026-10-01T00:00:00.000Z",
            }
        ),
        encoding="utf-8",
    )
    for number in range(11):
        (git_project / "src" / "log.txt").write_text(str(number), encoding="utf-8")
        git(git_project, "add", "-A")
        git(git_project, "commit", "-q", "-m", f"Change {number}")
    state = _context(run_mem, git_project)
    assert state["handoff"] == {
        "path": ".agents/memory/sessions/2026-10-17-handoff.md",
        "text": "# Handoff\nnewest\n",
    }
    assert state["brain"] == {
        "path": ".agents/memory/.brain-link",
        "linkedBrain": str(brain),
        "brainType": "portfolio",
        "linkedAt": "2026-10-01T00:00:00.000Z",
    }
    commits = state["commits"]
    assert [c["subject"] for c in commits] == [f"Change {n}" for n in range(10, 0, -1)]  # type: ignore[union-attr]
    assert commits[0]["hash"] == git(git_project, "rev-parse", "HEAD").strip()  # type: ignore[index]
    assert state["missing"] == []


def test_evidence_only_on_request(git_project: Path, run_mem: RunMem) -> None:
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    (git_project / "src/policy.py").unlink()
    plain = _context(run_mem, git_project)
    assert "evidence" not in json.dumps(plain["memories"])
    before = stat_tree(git_project)
    rich = _context(run_mem, git_project, "--with-evidence")
    assert stat_tree(git_project) == before, "context writes nothing"
    by_id = {m["id"]: m for m in rich["memories"]}  # type: ignore[union-attr]
    assert [m["id"] for m in rich["memories"]] == [m["id"] for m in plain["memories"]]  # type: ignore[union-attr]
    envelope = by_id[CACHE]["evidence"]
    assert envelope["status"] == "missing" and envelope["outcomes"] == []
    assert [(s["path"], s["status"]) for s in envelope["sources"]] == [("src/policy.py", "missing")]
    assert by_id[RETRY]["evidence"] == {"status": "unknown", "sources": [], "outcomes": []}
    text = run_mem("context", "--with-evidence", cwd=git_project).stdout
    assert "    evidence: missing\n      missing  src/policy.py: does not exist\n" in text


def test_recall_with_evidence_keeps_order_and_scores(git_project: Path, run_mem: RunMem) -> None:
    run_mem("evidence", "add", CACHE, "--source", "src/policy.py", cwd=git_project)
    run_mem("supersede", RETRY, "--with", CACHE, "--reason", "merged", cwd=git_project)
    # A superseded note is listed only on request (deviation D10).
    query = ("recall", "cache", "retry", "budget", "--include-retired", "--json")
    plain = json.loads(run_mem(*query, cwd=git_project).stdout)
    rich = json.loads(run_mem(*query, "--with-evidence", cwd=git_project).stdout)
    assert [(r["ref"], r["score"]) for r in rich["results"]] == [
        (r["ref"], r["score"]) for r in plain["results"]
    ]
    assert all("memory" not in r for r in plain["results"])
    assert [r.get("status") for r in plain["results"]] == [
        r["memory"]["status"] for r in rich["results"]
    ]
    by_ref = {r["ref"]: r["memory"] for r in rich["results"]}
    assert by_ref["Retry budget"]["status"] == "superseded"
    assert by_ref["Retry budget"]["supersededBy"] == CACHE
    assert by_ref["Retry budget"]["audit"] == "unknown"
    assert by_ref["Cache contract"]["status"] == "active"
    assert by_ref["Cache contract"]["audit"] == "unchanged"
    assert by_ref["Cache contract"]["id"] == CACHE
    text = run_mem(
        "recall", "retry", "budget", "--with-evidence", "--include-retired", cwd=git_project
    ).stdout
    assert f"     {RETRY}: superseded by {CACHE}; audit unknown\n" in text
    assert run_mem("recall", "retry", "budget", cwd=git_project).stdout.count(RETRY) == 0


def test_evidence_ranking_drops_terminated_notes(project: Path, run_mem: RunMem) -> None:
    query = (
        "recall",
        "postgres",
        "pooling",
        "--ranking",
        "evidence",
        "--context-scope",
        "work",
        "--json",
    )
    before = json.loads(run_mem(*query, cwd=project).stdout)
    assert "2026-06-02 — Postgres connection pooling" in [r["ref"] for r in before["results"]]
    assert run_mem("retract", POOLING, "--reason", "pgbouncer removed", cwd=project).returncode == 0
    after = json.loads(run_mem(*query, cwd=project).stdout)
    assert "2026-06-02 — Postgres connection pooling" not in [r["ref"] for r in after["results"]]
    lexical = json.loads(run_mem("recall", "postgres", "pooling", "--json", cwd=project).stdout)
    assert "2026-06-02 — Postgres connection pooling" not in [r["ref"] for r in lexical["results"]]
    listed = run_mem("recall", "postgres", "pooling", "--include-retired", "--json", cwd=project)
    assert ("2026-06-02 — Postgres connection pooling", "retracted") in [
        (r["ref"], r.get("status")) for r in json.loads(listed.stdout)["results"]
    ]
    limited = json.loads(run_mem(*query, "--limit", "1", cwd=project).stdout)
    assert limited["count"] == 1, "the limit applies after terminated notes are dropped"


def test_index_tables_for_sqlite_audits(git_project: Path, run_mem: RunMem) -> None:
    record_cache_evidence(run_mem, git_project)
    run_mem("supersede", RETRY, "--with", CACHE, "--reason", "merged", cwd=git_project)
    path = run_mem("index", "path", cwd=git_project).stdout.strip()
    with sqlite3.connect(path) as conn:
        evidence = conn.execute(
            "SELECT line, memory_id, repo, path, size FROM evidence ORDER BY line"
        ).fetchall()
        events = conn.execute(
            "SELECT line, kind, memory_id, with_id, reason FROM lifecycle"
        ).fetchall()
    assert evidence == [
        (1, CACHE, "github.com/Org/Repo", "src/policy.py", 22),
        (2, CACHE, "github.com/Org/Repo", "src/limits.py", 22),
    ]
    assert events == [(1, "superseded", RETRY, CACHE, "merged")]
    run_mem("retract", CACHE, "--reason", "gone", cwd=git_project)
    path = run_mem("index", "path", cwd=git_project).stdout.strip()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM lifecycle").fetchone() == (2,)


def test_context_with_evidence_lists_a_current_receipt(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("h-observed-current", tmp_path)
    store = (project / ".bmad/memory/outcomes.ndjson").read_text(encoding="utf-8")
    receipt = json.loads(store.splitlines()[0])["id"]
    done = run_mem("context", "--with-evidence", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    listed = [
        (memory["heading"], outcome)
        for memory in json.loads(done.stdout)["memories"]
        for outcome in memory["evidence"]["outcomes"]
    ]
    assert [outcome for _, outcome in listed] == [{"id": receipt, "eligible": True, "reason": None}]
    without = json.loads(run_mem("context", "--json", cwd=project).stdout)
    assert all("evidence" not in memory for memory in without["memories"])
