"""Writers in several projects while portfolio recalls run: nothing lost, nothing stale."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import mem_command
from support.portfolios import audited_portfolio

WRITES_EACH = 15


@pytest.mark.slow
def test_portfolio_recalls_alongside_writers_in_every_project(tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    mem = " ".join(mem_command())
    writer_script = (
        f"for i in $(seq 1 {WRITES_EACH}); do"
        f' {mem} write --agent w --task "zeta $W-$i" -d "$P" >/dev/null || exit 1; done'
    )
    reader_script = (
        f'while [ ! -e "$D/done" ]; do'
        f' {mem} recall zeta --scope all -d "$D/project-0" >/dev/null || exit 1; done'
    )
    env = {**os.environ, "D": str(tmp_path)}
    readers = [
        subprocess.Popen(["bash", "-c", reader_script], env=env, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    writers = [
        subprocess.Popen(
            ["bash", "-c", writer_script],
            env={**env, "P": str(root), "W": str(number)},
            stderr=subprocess.PIPE,
        )
        for number, root in enumerate(roots)
    ]
    errors = [writer.communicate()[1] for writer in writers]
    (tmp_path / "done").touch()
    assert [writer.returncode for writer in writers] == [0] * len(roots), errors
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
