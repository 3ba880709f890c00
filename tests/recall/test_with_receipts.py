"""Recall over a project with observed receipts: scores reinforced elsewhere never change it."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.nexus import relocated


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
