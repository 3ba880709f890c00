"""`mem patterns`: list the scored patterns, best first."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import patterns
from mem.files import safe_paths
from mem.render import action_views


@click.command(cls=surface.MemCommand, name="patterns")
@surface.project_options
def patterns_command(directory: str | None, json_: bool) -> None:
    """List the scored patterns, best first.

    With each pattern's patterns.md section and newest promotion status.

    \b
    Example:
        mem patterns --json
    """
    listed = patterns.listed(safe_paths.project_root(directory))
    surface.echo(action_views.patterns(listed, as_json=json_))
