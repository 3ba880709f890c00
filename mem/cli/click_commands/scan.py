"""`mem scan`: find projects under a folder."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import progress, surface
from mem.commands import scan as scan_
from mem.render import report


@click.command(cls=surface.MemCommand)
@click.argument("path", required=False)
@surface.directory_option
@click.option("--depth", metavar="N", help="How deep to search (default 4).")
@click.option("--active-days", metavar="N", help="Active when changed within N days (default 30).")
@click.option("--paused-days", metavar="N", help="Paused within N days (default 180).")
@click.option("-y", "--yes", is_flag=True, help="Index the projects found in the global brain.")
@click.option("--register", is_flag=True, help="Register the projects found in the portfolio.")
@surface.brain_option
@surface.allow_secret_option
@surface.json_option
def scan(
    path: str | None,
    directory: str | None,
    depth: str | None,
    active_days: str | None,
    paused_days: str | None,
    yes: bool,
    register: bool,
    brain: str | None,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Find projects under a folder.

    With --yes, index them in the global brain; with --register, register them in the
    portfolio's brain (the one detected from the folder, or --brain).

    \b
    Example:
        mem scan ~/dev --depth 2 --yes
        mem scan ~/dev --register
    """
    with progress.Progress("scanning") as shown:
        result = scan_.scan(
            path or directory or ".",
            clock.now_iso(),
            depth=depth,
            active_days=active_days,
            paused_days=paused_days,
            index=yes,
            register=register,
            explicit=brain,
            progress=shown.update,
            allow_secrets=allow_secret,
        )
    surface.echo(report.scan(result, yes or register, as_json=json_))
