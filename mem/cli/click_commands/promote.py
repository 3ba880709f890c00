"""`mem promote`: promote a project memory to the brain."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import promote as promote_
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@click.argument("memory_id")
@surface.directory_option
@click.option("--approve", is_flag=True, help="Append it to the brain (needs --by).")
@click.option("--by", metavar="NAME", help="Who approved the promotion.")
@surface.allow_secret_option
@surface.json_option
def promote(
    memory_id: str,
    directory: str | None,
    approve: bool,
    by: str | None,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Promote a project memory to the brain.

    Shows the section; with --approve --by NAME appends it to the brain file of its kind.

    \b
    Example:
        mem promote mem_0123456789abcdef0123 --approve --by alice
    """
    root = safe_paths.project_root(directory)
    result = promote_.promote(root, memory_id, approve, by, clock.now_iso(), allow_secret)
    surface.echo(report.promote(result, as_json=json_))
