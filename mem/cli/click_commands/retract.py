"""`mem retract`: record that a memory's current revision is withdrawn."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import retract
from mem.files import safe_paths
from mem.render import memory_views


@click.command(cls=surface.MemCommand, name="retract")
@click.argument("memory_id")
@click.option("--reason", metavar="TEXT", help="Why (at most 2000 characters).")
@surface.allow_secret_option
@surface.project_options
def retract_command(
    memory_id: str,
    reason: str | None,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Record that a memory's current revision is withdrawn.

    An edit to the memory ends the retraction.

    \b
    Example:
        mem retract mem_0123456789abcdef0123 --reason "The recorded conclusion was incorrect"
    """
    outcome = retract.retract(
        safe_paths.project_root(directory), memory_id, reason, clock.now_iso(), allow_secret
    )
    surface.echo(memory_views.lifecycle_outcome("retract", outcome, as_json=json_))
