"""`mem status` after a write: the index is stale until the next read syncs it, and the
status says so, so that `index check` answering ok right after it is no contradiction."""

from __future__ import annotations

from pathlib import Path

from support.cli import RunMem


def test_a_stale_index_is_explained_as_synced_by_the_next_read(
    project: Path, run_mem: RunMem
) -> None:
    assert run_mem("recall", "postgres", cwd=project).returncode == 0
    assert run_mem("write", "--agent", "forge", "--task", "pool", cwd=project).returncode == 0
    lines = run_mem("status", cwd=project).stdout.splitlines()
    at = next(number for number, line in enumerate(lines) if line.startswith("🗂  Index: stale,"))
    assert lines[at + 1] == "  memory files changed since the last read; the next read syncs it"
    assert run_mem("index", "check", cwd=project).stdout.startswith("mem index check: ok")
