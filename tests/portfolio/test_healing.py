"""A damaged portfolio index never stops an answer: it is rebuilt, or a temporary one answers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import RunMem
from support.portfolios import audited_portfolio

from mem.index import location


def _damage(path: Path, how: str) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if how == "zeroed page":
        with path.open("r+b") as handle:
            handle.seek(4096)
            handle.write(b"\0" * 4096)
    elif how == "random meta":
        with path.open("r+b") as handle:
            handle.seek(100)
            handle.write(os.urandom(3000))
    elif how == "truncated":
        with path.open("r+b") as handle:
            handle.truncate(5000)
    elif how == "directory":
        path.unlink()
        path.mkdir()
        (path / "x").write_text("x")


@pytest.mark.parametrize("how", ["zeroed page", "random meta", "truncated", "directory"])
def test_recall_scope_all_heals(how: str, tmp_path: Path, run_mem: RunMem) -> None:
    brain, roots = audited_portfolio(tmp_path)
    args = ("recall", "pgbouncer", "--scope", "all", "--json", "-d", str(roots[0]))
    first = run_mem(*args)
    assert first.returncode == 0, first.stderr
    path = Path(location.index_path(str(brain.resolve()), location.PORTFOLIO))
    _damage(path, how)
    again = run_mem(*args)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    status = run_mem("status", "--portfolio", "--json", "-d", str(roots[0]))
    assert status.returncode == 0, status.stderr
    checked = run_mem("index", "check", "--portfolio", "-d", str(roots[0]))
    assert "Traceback" not in checked.stderr
    assert path.is_file()  # healing put an index back in its place
    assert run_mem("index", "rebuild", "--portfolio", "-d", str(roots[0])).returncode == 0
    assert run_mem("index", "check", "--portfolio", "-d", str(roots[0])).returncode == 0
