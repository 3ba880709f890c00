"""`mem status`: health of memory, stores, lock and index."""

from __future__ import annotations

import click

from mem.cli import progress, surface
from mem.commands import status as status_
from mem.files import safe_paths
from mem.render import portfolio_views, report


@click.command(cls=surface.MemCommand)
@surface.directory_option
@surface.portfolio_options
@surface.json_option
def status(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Health of memory, stores, lock and index.

    With --portfolio, one row per project of the portfolio.

    \b
    Example:
        mem status --json
        mem status --portfolio
    """
    root = safe_paths.project_root(directory)
    if portfolio_:
        with progress.Progress("mem status: syncing the portfolio index") as shown:
            result = status_.portfolio_status(root, brain, shown.sync_step)
        surface.echo(portfolio_views.status(result, as_json=json_))
        return
    surface.echo(report.status(status_.status(root), as_json=json_))
