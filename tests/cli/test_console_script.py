"""CLI contracts through the real console script: errors, streams, exit codes, the writer lock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import RunMem

# The process is the point: its exit code and streams, the fast path and click behind one script.
pytestmark = pytest.mark.process


def test_options_may_come_before_the_action(run_mem: RunMem, project: Path) -> None:
    done = run_mem("--json", "-d", str(project), "recall", "postgres")
    assert done.returncode == 0
    assert json.loads(done.stdout)["count"] == 4


def test_errors_go_to_stderr_or_one_json_line(run_mem: RunMem, project: Path) -> None:
    text = run_mem("recall", "x", "--limit", "0", cwd=project)
    assert (text.returncode, text.stdout) == (1, "")
    assert text.stderr == "mem recall: recall: --limit must be an integer from 1 to 1000\n"
    as_json = run_mem("write", "--json", cwd=project)
    assert (as_json.returncode, as_json.stderr) == (1, "")
    assert as_json.stdout == '{"error":"appendEvent: event.agent is required"}\n'


def test_write_then_recall_round_trip(run_mem: RunMem, project: Path) -> None:
    written = run_mem(
        "write", "--agent", "forge", "--task", "tune pgbouncer pool size", "--json", cwd=project
    )
    event = json.loads(written.stdout)["written"]
    found = json.loads(run_mem("recall", "pgbouncer", "pool", "--json", cwd=project).stdout)
    assert event in [entry.get("event") for entry in found["results"]]
    journal = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8")
    assert journal.endswith(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n")
    assert not (project / ".bmad/memory/writer.lock").exists()


def test_index_path_is_in_the_cache(run_mem: RunMem, project: Path, isolated_env: Path) -> None:
    done = run_mem("index", "path", "-d", str(project))
    assert done.returncode == 0
    path = Path(done.stdout.strip())
    assert path.is_file() and path.is_relative_to(isolated_env / "cache")


def _hold_lock(project: Path, pid: int) -> str:
    owner = json.dumps({"pid": pid, "hostname": socket.gethostname(), "token": "bmad-plus-writer"})
    lock = project / ".bmad/memory/writer.lock"
    lock.write_text(owner, encoding="utf-8")
    return owner


def test_a_live_foreign_lock_blocks_writers_and_is_left_alone(
    run_mem: RunMem, project: Path
) -> None:
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        owner = _hold_lock(project, holder.pid)
        journal = (project / ".bmad/memory/journal.ndjson").read_bytes()
        started = time.monotonic()
        done = run_mem("write", "--agent", "forge", cwd=project)
        assert time.monotonic() - started >= 1.9  # 200 attempts, 10 ms apart
        assert done.returncode == 1
        assert done.stderr.startswith(
            "mem write: Memory writer lock is occupied. Inspect writer.lock"
        )
        assert f"owner pid {holder.pid} on host {socket.gethostname()}, alive" in done.stderr
        assert (project / ".bmad/memory/writer.lock").read_text(encoding="utf-8") == owner
        assert (project / ".bmad/memory/journal.ndjson").read_bytes() == journal
        assert run_mem("recall", "postgres", cwd=project).returncode == 0  # readers take no lock
    finally:
        holder.kill()
        holder.wait()


def test_a_dead_owner_is_named_as_not_running(run_mem: RunMem, project: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    _hold_lock(project, int(finished.stdout))
    done = run_mem("write", "--agent", "forge", cwd=project)
    assert done.returncode == 1
    assert "not running" in done.stderr and "mem unlock" in done.stderr


def test_symlinked_store_directory_is_refused_for_writes(run_mem: RunMem, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".bmad").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (project / ".bmad/memory").symlink_to(tmp_path / "elsewhere")
    done = run_mem("write", "--agent", "forge", cwd=project)
    assert done.stderr == "mem write: Memory paths cannot follow symbolic links or junctions.\n"
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_python_dash_m_is_the_same_entry_point(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mem", "recall", "hetzner"],
        cwd=project,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith('mem recall: 1 match(es) for "hetzner"')
