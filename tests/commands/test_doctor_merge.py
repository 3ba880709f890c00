"""`mem doctor merge`: the memory files a merge would conflict in, found by
`git merge-tree --write-tree` without touching the worktree, and the fix."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.git import commit_all, git


def branch_writing(run_mem: RunMem, project: Path, branch: str, task: str) -> None:
    git(project, "checkout", "-q", "-b", branch, "main")
    assert run_mem("write", "--agent", "a", "--task", task, cwd=project).returncode == 0
    commit_all(project, branch)


def test_classic_appends_on_two_branches_are_reported_with_the_fix(
    git_project: Path, run_mem: RunMem
) -> None:
    branch_writing(run_mem, git_project, "one", "first branch task")
    branch_writing(run_mem, git_project, "two", "second branch task")
    before = git(git_project, "status", "--porcelain")
    done = run_mem("doctor", "merge", "--json", cwd=git_project)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    (entry,) = [entry for entry in result["branches"] if entry["branch"] == "one"]
    assert [c["file"] for c in entry["memoryConflicts"]] == [".bmad/memory/journal.ndjson"]
    assert "mem init --team" in entry["memoryConflicts"][0]["fix"]
    (main,) = [entry for entry in result["branches"] if entry["branch"] == "main"]
    assert main["memoryConflicts"] == []
    assert git(git_project, "status", "--porcelain") == before  # nothing touched
    text = run_mem("doctor", "merge", "one", cwd=git_project).stdout
    assert "conflict  one: 1 memory file(s)" in text
    assert "      .bmad/memory/journal.ndjson" in text


def test_team_layout_branches_merge_clean(git_project: Path, run_mem: RunMem) -> None:
    (git_project / ".agents/memory/mem.toml").write_text('layout = "team"\n')
    commit_all(git_project, "team layout")
    branch_writing(run_mem, git_project, "one", "first branch task")
    branch_writing(run_mem, git_project, "two", "second branch task")
    done = run_mem("doctor", "merge", "one", "main", cwd=git_project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  ok        one: no memory file conflicts" in done.stdout


def test_an_unknown_branch_is_a_clear_error(git_project: Path, run_mem: RunMem) -> None:
    done = run_mem("doctor", "merge", "nope", cwd=git_project)
    assert done.returncode == 1
    assert "mem doctor: git merge-tree cannot merge nope with HEAD" in done.stderr
