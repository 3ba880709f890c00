"""`mem export`: export the global brain as one Markdown file."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import export as export_
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@surface.directory_option
@click.option("--output", metavar="PATH", help="Where to write (default: in the project).")
@click.option("--force", is_flag=True, help="Replace an existing export.")
@surface.allow_secret_option
@surface.json_option
def export(
    directory: str | None,
    output: str | None,
    force: bool,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Export the global brain as one Markdown file.

    \b
    Example:
        mem export --output /tmp/brain.md
    """
    root = safe_paths.project_root(directory)
    result = export_.export(root, clock.now_iso(), output, force, allow_secret)
    surface.echo(report.export(result, as_json=json_))
