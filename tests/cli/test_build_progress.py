"""A project's first sync shows its progress on a terminal's stderr, and nowhere else."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import mem_command

# The knob the portfolio's progress tests turn (mem.cli.progress's clock), turned here in
# the console script's own process: progress shows from the first step, every step.
AT_ONCE = "import mem.cli.progress as p\np.DELAY_SECONDS = 0.0\np.REFRESH_SECONDS = 0.0\n"
EVENTS = 6_000  # the inserter reports every 5,000 records: two steps


@pytest.fixture
def big_project(tmp_path: Path) -> Path:
    root = tmp_path / "big"
    (root / ".bmad" / "memory").mkdir(parents=True)
    lines = (
        json.dumps({"ts": "2026-10-01T00:00:00.000Z", "agent": "forge", "task": f"task {n}"})
        for n in range(EVENTS)
    )
    (root / ".bmad/memory/journal.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _mem(root: Path, args: list[str], stderr: int, input: str | None = None) -> str:
    """`mem <args>` in `root` with progress at once; its stdout (stderr goes to `stderr`)."""
    env = {**os.environ, "PYTHONPATH": _site(root), "MEM_BUILD_WORKERS": "1"}
    done = subprocess.run(
        [*mem_command(), *args],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=stderr,
        input=input,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def _read_all(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal's other end is closed and drained
            return data
        if not chunk:
            return data
        data += chunk


def _on_a_terminal(root: Path, args: list[str], input: str | None = None) -> tuple[str, bytes]:
    """stdout, and what stderr (a pseudo-terminal) received."""
    main, terminal = os.openpty()
    try:
        stdout = _mem(root, args, terminal, input)
    finally:
        os.close(terminal)
    try:
        return stdout, _read_all(main)
    finally:
        os.close(main)


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "label"),
    [
        (["recall", "task"], "mem recall"),  # the click-free path
        (["index", "path"], "mem index"),
        (["index", "rebuild"], "mem index"),
    ],
)
def test_a_first_sync_shows_records_indexed_on_a_terminal(
    big_project: Path, args: list[str], label: str
) -> None:
    stdout, stderr = _on_a_terminal(big_project, args)
    shown = stderr.decode()
    assert f"\r\x1b[K{label}: building the index: 5000 record(s) indexed" in shown
    assert f"\r\x1b[K{label}: building the index: 6000 record(s) indexed" in shown
    assert shown.endswith("\r\x1b[K")  # wiped before the answer is printed
    assert "building the index" not in stdout and "\x1b" not in stdout


@pytest.mark.process
def test_a_warm_recall_on_a_terminal_shows_nothing(big_project: Path) -> None:
    _on_a_terminal(big_project, ["recall", "task"])
    assert _on_a_terminal(big_project, ["recall", "task"])[1] == b""


@pytest.mark.process
@pytest.mark.parametrize("args", [["recall", "task"], ["index", "rebuild"]])
def test_no_progress_when_stderr_is_not_a_terminal(big_project: Path, args: list[str]) -> None:
    # Progress at once, as on a terminal, but stderr is a pipe: not a byte goes there.
    done = subprocess.run(
        [*mem_command(), *args],
        cwd=big_project,
        env={**os.environ, "PYTHONPATH": _site(big_project), "MEM_BUILD_WORKERS": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == ""


def _site(root: Path) -> str:
    """A folder whose sitecustomize turns the progress knob in the console script's process."""
    site = root.parent / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(AT_ONCE, encoding="utf-8")
    return str(site)


@pytest.mark.process
def test_no_progress_in_a_hook_even_on_a_terminal(big_project: Path) -> None:
    prompt = json.dumps({"cwd": str(big_project), "session_id": "s1", "prompt": "task 12"})
    stdout, stderr = _on_a_terminal(
        big_project, ["hook", "prompt", "--host", "claude-code"], input=prompt
    )
    assert stderr == b""
    # Through click too (an option order the click-free path leaves to click).
    _, stderr = _on_a_terminal(
        big_project, ["hook", "--host", "claude-code", "prompt"], input=prompt
    )
    assert stderr == b""
