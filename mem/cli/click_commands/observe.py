"""`mem observe`: record that verified Nexus work supports a memory."""

from __future__ import annotations

from typing import Any

import click

from mem import clock
from mem.cli import surface
from mem.commands import observe as observe_
from mem.render import action_views


@click.command(cls=surface.LegacyCommand)
@surface.legacy_options
@surface.allow_secret_option
def observe(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Record that verified Nexus work supports a memory.

    The input names the Nexus run and task, the memory section (file and heading), the
    scope and an interpretation; the receipt goes to .bmad/memory/outcomes.ndjson.

    \b
    Example:
        mem observe --input observation.json --json
    """
    receipt = observe_.observe(
        surface.directory_of(options), options["input"], clock.now_iso(), allow_secret
    )
    surface.echo(action_views.observe(receipt, as_json=json_))
