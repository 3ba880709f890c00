"""Work run in a forked process of its own that outlives the process that started it.

Forked, not started afresh: the child has mem loaded already (a new interpreter would
spend the hook's seconds importing it again). It leaves the starter's session (a host
that kills the hook's process group leaves it alone) and its stdio (a host reading the
hook's stdout to its end must not wait for the child).
"""

from __future__ import annotations

import os
from collections.abc import Callable


def start(work: Callable[[], None]) -> int:
    """The pid of a forked child running `work`; wait for it with `os.waitpid`."""
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(devnull, descriptor)
        work()
        code = 0
    finally:
        # Whatever happened, the child never returns into its parent's code.
        os._exit(code)


def wait(pid: int, seconds: float | None) -> bool:
    """Whether the child `pid` (of `start`) ended within `seconds` (None: however long it
    takes), reaped then; else it goes on, on its own."""
    if seconds is None:
        os.waitpid(pid, 0)
        return True
    if seconds <= 0:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    if hasattr(os, "pidfd_open"):  # Linux: woken the moment it ends
        import select

        handle = os.pidfd_open(pid)
        try:
            select.select([handle], [], [], seconds)
        finally:
            os.close(handle)
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    import time

    end = time.monotonic() + seconds
    while os.waitpid(pid, os.WNOHANG)[0] == 0:
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(left, 0.01))
    return True
