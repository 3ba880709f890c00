"""Full and read-only disks under the hooks' writers: clear refusals, no torn line, no
half-made answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script


def _fill(folder: Path, leave: int) -> None:
    """Fill the file system holding folder until about `leave` bytes are free."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 1024)
    except OSError:
        pass
    finally:
        os.close(fd)
    os.truncate(filler, max(0, filler.stat().st_size - leave))


def test_init_on_a_read_only_project_says_so_without_a_traceback(
    tiny_disk: Path, run_mem: RunMem
) -> None:
    project = tiny_disk / "project"
    (project / ".agents/memory").mkdir(parents=True)
    subprocess.run(["mount", "--bind", str(project), str(project)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(project)], check=True)
        done = run_mem("init", "--agents", "--hooks", "-d", str(project))
    finally:
        subprocess.run(["umount", str(project)], check=True)
    assert done.returncode == 1
    assert done.stderr == (
        f"mem init: Cannot write {project}/AGENTS.md: Read-only file system; nothing was written.\n"
    )


def test_a_state_directory_that_fills_up_keeps_whole_lines(
    tiny_disk: Path, run_mem: RunMem, project: Path
) -> None:
    state = tiny_disk / "state"
    state.mkdir()
    env = {"MEM_STATE_DIR": str(state)}
    payload = {"cwd": str(project), "source": "startup"}
    _fill(tiny_disk, 6000)
    answers = []
    for number in range(12):
        done = run_mem(
            "hook",
            "session-start",
            "--host",
            "claude-code",
            input=json.dumps({**payload, "session_id": f"s{number}"}),
            env=env,
        )
        assert (done.returncode, done.stderr) == (0, "")
        answers.append(done.stdout)
    assert "" in answers  # the disk filled up: those sessions got nothing
    lines = (state / "injections.ndjson").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line whole
    given = [answer for answer in answers if answer]
    assert len(records) == len(given)  # each answer is on record, and nothing else
    assert [record["bytes"] for record in records] == [len(answer.encode()) for answer in given]
