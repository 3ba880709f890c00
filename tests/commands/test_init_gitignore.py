"""`mem init` lists the two per-machine files in .gitignore: appended, never rewritten."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem
from support.git import git

pytestmark = pytest.mark.script

PER_MACHINE = [".agents/memory/.brain-link", ".bmad/memory/writer.lock"]


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def test_init_creates_gitignore_with_the_per_machine_files(project: Path, run_mem: RunMem) -> None:
    done = ok(run_mem("init", cwd=project))
    assert (project / ".gitignore").read_text() == "".join(f"{p}\n" for p in PER_MACHINE)
    assert "  added    .gitignore: .agents/memory/.brain-link\n" in done.stdout


def test_init_appends_only_what_is_missing_and_never_rewrites(
    project: Path, run_mem: RunMem
) -> None:
    ignore = project / ".gitignore"
    ignore.write_bytes(b"node_modules/\r\n# mine\n/.bmad/memory/writer.lock\ndist")  # no final \n
    done = ok(run_mem("init", "--json", cwd=project))
    assert json.loads(done.stdout)["gitignore"] == [".agents/memory/.brain-link"]
    expected = (
        b"node_modules/\r\n# mine\n/.bmad/memory/writer.lock\ndist\n.agents/memory/.brain-link\n"
    )
    assert ignore.read_bytes() == expected
    assert json.loads(ok(run_mem("init", "--json", cwd=project)).stdout)["gitignore"] == []
    assert ignore.read_bytes() == expected


def test_after_init_git_status_shows_neither_file(git_project: Path, run_mem: RunMem) -> None:
    ok(run_mem("init", cwd=git_project))
    ok(run_mem("write", "--agent", "a", "--task", "t", cwd=git_project))
    untracked = git(git_project, "status", "--porcelain", "--untracked-files=all")
    assert ".brain-link" not in untracked
    assert (git_project / ".gitignore").exists()


def test_a_gitignore_that_is_a_link_or_a_folder_is_a_warning_and_left_alone(
    project: Path, tmp_path: Path, run_mem: RunMem
) -> None:
    target = tmp_path / "shared-ignore"
    target.write_text("x\n")
    (project / ".gitignore").symlink_to(target)
    done = ok(run_mem("init", cwd=project))
    assert ".gitignore is a link or not a file" in done.stderr
    assert target.read_text() == "x\n"
    assert (project / ".agents/memory/.brain-link").exists()  # the rest of init was done
