"""`mem write`: append an event to the journal."""

from __future__ import annotations

from typing import Any

import click

from mem import clock
from mem.cli import surface
from mem.commands import write as write_
from mem.render import action_views


@click.command(cls=surface.LegacyCommand)
@surface.legacy_options
@surface.allow_secret_option
@click.option(
    "--session",
    metavar="ID",
    help="The agent session this event ends or reports on (default: the one the host's"
    " environment names); noted on this machine for `mem injections --outcomes`.",
)
def write(
    words: tuple[str, ...],
    json_: bool,
    allow_secret: tuple[str, ...],
    session: str | None,
    **options: Any,
) -> None:
    """Append an event to the journal.

    The journal is .bmad/memory/journal.ndjson, appended under writer.lock.

    \b
    Example:
        mem write --agent forge --task "refactor pooling" --outcome success --ci pass
    """
    event = write_.write(
        surface.directory_of(options),
        clock.now_iso(),
        agent=options["agent"],
        cli=options["cli"],
        model=options["model"],
        task=options["task"],
        outcome=options["outcome"],
        eval_=options["eval"],
        accept=options["accept"],
        ci=options["ci"],
        allow_secrets=allow_secret,
        session=session,
    )
    surface.echo(action_views.write(event, as_json=json_))
