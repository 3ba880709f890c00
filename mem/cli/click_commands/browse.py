"""`mem browse`: browse the index read-only in a web browser."""

from __future__ import annotations

import click

from mem.cli import progress, surface
from mem.commands import browse
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand, name="browse")
@surface.portfolio_options
@click.option("--port", metavar="N", help="Port on 127.0.0.1 (default 8001; 0: any free port).")
@surface.project_options
def browse_command(
    portfolio_: bool, brain: str | None, port: str | None, directory: str | None, json_: bool
) -> None:
    """Browse the index read-only in a web browser.

    Syncs, then serves a read-only snapshot with Datasette on 127.0.0.1 until Ctrl-C, and
    prints the URL. With --portfolio, the portfolio index: every registered project.
    Needs the optional extra:

    \b
        pipx inject mem-project 'datasette>=0.65,<1.0'
        pip install './mem-project[web]'   (with pip, from the checkout)

    \b
    Example:
        mem browse --port 8001
        mem browse --portfolio --port 0
    """
    shown = progress.Progress("mem browse: syncing the portfolio index")

    def ready(served: browse.Served) -> None:
        shown.clear()
        for where, problem in served.problems:
            surface.echo(f"mem browse: warning: {where}: {problem}\n", err=True)
        surface.echo(report.browse(served._asdict(), as_json=json_))
        surface.echo("mem browse: stop with Ctrl-C.\n", err=True)

    root = safe_paths.project_root(directory)
    with shown:
        browse.browse(
            root, port, ready, portfolio=portfolio_, explicit=brain, progress=shown.sync_step
        )
