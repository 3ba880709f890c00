"""A team project's journal may hold any number of shards: years of writers and branches."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.trees import write


def test_a_journal_of_two_thousand_shards_is_read_in_order(run_mem: RunMem, tmp_path: Path) -> None:
    write(tmp_path / ".agents/memory/mem.toml", 'layout = "team"\n')
    for number in range(2000):
        month = f"20{24 + number // 1000}-{1 + number % 12:02d}"
        line = {"ts": f"{month}-01T00:00:00.000Z", "agent": "forge", "task": f"deploy {number}"}
        write(
            tmp_path / f".bmad/memory/journal.d/{month}/w{number:04d}-main.ndjson",
            json.dumps(line) + "\n",
        )
    done = run_mem("recall", "deploy", "--limit", "1000", "--json", "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert len(results) == 1000
    status = run_mem("status", "--json", "-d", str(tmp_path))
    assert status.returncode == 0, status.stderr
