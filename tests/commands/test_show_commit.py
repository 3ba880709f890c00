"""`mem show <sha>`: a commit of the project's history, printed as a memory."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.git import commit_all
from support.trees import write


def test_a_short_or_full_sha_shows_the_commit(run_mem: RunMem, git_project: Path) -> None:
    write(git_project / "src/retry.py", "# retry\nVALUE = 3\n")
    sha = commit_all(git_project, "perf: simplify retry\n\nWhy: the limiter bans linear retries")
    done = run_mem("show", sha[:7], "-d", str(git_project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{sha}  git § perf: simplify retry  (")
    assert "Why: the limiter bans linear retries" in done.stdout
    assert "  src/retry.py\n" in done.stdout
    shown = json.loads(run_mem("show", sha.upper(), "--json", "-d", str(git_project)).stdout)
    assert (shown["kind"], shown["sha"], shown["paths"]) == ("commit", sha, ["src/retry.py"])


def test_an_unknown_sha_says_so(run_mem: RunMem, git_project: Path) -> None:
    done = run_mem("show", "0000000", "-d", str(git_project))
    assert (done.returncode, done.stderr) == (
        1,
        "mem show: No commit 0000000 in the history of HEAD.\n",
    )
    assert run_mem("show", "mem_0123456789abcdef0123", "-d", str(git_project)).returncode == 1
