"""A warm parent that forks one `mem` process a request: a writer to be killed at any instant.

A `mem write` process spends most of its life starting: Python, then the command's imports
(the secret detector's alone is about 0.3 s). Killed at a random instant of that life, it is
nearly always killed before it touches a file. Forked from this parent, which has done the
imports, the child is the console script's process from the command on: `mem.cli.main`
with its argv, its own pid, its files, its exit. Requests on stdin are JSON lines
`[cwd, [args...]]`; for each the parent prints the child's pid, then its wait status once
it has ended (killed or not).
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    from mem.cli import app  # noqa: F401 - loaded once, here, for every child
    from mem.cli import main as console_script
    from mem.core.rules import secrets

    secrets.scan("")  # the detector's plugins, loaded on a process's first scan

    for line in sys.stdin:
        cwd, args = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.chdir(cwd)
                quiet = os.open(os.devnull, os.O_RDWR)
                for stream in (0, 1, 2):
                    os.dup2(quiet, stream)
                sys.argv = ["mem", *args]
                console_script.main()
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else 1
            finally:
                os._exit(code)
        print(pid, flush=True)
        print(os.waitpid(pid, 0)[1], flush=True)


if __name__ == "__main__":
    main()
