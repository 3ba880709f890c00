"""Hostile fields in a hook's input (issue 35, item 13): a session id holding a lone
surrogate still gets its brief, once; a cwd holding NUL is refused with a line in hook.log
that says so, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.usefixtures("state")


def _hook(run_mem: RunMem, event: str, payload: str) -> str:
    done = run_mem("hook", event, "--host", "claude-code", input=payload)
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_a_session_id_with_a_lone_surrogate_gets_its_brief_once(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    fields = {"session_id": "a\ud800b", "cwd": str(project)}  # dumped as the escape \ud800
    brief = _hook(run_mem, "session-start", json.dumps({**fields, "source": "startup"}))
    assert "Postgres connection pooling" in brief
    prompt = json.dumps({**fields, "prompt": "postgres connection pooling"})
    assert _hook(run_mem, "prompt", prompt) == ""  # the brief brought it already
    assert not (state / "hook.log").exists()


def test_a_cwd_holding_nul_is_refused_in_the_log(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    payload = json.dumps({"session_id": "s", "cwd": f"{project}\0x", "prompt": "postgres"})
    assert _hook(run_mem, "prompt", payload) == ""
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
    assert log.endswith(
        f' claude-code prompt: refused the cwd "{project}\\u0000x": a path cannot hold a NUL byte\n'
    )
