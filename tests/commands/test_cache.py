"""`mem cache dir` finds the indexes; `mem cache clean [--all]` deletes them and nothing else."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem

from mem.index import location

pytestmark = pytest.mark.script


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_cache_dir_prints_where_the_indexes_are(
    project: Path, run_mem: RunMem, isolated_env: Path
) -> None:
    done = ok(run_mem("cache", "dir", cwd=project))
    assert done.stdout == f"{isolated_env / 'cache'}\n"
    env = {"MEM_CACHE_DIR": "", "XDG_CACHE_HOME": "/x"}
    assert ok(run_mem("cache", "dir", "--json", cwd=project, env=env)).stdout == (
        '{\n  "directory": "/x/mem"\n}\n'
    )


def test_clean_deletes_this_projects_index_only_and_never_a_project_file(
    project: Path, tmp_path: Path, run_mem: RunMem, isolated_env: Path
) -> None:
    cache = isolated_env / "cache"
    other = tmp_path / "other"
    other.mkdir()
    ok(run_mem("recall", "postgres", cwd=project))
    ok(run_mem("recall", "postgres", cwd=other))
    old = f"project-{'0' * 20}-v{'0' * 16}.sqlite"
    (cache / old).write_bytes(b"x" * 10)  # another version's index
    (cache / "notes.txt").write_text("mine")  # not mem's
    (cache / f"project-{'1' * 20}-v{location.INDEX_VERSION}.sqlite.lock").symlink_to(project)
    files = tree(project)
    ours = os.path.basename(location.index_path(os.path.realpath(project), location.PROJECT))
    before = sorted(p.name for p in cache.iterdir())

    done = json.loads(ok(run_mem("cache", "clean", "--json", cwd=project)).stdout)
    assert done["removed"] == [ours]
    assert sorted(p.name for p in cache.iterdir()) == sorted(set(before) - {ours})
    assert "4 match(es)" in ok(run_mem("recall", "postgres", cwd=project)).stdout

    done = json.loads(ok(run_mem("cache", "clean", "--all", "--json", cwd=project)).stdout)
    assert old in done["removed"] and done["bytes"] > 10
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    assert tree(project) == files  # a link in the cache is removed, never followed


def test_clean_with_no_cache_yet_removes_nothing(project: Path, run_mem: RunMem) -> None:
    assert ok(run_mem("cache", "clean", "--all", cwd=project)).stdout.startswith(
        "mem cache clean: removed 0 file(s), 0 bytes, from "
    )


def test_clean_says_why_it_keeps_the_index_lock(project: Path, run_mem: RunMem) -> None:
    ok(run_mem("recall", "postgres", cwd=project))
    lock = os.path.basename(location.index_path(os.path.realpath(project), location.PROJECT))
    lock += ".lock"
    done = json.loads(ok(run_mem("cache", "clean", "--json", cwd=project)).stdout)
    assert done["kept"] == [lock]
    text = ok(run_mem("cache", "clean", cwd=project)).stdout
    assert f"  kept {lock}: an empty lock file another mem may be waiting on" in text
