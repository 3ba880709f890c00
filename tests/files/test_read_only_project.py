"""A checkout on a read-only file system: every writer says so and exits 1, readers answer."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script


def _read_only(directory: Path) -> Iterator[Path]:
    """directory, bind-mounted read-only on itself for the test."""
    done = subprocess.run(["mount", "--bind", str(directory), str(directory)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root)")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], check=True)
        yield directory
    finally:
        subprocess.run(["umount", str(directory)], check=True)


@pytest.fixture
def read_only_project(project: Path, run_mem: RunMem) -> Iterator[Path]:
    """The demo project with an agent block in AGENTS.md, mounted read-only."""
    assert run_mem("init", "--agents", cwd=project).returncode == 0
    yield from _read_only(project)


@pytest.fixture
def read_only_empty(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "empty"
    directory.mkdir()
    yield from _read_only(directory)


def refused(done: subprocess.CompletedProcess[str], action: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done
    assert done.stderr.startswith(f"mem {action}: Cannot "), done.stderr
    assert "Read-only file system" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("init",),
        ("init", "--agents", "CLAUDE.md"),
        ("init", "--agents", "--remove"),
        ("export",),
        ("export", "--force"),
    ],
)
def test_writers_refuse_a_read_only_project(
    read_only_project: Path, run_mem: RunMem, isolated_env: Path, args: tuple[str, ...]
) -> None:
    (isolated_env / ".bmad-plus/brain").mkdir(parents=True)
    (isolated_env / ".bmad-plus/brain/identity.yaml").write_text("name: me\n")
    refused(run_mem(*args, cwd=read_only_project), args[0])


def test_init_refuses_an_empty_read_only_directory(read_only_empty: Path, run_mem: RunMem) -> None:
    refused(run_mem("init", cwd=read_only_empty), "init")
    refused(run_mem("init", "--agents", cwd=read_only_empty), "init")


def test_handoff_refuses_a_read_only_project(read_only_project: Path, run_mem: RunMem) -> None:
    text = "Next: the login form.\n"
    done = run_mem("handoff", "--topic", "auth", "--stdin", input=text, cwd=read_only_project)
    refused(done, "handoff")


def test_readers_still_answer(read_only_project: Path, run_mem: RunMem) -> None:
    for args in (("recall", "postgres"), ("status",), ("context",)):
        done = run_mem(*args, cwd=read_only_project)
        assert (done.returncode, done.stderr) == (0, ""), (args, done)
