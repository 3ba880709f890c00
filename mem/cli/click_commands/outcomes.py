"""`mem outcomes`: list outcome receipts and whether each is still eligible."""

from __future__ import annotations

from typing import Any

import click

from mem.cli import surface
from mem.commands import outcomes as outcomes_
from mem.render import action_views


@click.command(cls=surface.LegacyCommand)
@surface.legacy_options
def outcomes(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """List outcome receipts and whether each is still eligible.

    \b
    Example:
        mem outcomes --json
    """
    results = outcomes_.listed(surface.directory_of(options))
    surface.echo(action_views.outcomes(results, as_json=json_))
