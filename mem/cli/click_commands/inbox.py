"""`mem inbox`: review imported memories: list, show, accept or reject them (list by default)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mem import clock
from mem.cli import surface
from mem.commands import inbox
from mem.files import safe_paths
from mem.render import inbox_views


@click.group(cls=surface.SubGroup, name="inbox", invoke_without_command=True)
@surface.project_options
@click.pass_context
def inbox_group(ctx: click.Context, directory: str | None, json_: bool) -> None:
    """Review imported memories: list, show, accept or reject them (list by default).

    \b
    Example:
        mem inbox
        mem inbox accept imp_0123456789abcdef
        mem inbox reject --all
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(inbox_list, directory=directory, json_=json_)


def _inbox_ids(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option("--all", "every", is_flag=True, help="Every pending candidate.")(command)
    return click.argument("ids", nargs=-1, metavar="[ID...]")(command)


@inbox_group.command(name="list")
@click.option("--all", "every", is_flag=True, help="Also the accepted and rejected ones.")
@surface.project_options
def inbox_list(every: bool = False, directory: str | None = None, json_: bool = False) -> None:
    """The candidates waiting for a yes or a no."""
    result = inbox.listing(safe_paths.project_root(directory), every)
    surface.echo(inbox_views.listed(result, as_json=json_))


@inbox_group.command(name="show")
@_inbox_ids
@surface.project_options
def inbox_show(ids: tuple[str, ...], every: bool, directory: str | None, json_: bool) -> None:
    """Candidates whole: the notes they would write."""
    result = inbox.show(safe_paths.project_root(directory), ids, every)
    surface.echo(inbox_views.shown(result, as_json=json_))


@inbox_group.command(name="accept")
@_inbox_ids
@surface.allow_secret_option
@surface.project_options
def inbox_accept(
    ids: tuple[str, ...],
    every: bool,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Write candidates as notes, as `mem note add` does.

    Each note goes where `mem note add` puts it (classic or team layout), dated today,
    with the line saying where it came from; accepting one already accepted changes
    nothing, and one that cannot be written stays in the inbox with the reason.

    \b
    Example:
        mem inbox accept imp_0123456789abcdef
        mem inbox accept --all
    """
    root = safe_paths.project_root(directory)
    result = inbox.decide(root, "accept", ids, every, clock.now_iso(), allow_secret)
    surface.echo(inbox_views.decided(result, as_json=json_))


@inbox_group.command(name="reject")
@_inbox_ids
@surface.project_options
def inbox_reject(ids: tuple[str, ...], every: bool, directory: str | None, json_: bool) -> None:
    """Set candidates aside for good.

    A later `mem import` will not offer them again."""
    root = safe_paths.project_root(directory)
    result = inbox.decide(root, "reject", ids, every, clock.now_iso())
    surface.echo(inbox_views.decided(result, as_json=json_))
