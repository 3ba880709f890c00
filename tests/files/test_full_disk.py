"""A disk that fills up mid-write loses nothing: no torn line, the store stays writable."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem


def test_a_full_disk_leaves_no_torn_line(tiny_disk: Path, run_mem: RunMem) -> None:
    project = tiny_disk / "project"
    (project / ".bmad/memory").mkdir(parents=True)
    task = "x" * 3000
    failures = []
    for number in range(40):  # 40 x 3 KB events cannot fit in 64 KiB
        done = run_mem("write", "--agent", "forge", "--task", f"{number} {task}", cwd=project)
        if done.returncode:
            failures.append(done.stderr)
    assert failures, "the disk never filled up"
    assert all(message.startswith("mem write: ") for message in failures)
    journal = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8")
    assert journal.endswith("\n")
    events = [json.loads(line) for line in journal.splitlines()]
    assert len(events) == 40 - len(failures)
    assert sorted(path.name for path in project.rglob("*") if path.is_file()) == ["journal.ndjson"]
    assert any("No space left on device; nothing was added." in message for message in failures)
    # Once there is room again, the same store takes writes.
    kept = journal.splitlines(keepends=True)[: len(events) // 2]
    (project / ".bmad/memory/journal.ndjson").write_text("".join(kept), encoding="utf-8")
    assert run_mem("write", "--agent", "forge", "--task", "after", cwd=project).returncode == 0
