"""`mem archive`: archive a full store and start an empty one."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import archive as archive_
from mem.files import safe_paths
from mem.render import report

STORE_NAMES = ("journal", "outcomes", "promotions", "evidence", "lifecycle")  # mem archive


@click.command(cls=surface.MemCommand)
@click.argument("store", type=click.Choice(list(STORE_NAMES)))
@surface.directory_option
@click.option("--approve", is_flag=True, help="Move the store now (without it: show the plan).")
@surface.json_option
def archive(store: str, directory: str | None, approve: bool, json_: bool) -> None:
    """Archive a full store and start an empty one.

    Moves it whole to .bmad/memory/archive/; without --approve, shows the plan.

    \b
    Example:
        mem archive journal --approve
    """
    result = archive_.archive(safe_paths.project_root(directory), store, approve, clock.now_iso())
    surface.echo(report.archive(result, as_json=json_))
