"""`mem show`: print one memory (or a commit, by its sha) whole."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import note
from mem.files import safe_paths
from mem.render import memory_views


@click.command(cls=surface.MemCommand, name="show")
@click.argument("memory_id")
@surface.project_options
def show_command(memory_id: str, directory: str | None, json_: bool) -> None:
    """Print one memory (or a commit, by its sha) whole.

    A memory with its lifecycle status; a commit by a short or full sha, with its paths.

    \b
    Example:
        mem show mem_0123456789abcdef0123
        mem show 9d9c0fe
    """
    result = note.show(safe_paths.project_root(directory), memory_id)
    surface.echo(memory_views.memory_shown(result, as_json=json_))
