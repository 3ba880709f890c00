"""`mem patterns`: list the scored patterns, best first."""

from __future__ import annotations

import click

from mem.cli.surface import (
    MemCommand,
    echo,
    project_options,
)
from mem.commands import patterns
from mem.files import safe_paths
from mem.render import action_views


@click.command(cls=MemCommand, name="patterns")
@project_options
def patterns_command(directory: str | None, json_: bool) -> None:
    """List the scored patterns, best first.

    With each pattern's patterns.md section and newest promotion status.

    \b
    Example:
        mem patterns --json
    """
    listed = patterns.listed(safe_paths.project_root(directory))
    echo(action_views.patterns(listed, as_json=json_))
