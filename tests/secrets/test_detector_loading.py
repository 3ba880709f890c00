"""The secret check costs only the commands that write: recall never loads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _imported(project: Path, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mem", *args, "-d", str(project)],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
    )
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}


def test_recall_loads_no_secret_detection(project: Path) -> None:
    _imported(project, "recall", "postgres")  # builds the index
    for args in (("recall", "postgres"), ("recall", "postgres", "--json")):
        modules = _imported(project, *args)
        assert "mem.commands.recall" in modules
        assert not {
            name
            for name in modules
            if name.startswith(("detect_secrets", "mem.core.rules.secrets"))
        }


def test_a_write_runs_the_detector(project: Path) -> None:
    modules = _imported(project, "write", "--agent", "forge", "--task", "pooling")
    assert "mem.core.rules.secrets" in modules
    assert "detect_secrets.plugins.base" in modules
