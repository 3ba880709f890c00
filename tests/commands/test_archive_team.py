"""Deviation D13: `mem archive` refuses a store that has team-layout shards, clearly."""

from __future__ import annotations

from pathlib import Path

from support.cli import RunMem


def test_archive_refuses_a_store_with_shards_and_moves_nothing(
    project: Path, run_mem: RunMem
) -> None:
    (project / ".agents/memory/mem.toml").write_text('layout = "team"\n')
    assert run_mem("write", "--agent", "a", "--task", "sharded", cwd=project).returncode == 0
    before = sorted(str(path) for path in (project / ".bmad").rglob("*"))
    done = run_mem("archive", "journal", "--approve", cwd=project)
    assert done.returncode == 1
    assert "mem archive: .bmad/memory/journal.ndjson has 1 team-layout shard(s) in" in done.stderr
    assert "Nothing was archived." in done.stderr
    assert sorted(str(path) for path in (project / ".bmad").rglob("*")) == before
    status = run_mem("status", cwd=project).stdout
    assert "    + 1 shard(s), the largest" in status
