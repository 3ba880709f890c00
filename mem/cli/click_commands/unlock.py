"""`mem unlock`: remove a dead writer's writer.lock."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import unlock as unlock_
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@surface.directory_option
@surface.json_option
def unlock(directory: str | None, json_: bool) -> None:
    """Remove a dead writer's writer.lock.

    Only when its owner is provably dead on this host; otherwise changes nothing.

    \b
    Example:
        mem unlock
    """
    surface.echo(report.unlock(unlock_.unlock(safe_paths.project_root(directory)), as_json=json_))
