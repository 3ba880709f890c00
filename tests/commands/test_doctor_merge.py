"""`mem doctor merge`: the memory files a merge would conflict in, found by
`git merge-tree --write-tree` without touching the worktree, and the fix."""

from __future__ import annotations

import json
import os
import shutil
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


def test_git_s_own_reason_is_reported_when_it_cannot_merge(
    git_project: Path, run_mem: RunMem, tmp_path: Path
) -> None:
    """A read-only checkout: git cannot write the merged tree's objects. (As root no mode
    bits stop git, so a `git` on PATH says what git says on a read-only file system.)"""
    branch_writing(run_mem, git_project, "one", "first branch task")
    real_git = shutil.which("git")
    shim = tmp_path / "bin" / "git"
    shim.parent.mkdir()
    shim.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" merge-tree "*)\n'
        '  echo "error: unable to create temporary file: Read-only file system" >&2\n'
        '  echo "fatal: failure to merge" >&2; exit 128;;\n'
        "esac\n"
        f'exec {real_git} "$@"\n'
    )
    shim.chmod(0o755)
    path = f"{shim.parent}{os.pathsep}{os.environ['PATH']}"
    done = run_mem("doctor", "merge", "one", cwd=git_project, env={"PATH": path})
    assert done.returncode == 1
    assert done.stderr == (
        "mem doctor: git merge-tree cannot merge one with HEAD: error: unable to create"
        " temporary file: Read-only file system; fatal: failure to merge\n"
    )
