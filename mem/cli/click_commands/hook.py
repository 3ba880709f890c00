"""`mem hook`: answer a coding agent's hook with project memory."""

from __future__ import annotations

import sys

import click

from mem.cli import surface
from mem.commands import hook


@click.command(cls=surface.MemCommand, name="hook")
@click.argument("event", metavar="EVENT")
@click.option("--host", default="", metavar="HOST", help="claude-code, codex or gemini.")
@click.option(
    "--budget",
    metavar="CHARS",
    help="At most CHARS characters (default 6000 at session start, 1500 per prompt,"
    " 1000 per edit).",
)
@click.option(
    "--threshold",
    metavar="SHARE",
    help=(
        "prompt: the share of the prompt's weight a memory's score must pass, 0 to 1"
        " (default 0.25); a word no memory holds weighs as the rarest, the weight counts at"
        " most as 7 rarest words, and on a prompt that long a memory holds 5 of its terms."
    ),
)
@surface.directory_option
def hook_command(
    event: str, host: str, budget: str | None, threshold: str | None, directory: str | None
) -> None:
    """Answer a coding agent's hook with project memory.

    EVENT is session-start, prompt or pre-edit. Reads the host's JSON on stdin and prints
    exactly what the host accepts: at session start the brief (as `mem context --budget`),
    on each prompt the memories that match it, before each file edit the memories that
    govern the file (its evidence, its path, the names the edit defines); none that this
    session was given already.
    Never fails: any problem prints the host's empty answer, exits 0 and goes to the hook
    log in the state directory. Every injection is recorded (`mem injections`).
    `mem init --agents --hooks` installs it.

    \b
    Example:
        echo '{"cwd": ".", "session_id": "s1", "source": "startup"}' \\
            | mem hook session-start --host claude-code
    """
    data = b"" if sys.stdin is None or sys.stdin.isatty() else hook.read_input(sys.stdin.buffer)
    surface.echo(hook.run(event, host, data, directory, budget, threshold))
