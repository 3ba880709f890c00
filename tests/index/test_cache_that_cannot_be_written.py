"""A cache that is full or read-only: reads answer from a temporary index, and `index path`
and `index check` say the index is not kept instead of naming a file that does not exist
or claiming it was rebuilt."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script


def _mount(*command: str) -> None:
    done = subprocess.run(["mount", *command], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("cannot mount here (needs root)")


@pytest.fixture
def read_only_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    cache = tmp_path / "cache"
    cache.mkdir()
    _mount("--bind", str(cache), str(cache))
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(cache)], check=True)
        monkeypatch.setenv("MEM_CACHE_DIR", str(cache))
        yield "Read-only file system"
    finally:
        subprocess.run(["umount", str(cache)], check=True)


@pytest.fixture
def full_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    cache = tmp_path / "cache"
    cache.mkdir()
    _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(cache))
    try:
        fd = os.open(cache / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
        finally:
            os.close(fd)
        monkeypatch.setenv("MEM_CACHE_DIR", str(cache))
        yield "database or disk is full"
    finally:
        subprocess.run(["umount", str(cache)], check=True)


@pytest.fixture(params=["read_only_cache", "full_cache"])
def unusable_cache(request: pytest.FixtureRequest) -> str:
    reason: str = request.getfixturevalue(request.param)
    return reason


def test_index_path_names_no_file_that_is_not_there(
    project: Path, run_mem: RunMem, unusable_cache: str
) -> None:
    assert run_mem("init", cwd=project).returncode == 0  # a brain, for --portfolio
    for args in (("index", "path"), ("index", "path", "--portfolio")):
        done = run_mem(*args, cwd=project)
        assert "Traceback" not in done.stderr, done.stderr
        assert (done.returncode, done.stdout) == (1, ""), (args, done)
        assert done.stderr.startswith("mem index: The index cannot be kept at "), done.stderr
        if unusable_cache == "database or disk is full":
            assert unusable_cache in done.stderr
        else:
            assert "cannot be written" in done.stderr


def test_index_check_says_the_index_is_not_kept(
    project: Path, run_mem: RunMem, unusable_cache: str
) -> None:
    assert run_mem("init", cwd=project).returncode == 0  # a brain, for --portfolio
    for args in (("index", "check"), ("index", "check", "--portfolio")):
        done = run_mem(*args, cwd=project)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 1, done
        assert "discarded and rebuilt" not in done.stdout
        assert done.stdout.startswith("mem index check: the cache cannot hold the index\n")
        assert "used a temporary index" in done.stdout


def test_reads_still_answer(project: Path, run_mem: RunMem, unusable_cache: str) -> None:
    done = run_mem("recall", "postgres", cwd=project)
    assert (done.returncode, done.stderr) == (0, ""), done
    assert "match(es)" in done.stdout


def test_status_says_a_read_only_cache_cannot_be_written(
    project: Path, run_mem: RunMem, read_only_cache: str
) -> None:
    done = run_mem("status", cwd=project)
    assert done.returncode == 0, done
    assert "Index: unwritable" in done.stdout
    assert "every read uses a temporary index" in done.stdout
