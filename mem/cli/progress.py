"""Progress on stderr for long operations: only on a terminal, only after the first second;
and, for checks that take minutes on a big project, whole lines anywhere (Lines)."""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import TextIO

DELAY_SECONDS = 1.0
REFRESH_SECONDS = 0.1


class Progress:
    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()
        self.shown_at = 0.0
        self.count = 0
        self.shown = False

    def __enter__(self) -> Progress:
        return self

    def update(self, where: str) -> None:
        self.count += 1
        self._show(f"{self.count} folder(s), {where}")

    def sync_step(self, projects_done: int, projects: int, files: int) -> None:
        """An index sync's progress: roots done out of all, files read so far."""
        self._show(f"{projects_done}/{projects} project(s), {files} file(s) read")

    def _show(self, text: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < DELAY_SECONDS or now - self.shown_at < REFRESH_SECONDS:
            return
        self.shown_at = now
        self.shown = True
        line = f"{self.label}: {text}"
        self.stream.write("\r\033[K" + line[:120])
        self.stream.flush()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.clear()

    def clear(self) -> None:
        """Take the progress line away (before printing a result on the same terminal)."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False

    def step(self, records: int) -> None:
        """A project index built from scratch: the records indexed so far."""
        self._show(f"{records} record(s) indexed")


def show_builds(action: str) -> None:
    """On a terminal, a project index that `mem <action>` builds from scratch shows its
    progress on stderr (a first sync of a big project takes seconds); elsewhere nothing."""
    shown = Progress(f"mem {action}: building the index")
    if shown.enabled:
        from mem.index import build_progress

        build_progress.shown = shown


class Lines:
    """Whole progress lines on stderr, on a terminal or not (a CI log, a file): after the
    first seconds, one each time another tenth is done or LINE_SECONDS have passed.
    Nothing on stdout changes."""

    FIRST_SECONDS = 2.0
    LINE_SECONDS = 10.0

    def __init__(self, label: str, unit: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.shown_at = self.started
        self.tenth = -1  # none shown yet: the first line comes once the first seconds pass

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        tenth = done * 10 // total if total else 10
        if now - self.started < self.FIRST_SECONDS:
            return
        if tenth == self.tenth and now - self.shown_at < self.LINE_SECONDS:
            return
        self.tenth, self.shown_at = tenth, now
        share = done * 100 // total if total else 100
        self.stream.write(
            f"{self.label}: {share} % ({done:,} of {total:,} {self.unit},"
            f" {now - self.started:.0f} s)\n"
        )
        self.stream.flush()
