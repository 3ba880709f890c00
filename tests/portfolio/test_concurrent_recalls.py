"""Writers in several projects while portfolio recalls run: nothing lost, nothing stale."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import answers, mem_command, runs_in_one_process, write_args
from support.portfolios import audited_portfolio

WRITES_EACH = 15


@pytest.mark.slow
def test_portfolio_recalls_alongside_writers_in_every_project(tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    mem = " ".join(mem_command())
    reader_script = (
        f'while [ ! -e "$D/done" ]; do'
        f' {mem} recall zeta --scope all -d "$D/project-0" >/dev/null || exit 1; done'
    )
    env = {**os.environ, "D": str(tmp_path)}
    readers = [
        subprocess.Popen(["bash", "-c", reader_script], env=env, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    # A writer in every project, a process of its own that writes again and again: as a
    # loop of console scripts would, without a start-up per write.
    writers = [
        runs_in_one_process(
            [
                {"args": write_args("w", f"zeta {number}-{i}", "-d", str(root))}
                for i in range(1, WRITES_EACH + 1)
            ]
        )
        for number, root in enumerate(roots)
    ]
    outcomes = [[code for code, _, _ in answers(writer)] for writer in writers]
    (tmp_path / "done").touch()
    assert outcomes == [[0] * WRITES_EACH] * len(roots)
    reader_errors = [reader.communicate()[1] for reader in readers]
    assert [reader.returncode for reader in readers] == [0, 0], reader_errors
    found = subprocess.run(
        [
            *mem_command(),
            "recall",
            "zeta",
            "--scope",
            "all",
            "--limit",
            "1000",
            "--json",
            "-d",
            str(roots[0]),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    results = json.loads(found.stdout)["results"]
    assert sorted(entry["text"].split()[2] for entry in results) == sorted(
        f"{number}-{i}" for number in range(len(roots)) for i in range(1, WRITES_EACH + 1)
    )
    checked = subprocess.run(
        [*mem_command(), "index", "check", "--portfolio", "--brain", str(brain)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout
