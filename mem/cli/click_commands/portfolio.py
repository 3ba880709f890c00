"""`mem portfolio`: the projects registered in the portfolio's brain (projects/*.yaml)."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import portfolio
from mem.files import safe_paths
from mem.render import portfolio_views


@click.group(cls=surface.SubGroup, name="portfolio")
def portfolio_group() -> None:
    """The projects registered in the portfolio's brain (projects/*.yaml)."""


@portfolio_group.command(name="add")
@click.argument("paths", nargs=-1, metavar="PATH...")
@surface.directory_option
@surface.brain_option
@surface.json_option
@surface.allow_secret_option
def portfolio_add(
    paths: tuple[str, ...],
    directory: str | None,
    brain: str | None,
    json_: bool,
    allow_secret: tuple[str, ...],
) -> None:
    """Register projects in the portfolio.

    \b
    Example:
        mem portfolio add ~/dev/shop ~/dev/billing
    """
    root = safe_paths.project_root(directory)
    result = portfolio.add(root, brain, list(paths), clock.now_iso(), allow_secret)
    surface.echo(portfolio_views.added(result, as_json=json_))


@portfolio_group.command(name="list")
@surface.directory_option
@surface.brain_option
@surface.json_option
def portfolio_list(directory: str | None, brain: str | None, json_: bool) -> None:
    """List the registered projects, each marked present or gone.

    \b
    Example:
        mem portfolio list --json
    """
    result = portfolio.listed(safe_paths.project_root(directory), brain)
    surface.echo(portfolio_views.listed(result, as_json=json_))


@portfolio_group.command(name="remove")
@click.argument("project")
@surface.directory_option
@surface.brain_option
@surface.json_option
def portfolio_remove(project: str, directory: str | None, brain: str | None, json_: bool) -> None:
    """Unregister a project by path or name.

    Its files are untouched.

    \b
    Example:
        mem portfolio remove billing
    """
    root = safe_paths.project_root(directory)
    result = portfolio.remove(root, brain, project, clock.now_iso())
    surface.echo(portfolio_views.removed(result, as_json=json_))
