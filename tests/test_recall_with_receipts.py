"""Features built apart that meet on the same files: receipts in context, reinforce in recall."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RunMem
from nexus_support import relocated


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


def test_reinforce_never_changes_what_recall_returns(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("h-observed-current", tmp_path)
    headings = [
        line[4:]
        for line in (project / ".agents/memory/lessons.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("### ")
    ]
    query = headings[0]
    lexical = ("recall", query, "--json")
    evidence = ("recall", query, "--json", "--ranking", "evidence", "--context-scope", "work")
    before = [run_mem(*lexical, cwd=project).stdout, run_mem(*evidence, cwd=project).stdout]
    for heading in headings:
        for _ in range(3):
            reinforced = run_mem(
                "reinforce", "--pattern", heading, "--eval", "1", "--ci", "pass", cwd=project
            )
            assert reinforced.returncode == 0, reinforced.stderr
    after = [run_mem(*lexical, cwd=project).stdout, run_mem(*evidence, cwd=project).stdout]
    assert after == before
    assert json.loads(after[1])["results"][0]["evidence"]["status"] == "accepted-current"
