"""Git for tests: an environment that reads no global or system config, and a demo repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
SOURCES = ("policy.py", "limits.py", "retry.py")


def git(directory: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def make_repository(project: Path, env: dict[str, str] | None = None) -> Path:
    """The project as a git work tree with an `origin` remote and one commit holding
    src/policy.py, src/limits.py and src/retry.py (the sources the demo evidence rests on)."""
    git(project, "init", "-q", "-b", "main", env=env)
    git(project, "remote", "add", "origin", "git@GitHub.com:Org/Repo.git", env=env)
    (project / "src").mkdir()
    for name in SOURCES:
        (project / "src" / name).write_text(f"# {name}\nVALUE = 1\n", encoding="utf-8")
    git(project, "add", "-A", env=env)
    git(project, "commit", "-q", "-m", "Initial import", env=env)
    return project


def clone(origin: Path, target: Path, env: dict[str, str] | None = None) -> Path:
    subprocess.run(
        ["git", "clone", "-q", str(origin), str(target)], capture_output=True, check=True, env=env
    )
    return target


def commit_all(directory: Path, message: str) -> str:
    """Commit everything in the work tree (what git ignores stays out); the new commit."""
    git(directory, "add", "-A")
    git(directory, "commit", "-q", "-m", message)
    return git(directory, "rev-parse", "HEAD").strip()


def merge_tree(directory: Path, ours: str, theirs: str) -> tuple[int, str]:
    """`git merge-tree --write-tree`: its exit code (0: clean, 1: conflicts) and output."""
    done = subprocess.run(
        ["git", "-C", str(directory), "merge-tree", "--write-tree", ours, theirs],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout


def tracked(directory: Path, under: str) -> list[str]:
    return git(directory, "ls-files", under).splitlines()
