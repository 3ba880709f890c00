"""Once per session under concurrency (issue 35, item 11): prompt hooks of one session that
run at once inject a memory once, however their reads and writes interleave."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem, mem_command

from mem.files import machine_state

pytestmark = pytest.mark.usefixtures("state")

SESSION = "0193a1f2-7c1d-7e4a-9d35-2c1b5a6e7f80"
PROMPT = "How should the api configure postgres connection pooling?"
HEADING = "Postgres connection pooling"


def _payload(project: Path) -> str:
    return json.dumps({"session_id": SESSION, "cwd": str(project), "prompt": PROMPT})


def test_a_hook_that_read_the_session_before_another_injected_leaves_it_out(
    run_mem: RunMem, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race made deterministic: the second hook read the session's record before the
    first wrote to it, so both found the memory new."""
    first = run_mem("hook", "prompt", "--host", "claude-code", input=_payload(project))
    assert HEADING in first.stdout
    monkeypatch.setattr(machine_state, "injected_in_session", lambda host, session: set())
    second = run_mem("hook", "prompt", "--host", "claude-code", input=_payload(project))
    assert (second.returncode, second.stdout) == (0, "")


def test_eight_prompt_hooks_at_once_inject_a_memory_once(project: Path, state: Path) -> None:
    payload = _payload(project)
    env_command = [*mem_command(), "hook", "prompt", "--host", "claude-code"]
    warm = [*mem_command(), "recall", "pool", "-d", str(project)]
    subprocess.run(warm, check=True, capture_output=True)
    hooks = [
        subprocess.Popen(
            env_command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "MEM_STATE_DIR": str(state)},
        )
        for _ in range(8)
    ]
    for process in hooks:
        assert process.stdin is not None
        process.stdin.write(payload)
    for process in hooks:
        assert process.stdin is not None
        process.stdin.close()
    answers = []
    for process in hooks:
        assert process.stdout is not None
        with process.stdout:
            answers.append(process.stdout.read())
        assert process.wait(timeout=60) == 0
    assert sum(HEADING in answer for answer in answers) == 1
