"""Concurrent writers and readers on one project, through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import answers, mem_command, runs_in_one_process, write_args

WRITERS = 4
WRITES_EACH = 25


@pytest.mark.slow
def test_parallel_writers_and_readers(project: Path) -> None:
    journal = project / ".bmad/memory/journal.ndjson"
    journal.unlink()
    mem = " ".join(mem_command())
    # Readers pause between recalls: they still overlap every write, and their cost no
    # longer grows with how long the writers take.
    reader_script = (
        f'while [ ! -e "$P/done" ]; do {mem} recall task -d "$P" >/dev/null || exit 1;'
        " sleep 0.1; done"
    )
    env = {**os.environ, "P": str(project)}
    readers = [subprocess.Popen(["bash", "-c", reader_script], env=env) for _ in range(2)]
    # Each writer is a process of its own that writes again and again: they contend for the
    # lock as a loop of console scripts would, without a start-up per write.
    writers = [
        runs_in_one_process(
            [
                {"args": write_args(f"w{w}", f"task {w}-{i}", "-d", str(project))}
                for i in range(1, WRITES_EACH + 1)
            ]
        )
        for w in range(WRITERS)
    ]
    outcomes = [[code for code, _, _ in answers(writer)] for writer in writers]
    (project / "done").touch()
    assert outcomes == [[0] * WRITES_EACH] * WRITERS
    assert [reader.wait() for reader in readers] == [0, 0]
    lines = journal.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) == WRITERS * WRITES_EACH
    assert sorted(event["task"] for event in events) == sorted(
        f"task {w}-{i}" for w in range(WRITERS) for i in range(1, WRITES_EACH + 1)
    )
    assert not (project / ".bmad/memory/writer.lock").exists()
    found = subprocess.run(
        [*mem_command(), "recall", "task", "--limit", "1000", "--json", "-d", str(project)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(found.stdout)["count"] == WRITERS * WRITES_EACH
