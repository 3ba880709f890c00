"""Run `mem` several times, one after the other, in this one process; print what each gave.

A stress test's writer process: it takes the writer lock as often as a loop of console
scripts would, but pays Python's start-up and the command's imports (the secret detector's
alone is about 0.3 s) once, not once a write. Argument: a JSON list of runs, each
`{"args": [...], "env": {...}, "cwd": "..."}`; output: a JSON list of
`[exit code, stdout, stderr]`, one a run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support.cli import in_process  # noqa: E402


def main() -> None:
    answers = []
    for run in json.loads(sys.argv[1]):
        done = in_process(*run["args"], cwd=run.get("cwd"), env=run.get("env"))
        answers.append([done.returncode, done.stdout, done.stderr])
    sys.stdout.write(json.dumps(answers))


if __name__ == "__main__":
    main()
