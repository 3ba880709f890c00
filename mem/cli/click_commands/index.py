"""`mem index`: inspect the index cache, a disposable copy of the files."""

from __future__ import annotations

import sys

import click

from mem.cli import progress, surface
from mem.commands import index_cache
from mem.files import safe_paths
from mem.render import report


@click.group(cls=surface.SubGroup, name="index")
def index_group() -> None:
    """Inspect the index cache, a disposable copy of the files."""


@index_group.command(name="path")
@surface.directory_option
@surface.portfolio_options
@surface.json_option
def index_path(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Print where the project's (or the portfolio's) index lives.

    \b
    Example:
        sqlite3 "$(mem index path)" 'SELECT count(*) FROM notes'
        sqlite3 "$(mem index path --portfolio)" 'SELECT project_name, count(*) FROM notes'
    """
    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: syncing the portfolio index") as shown:
        result = index_cache.index_path(root, portfolio_, brain, shown.sync_step)
    surface.echo(report.index_path(result, as_json=json_))


@index_group.command(name="check")
@surface.directory_option
@surface.portfolio_options
@surface.json_option
def index_check(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Verify the index equals a fresh build.

    Exits 1 and lists the differences when it does not.

    \b
    Example:
        mem index check --json
        mem index check --portfolio
    """
    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: checking the portfolio index") as shown:
        result = index_cache.index_check(root, portfolio_, brain, shown.sync_step)
    surface.echo(report.index_check(result, as_json=json_))
    if not result["ok"]:
        sys.exit(1)


@index_group.command(name="rebuild")
@surface.directory_option
@surface.portfolio_options
@surface.json_option
def index_rebuild(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Rebuild the index from the files now.

    \b
    Example:
        mem index rebuild
        mem index rebuild --portfolio
    """
    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: rebuilding the portfolio index") as shown:
        result = index_cache.index_rebuild(root, portfolio_, brain, shown.sync_step)
    surface.echo(report.index_rebuild(result, as_json=json_))
