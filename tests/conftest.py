from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

pytest.register_assert_rewrite("support")

from support import FIXTURES  # noqa: E402
from support.cli import RunMem, as_process, in_process, script_in_process  # noqa: E402
from support.git import GIT_ENV, make_repository  # noqa: E402

# Timing is never the behaviour under test here (performance lives in bench/), and on a
# shared 2-core machine a per-example deadline only makes the suite flaky.
settings.register_profile(
    "mem", deadline=None, suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow]
)
settings.load_profile("mem")


def pytest_report_header() -> str:
    return f"sqlite {sqlite3.sqlite_version}"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the real home or cache: each test gets its own."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEM_CACHE_DIR", str(home / "cache"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("BMAD_PLUS_BRAIN", raising=False)
    monkeypatch.setenv("MEM_NOW", "2026-10-18T09:30:00.000Z")
    monkeypatch.setenv("TZ", "UTC")
    return home


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-machine state directory of hooks' records and log (MEM_STATE_DIR)."""
    directory = tmp_path / "state"
    monkeypatch.setenv("MEM_STATE_DIR", str(directory))
    return directory


@pytest.fixture
def run_mem(request: pytest.FixtureRequest) -> RunMem:
    """`mem <args>`: in this process through click's CliRunner (the exit code, stdout and
    stderr the console script gives); for a test marked `script`, through the console
    script's own `main` in this process (its click-free paths: a plain recall, a host's
    hook); or the installed console script in a process of its own for a test marked
    `process`, where the process is the point: signals, the bytes and encoding of the real
    streams, concurrent or killed processes, start-up imports."""
    if request.node.get_closest_marker("process"):
        return as_process
    return script_in_process if request.node.get_closest_marker("script") else in_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the demo project (fixtures/demo), safe to modify."""
    target = tmp_path / "project"
    shutil.copytree(FIXTURES / "demo", target, symlinks=True)
    return target


@pytest.fixture
def git_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo project as a git work tree with one commit and an `origin` remote.

    Git reads only the environment set here (no global or system config), and every
    subprocess, `mem` included, inherits it.
    """
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    return make_repository(project)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs: a disk that fills up (needs root to mount)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)
