"""Ctrl-C ends `mem` as it ends any command: by the signal, with no traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

# The console script's main, with the recall interrupted where a user's Ctrl-C lands most
# often: while the index is checked and queried.
INTERRUPTED = """
import sys
from mem.cli import fast, main

def interrupted(*args, **kwargs):
    raise KeyboardInterrupt

fast.recall_output = interrupted
sys.argv[0] = "mem"
main.main()
"""


def test_ctrl_c_during_a_recall_ends_by_the_signal_without_a_traceback(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, "recall", "postgres", "-d", str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -signal.SIGINT
    assert done.stderr == ""
    assert done.stdout == ""
