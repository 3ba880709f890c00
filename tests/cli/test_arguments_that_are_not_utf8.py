"""An argument holding bytes that are not UTF-8 is refused, naming its option: it never
reaches a store (as "\\udcff") nor a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.process

BAD = os.fsdecode(b"x \xff")  # what Python makes of the raw byte: a lone surrogate


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["write", "--agent", "a", "--task", BAD], "mem write: --task is not valid UTF-8"),
        (["write", "--agent", BAD, "--task", "t"], "mem write: --agent is not valid UTF-8"),
        (["write", "--agent", "a", f"--model={BAD}"], "mem write: --model is not valid UTF-8"),
        (["reinforce", "--pattern", BAD, "--eval", "1"], "mem reinforce: --pattern is not valid"),
        (["recall", BAD], "mem recall: the query is not valid UTF-8"),
    ],
)
def test_a_bad_byte_is_refused_naming_the_option(
    run_mem: RunMem, project: Path, arguments: list[str], message: str
) -> None:
    before = {path: path.read_bytes() for path in project.rglob("*") if path.is_file()}
    done = run_mem(*arguments, cwd=project)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(message) and "Traceback" not in done.stderr
    assert {path: path.read_bytes() for path in project.rglob("*") if path.is_file()} == before


def test_json_mode_answers_a_json_error(run_mem: RunMem, project: Path) -> None:
    done = run_mem("write", "--agent", "a", "--model", BAD, "--json", cwd=project)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "error": "--model is not valid UTF-8; pass text, not raw bytes"
    }


@pytest.mark.parametrize("option", ["--ta\\sk", '--ta"sk'])
def test_json_mode_error_is_valid_json_whatever_the_option_holds(
    run_mem: RunMem, project: Path, option: str
) -> None:
    done = run_mem("write", "--json", "--agent", "a", f"{option}={BAD}", cwd=project)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "error": f"{option} is not valid UTF-8; pass text, not raw bytes"
    }
