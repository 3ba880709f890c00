"""A host's input past the hook's limit: the empty answer, and the log says why (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem

from mem.commands import hook

pytestmark = pytest.mark.process


@pytest.mark.parametrize(
    "args",
    [("prompt", "--host", "codex"), ("--host=codex", "prompt")],  # the second goes through click
    ids=["plain", "click"],
)
def test_an_input_past_the_limit_is_the_empty_answer_and_said_so(
    run_mem: RunMem,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("MEM_STATE_DIR", str(state))
    prompt = "postgres connection pooling " * (hook.INPUT_LIMIT // 28 + 1)
    payload = json.dumps({"cwd": str(project), "session_id": "big", "prompt": prompt})
    done = run_mem("hook", *args, input=payload)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "the host's input is over 16 MiB" in log


def test_the_input_is_read_no_further_than_the_limit() -> None:
    class Stream:
        asked: list[int] = []

        def read(self, size: int = -1) -> bytes:
            self.asked.append(size)
            return b"x" * size

    stream = Stream()
    assert len(hook.read_input(stream)) == hook.INPUT_LIMIT + 1
    assert stream.asked == [hook.INPUT_LIMIT + 1]
