"""`mem consolidate`: audit memory: duplicates, stale decisions, promotions."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import consolidate as consolidate_
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@surface.directory_option
@surface.json_option
def consolidate(directory: str | None, json_: bool) -> None:
    """Audit memory: duplicates, stale decisions, promotions.

    Writes nothing; each finding carries a proposal a person can apply.

    \b
    Example:
        mem consolidate --json
    """
    result = consolidate_.consolidate(safe_paths.project_root(directory), clock.now_iso())
    surface.echo(report.consolidate(result, as_json=json_))
