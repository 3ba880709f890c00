from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Timing is never the behaviour under test here (performance lives in bench/), and on a
# shared 2-core machine a per-example deadline only makes the suite flaky.
settings.register_profile(
    "mem", deadline=None, suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow]
)
settings.load_profile("mem")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


def pytest_report_header() -> str:
    return f"sqlite {sqlite3.sqlite_version}"


def mem_command() -> list[str]:
    """The installed console script, the real entry point users run."""
    script = Path(sys.executable).with_name("mem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mem"]


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


RunMem = Callable[..., subprocess.CompletedProcess[str]]


def _mem_process(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*mem_command(), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        input=input,
        check=False,
        timeout=timeout,
    )


def _mem_in_process(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    from click.testing import CliRunner

    from mem.cli import app

    saved = {key: os.environ.get(key) for key in env or {}}
    os.environ.update(env or {})
    time.tzset()  # a subprocess reads TZ at start; this process must be told
    try:
        with contextlib.chdir(cwd or os.getcwd()):
            runner = CliRunner(catch_exceptions=False)
            done = runner.invoke(app.cli, list(args), prog_name="mem", input=input)
    finally:
        for key, value in saved.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value
        time.tzset()
    return subprocess.CompletedProcess(["mem", *args], done.exit_code, done.stdout, done.stderr)


@pytest.fixture
def run_mem() -> RunMem:
    """`mem` as a user runs it: the installed console script, in its own process."""
    return _mem_process


@pytest.fixture
def mem_process() -> RunMem:
    """The console script, for tests whose module runs `run_mem` in process but need processes."""
    return _mem_process


@pytest.fixture
def mem_in_process() -> RunMem:
    """`mem <args>` through click's CliRunner in this process, where the process is not the point.

    A test module opts in by overriding `run_mem` with it; stdout, stderr and the exit code
    are those of the console script (the golden and CLI tests check the process itself).
    """
    return _mem_in_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the demo project (fixtures/demo), safe to modify."""
    target = tmp_path / "project"
    shutil.copytree(FIXTURES / "demo", target, symlinks=True)
    return target


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(directory: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def git_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo project as a git work tree with one commit and an `origin` remote.

    Git reads only the environment set here (no global or system config), and every
    subprocess, `mem` included, inherits it.
    """
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    git(project, "init", "-q", "-b", "main")
    git(project, "remote", "add", "origin", "git@GitHub.com:Org/Repo.git")
    (project / "src").mkdir()
    for name in ("policy.py", "limits.py", "retry.py"):
        (project / "src" / name).write_text(f"# {name}\nVALUE = 1\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "Initial import")
    return project


class FakeTerminal:
    """A stderr stand-in for progress tests: a terminal or not, keeping what is written."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.text = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass
