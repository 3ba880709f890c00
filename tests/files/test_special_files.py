"""A FIFO, socket or device where a store belongs is refused with a clear error, never a hang.

Opening a FIFO for reading blocks until a writer appears and reading /dev/zero never ends, so
before these checks a planted FIFO made every `mem recall` hang forever.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem

from mem import layout

# A hang must end in a timeout, not hang this process: the console script, killed when late.
pytestmark = pytest.mark.process

# Far longer than any of these commands takes; a hang is what fails the test.
TIMEOUT_SECONDS = 60


def _mem(run: RunMem, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(*args, "-d", str(project), timeout=TIMEOUT_SECONDS)


def _plant_fifo(project: Path, relative: str) -> Path:
    path = project / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("relative", [layout.MEMORY_FILES[1], layout.JOURNAL])
def test_recall_refuses_a_fifo_in_place_of_a_source(
    project: Path, relative: str, run_mem: RunMem
) -> None:
    fifo = _plant_fifo(project, relative)
    done = _mem(run_mem, project, "recall", "cache")
    assert done.returncode == 1
    assert done.stderr == f"mem recall: Cannot read {fifo.resolve()}: Not a regular file.\n"
    assert done.stdout == ""


def test_recall_answers_again_once_the_fifo_is_a_file_again(project: Path, run_mem: RunMem) -> None:
    relative = layout.MEMORY_FILES[0]
    saved = (project / relative).read_bytes()
    _plant_fifo(project, relative)
    assert _mem(run_mem, project, "recall", "cache").returncode == 1
    (project / relative).unlink()
    (project / relative).write_bytes(saved)
    done = _mem(run_mem, project, "recall", "cache", "--json")
    assert done.returncode == 0, done.stderr


def test_patterns_refuse_a_fifo_in_place_of_the_scores_file(project: Path, run_mem: RunMem) -> None:
    fifo = _plant_fifo(project, layout.PATTERN_SCORES)
    done = _mem(run_mem, project, "patterns")
    assert done.returncode == 1
    assert done.stderr == f"mem patterns: Cannot read {fifo}: Not a regular file.\n"


def test_a_fifo_in_place_of_the_writer_lock_is_named_not_waited_on(
    project: Path, run_mem: RunMem
) -> None:
    _plant_fifo(project, layout.WRITER_LOCK)
    done = _mem(run_mem, project, "write", "--agent", "forge", "--task", "pin the clock")
    assert done.returncode == 1
    assert done.stderr == "mem write: .bmad/memory/writer.lock is not a regular file; inspect it.\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_a_memory_file_linked_to_an_endless_device_is_refused(
    project: Path, run_mem: RunMem
) -> None:
    relative = layout.MEMORY_FILES[0]
    (project / relative).unlink()
    (project / relative).symlink_to("/dev/zero")
    done = _mem(run_mem, project, "recall", "cache")
    assert done.returncode == 1
    assert done.stderr == "mem recall: Cannot read /dev/zero: Not a regular file.\n"


def test_a_directory_in_place_of_the_writer_lock_is_named(project: Path, run_mem: RunMem) -> None:
    (project / layout.WRITER_LOCK).mkdir(parents=True)
    done = _mem(run_mem, project, "write", "--agent", "forge", "--task", "pin the clock")
    assert done.returncode == 1
    assert done.stderr == "mem write: .bmad/memory/writer.lock is a directory; inspect it.\n"


def test_recall_names_a_directory_in_place_of_a_memory_file(project: Path, run_mem: RunMem) -> None:
    relative = layout.MEMORY_FILES[1]
    (project / relative).unlink(missing_ok=True)
    (project / relative).mkdir(parents=True)
    done = _mem(run_mem, project, "recall", "cache")
    assert done.returncode == 1
    assert (
        done.stderr
        == f"mem recall: Cannot read {(project / relative).resolve()}: Is a directory.\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        ("recall", "cache"),
        ("write", "--agent", "a", "--task", "t"),
        ("status",),
        ("note", "add", "decision", "--title", "Pool"),
        ("context",),
    ],
)
def test_a_fifo_as_the_settings_file_is_refused_not_waited_on(
    project: Path, run_mem: RunMem, command: tuple[str, ...]
) -> None:
    _plant_fifo(project, layout.SETTINGS)
    done = run_mem(*command, "-d", str(project), timeout=10)
    assert done.returncode == 1
    assert f"Cannot read {layout.SETTINGS}: Not a regular file." in done.stderr


def test_a_prompt_hook_with_a_fifo_as_the_settings_file_ends_at_once(
    project: Path, run_mem: RunMem
) -> None:
    _plant_fifo(project, layout.SETTINGS)
    hook_input = f'{{"session_id": "s1", "cwd": "{project}", "prompt": "cache"}}'
    done = run_mem("hook", "prompt", "--host", "claude-code", input=hook_input, timeout=3)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
