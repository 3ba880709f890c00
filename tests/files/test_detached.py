"""Work in a process of its own (mem.files.detached): waited for as long as one may."""

from __future__ import annotations

import time

from mem.files import detached


def test_a_wait_ends_at_its_seconds_and_the_work_goes_on() -> None:
    worker = detached.start(lambda: time.sleep(0.5))
    began = time.monotonic()
    assert detached.wait(worker, 0.05) is False
    assert time.monotonic() - began < 0.4
    assert detached.wait(worker, 5.0) is True  # it ends on its own, and is reaped


def test_a_wait_returns_when_the_work_ends() -> None:
    worker = detached.start(lambda: None)
    began = time.monotonic()
    assert detached.wait(worker, 5.0) is True
    assert time.monotonic() - began < 4.0
