"""`mem supersede`: record that another memory replaces this one."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import supersede
from mem.files import safe_paths
from mem.render import memory_views


@click.command(cls=surface.MemCommand, name="supersede")
@click.argument("memory_id")
@click.option("--with", "successor", metavar="ID", help="Full id of the memory that replaces it.")
@click.option("--reason", metavar="TEXT", help="Why (at most 2000 characters).")
@surface.allow_secret_option
@surface.project_options
def supersede_command(
    memory_id: str,
    successor: str | None,
    reason: str | None,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Record that another memory replaces this one.

    Binds the current revisions of both; an edit to either ends it.

    \b
    Example:
        mem supersede mem_0123456789abcdef0123 --with mem_3210fedcba9876543210 \\
            --reason "Policy changed after review"
    """
    root = safe_paths.project_root(directory)
    outcome = supersede.supersede(root, memory_id, successor, reason, clock.now_iso(), allow_secret)
    surface.echo(memory_views.lifecycle_outcome("supersede", outcome, as_json=json_))
