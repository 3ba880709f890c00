"""`mem handoff`: write a session handoff (never overwrites one)."""

from __future__ import annotations

import sys

import click

from mem import clock
from mem.cli import surface
from mem.commands import handoff as handoff_
from mem.errors import MemError
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@surface.directory_option
@click.option("--topic", required=True, metavar="TEXT", help="What the session was about.")
@click.option("--from", "from_", metavar="FILE", help="Read the handoff text from FILE.")
@click.option("--stdin", is_flag=True, help="Read the handoff text from standard input.")
@surface.allow_secret_option
@surface.json_option
def handoff(
    directory: str | None,
    topic: str,
    from_: str | None,
    stdin: bool,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Write a session handoff (never overwrites one).

    The file is .agents/memory/sessions/<date>-<topic>.md.

    \b
    Example:
        mem handoff --topic "auth refactor" --from notes/handoff.md
    """
    if (from_ is None) == (not stdin):
        raise MemError("Give exactly one of --from FILE or --stdin.")
    text = sys.stdin.read() if stdin else handoff_.read_input_file(from_ or "")
    root = safe_paths.project_root(directory)
    result = handoff_.handoff(root, topic, text, clock.now_iso(), allow_secret)
    surface.echo(report.handoff(result, as_json=json_))
