"""Work split over forked copies of this process, where that is safe and there are cores.

A copy starts in a fraction of a millisecond with everything this process has loaded, so
work of a few milliseconds (thousands of `stat` calls, say) is worth sharing; threads are
not, as each call would hand the interpreter lock back and forth.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    Item = TypeVar("Item")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether a forked copy is safe: no other thread that could hold a lock it inherits."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def map_shares(
    work: Callable[[Sequence[Item]], bytes | None], items: Sequence[Item], least: int
) -> list[bytes | None]:
    """`work` of each share of `items`, in order: the shares but the last worked out by
    forked copies while this process works out the last.

    As many shares as there are cores, each of at least `least` items (one share, and no
    copy, for fewer). A copy that fails or dies has its share worked out again here, so its
    error, if it was one, is raised here with a traceback.
    """
    count = min(cores(), len(items) // max(least, 1)) if can_fork() else 1
    if count <= 1:
        return [work(items)]
    size = -(-len(items) // count)
    shares = [items[start : start + size] for start in range(0, len(items), size)]
    copies: list[tuple[int, int] | None] = []
    answers: list[tuple[bool, bytes | None]] = []
    try:
        for share in shares[:-1]:
            copies.append(_fork(work, share))
        last = work(shares[-1])
        answers = [(False, None) if copy is None else _answer(*copy) for copy in copies]
    finally:
        for position, copy in enumerate(copies):
            if copy is not None:
                os.close(copy[1])
                if position >= len(answers):  # interrupted: its work is not wanted
                    stop(copy[0])
    results = [
        answer if finished else work(share)
        for share, (finished, answer) in zip(shares[:-1], answers, strict=True)
    ]
    return [*results, last]


_NONE, _BYTES = b"0", b"1"  # a copy's first byte: its share's work gave None, or bytes


def _fork(
    work: Callable[[Sequence[Item]], bytes | None], share: Sequence[Item]
) -> tuple[int, int] | None:
    """(pid, the pipe it answers on) of a copy working out share; None when none starts."""
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # at the process limit, or out of memory: the share is worked out here
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # pragma: no cover - the copy (coverage does not follow it)
        os.close(read_end)
        _copy(work, share, write_end)
    os.close(write_end)
    return pid, read_end


def _copy(  # pragma: no cover - runs in the copy
    work: Callable[[Sequence[Item]], bytes | None], share: Sequence[Item], pipe: int
) -> None:
    """A copy's whole life: work, write the answer, exit (never return to the caller)."""
    import gc

    gc.disable()  # a collection would touch, and so copy, every page of the parent's objects
    status = 1
    try:
        result = work(share)
        view = memoryview(_NONE if result is None else _BYTES + result)
        while view:
            view = view[os.write(pipe, view) :]
        status = 0
    finally:
        os._exit(status)


def _answer(pid: int, pipe: int) -> tuple[bool, bytes | None]:
    """(whether the copy finished, what its work gave)."""
    with os.fdopen(pipe, "rb", closefd=False) as reader:
        message = reader.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not message:
        return False, None
    return True, None if message[:1] == _NONE else message[1:]


def stop(pid: int) -> None:
    """Kill a forked copy whose work is not wanted any more, and reap it."""
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # reaped already
        os.waitpid(pid, 0)
