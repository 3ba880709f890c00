"""`mem reinforce`: fold reward signals into a pattern's score (Elo and Beta)."""

from __future__ import annotations

from typing import Any

import click

from mem import clock
from mem.cli import surface
from mem.commands import reinforce as reinforce_
from mem.render import action_views


@click.command(cls=surface.LegacyCommand)
@surface.legacy_options
@surface.allow_secret_option
def reinforce(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Fold reward signals into a pattern's score (Elo and Beta).

    Proposes, never applies, a promotion once the mean reaches 0.7 over 3 updates.

    \b
    Example:
        mem reinforce --pattern "chromadb batch ingestion" --eval 0.9 --accept yes --ci pass
    """
    result, warning = reinforce_.reinforce(
        surface.directory_of(options),
        clock.now_iso(),
        pattern=options["pattern"],
        eval_=options["eval"],
        accept=options["accept"],
        ci=options["ci"],
        evidence=options["evidence"],
        allow_secrets=allow_secret,
    )
    if warning is not None:
        surface.echo(f"mem reinforce: warning: {warning}\n", err=True)
    surface.echo(action_views.reinforce(result, as_json=json_))
