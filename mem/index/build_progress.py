"""Who hears how a project's (or brain's) index built from scratch is coming along.

A first sync of a big project takes seconds; on a terminal the CLI sets `shown` (see
mem.cli.progress.show_builds), and the build tells it the records indexed so far, then
clears it. Nothing else sets it: the MCP server and hooks stay silent on stderr.
"""

from __future__ import annotations

from typing import Protocol


class BuildProgress(Protocol):
    def step(self, records: int) -> None: ...
    def clear(self) -> None: ...


shown: BuildProgress | None = None
