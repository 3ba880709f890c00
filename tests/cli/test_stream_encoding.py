"""A stream that cannot encode a character gets it escaped, never a UnicodeEncodeError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem

# The process is the point: the encoding of its real stdout and stderr.
pytestmark = pytest.mark.process

ASCII = {"PYTHONIOENCODING": "ascii"}


def test_a_plain_recall_to_an_ascii_stream_escapes(run_mem: RunMem, project: Path) -> None:
    done = run_mem("recall", "postgres", cwd=project, env=ASCII)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.isascii()
    assert "note decisions.md \\u00a7 2026-06-02 \\u2014 Postgres" in done.stdout


def test_json_stays_json_with_the_same_meaning(run_mem: RunMem, project: Path) -> None:
    escaped = run_mem("recall", "postgres", "--json", cwd=project, env=ASCII)
    plain = run_mem("recall", "postgres", "--json", cwd=project)
    assert escaped.returncode == 0 and escaped.stdout.isascii()
    assert json.loads(escaped.stdout) == json.loads(plain.stdout)


def test_the_click_path_escapes_as_the_fast_path_does(run_mem: RunMem, project: Path) -> None:
    fast = run_mem("recall", "postgres", cwd=project, env=ASCII)
    full = run_mem("recall", "postgres", "--include-archive", cwd=project, env=ASCII)
    assert full.returncode == 0
    assert full.stdout == fast.stdout


def test_errors_are_escaped_too(run_mem: RunMem, project: Path) -> None:
    done = run_mem("frobnicate", cwd=project, env=ASCII)
    assert done.returncode == 1
    assert done.stderr == (
        "mem: unknown action 'frobnicate' \\u2014 expected"
        " recall | write | reinforce | observe | outcomes\n"
    )
    failed = run_mem("recall", "é", "--limit", "0", "--json", cwd=project, env=ASCII)
    assert (failed.returncode, failed.stdout.isascii()) == (1, True)
    written = run_mem("write", "--agent", "é", "--task", "naïve — café", cwd=project, env=ASCII)
    assert written.returncode == 0 and "task: na\\u00efve \\u2014 caf\\u00e9" in written.stdout
