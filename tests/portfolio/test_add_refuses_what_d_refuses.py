"""`mem portfolio add` refuses a path as `-d` refuses it: the file system root above all."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script


@pytest.mark.parametrize("args", [("/",), ("--json", "/")], ids=["text", "json"])
def test_portfolio_add_refuses_the_file_system_root(
    project: Path, run_mem: RunMem, isolated_env: Path, args: tuple[str, ...]
) -> None:
    assert run_mem("init", cwd=project).returncode == 0
    entries = sorted((isolated_env / ".bmad-plus/brain/projects").iterdir())
    done = run_mem("portfolio", "add", *args, cwd=project)
    assert done.returncode == 1, done
    message = "Project directory cannot be the file system root: /"
    if "--json" in args:
        assert done.stdout == f'{{"error":"{message}"}}\n'
    else:
        assert (done.stdout, done.stderr) == ("", f"mem portfolio: {message}\n")
    assert sorted((isolated_env / ".bmad-plus/brain/projects").iterdir()) == entries
    assert run_mem("portfolio", "add", "/", "-d", "/", cwd=project).stderr == (
        f"mem portfolio: {message}\n"
    )
