"""`mem hook`: answer a coding agent's hook with project memory."""

from __future__ import annotations

import sys

import click

from mem.cli import surface
from mem.commands import hook
from mem.errors import MemError


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
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show what the hook would print and the matches it would withhold; record nothing.",
)
@surface.project_options
def hook_command(
    event: str,
    host: str,
    budget: str | None,
    threshold: str | None,
    dry_run: bool,
    directory: str | None,
    json_: bool,
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

    With --dry-run (for a person, not a host): what it would print for that input, the
    memories, and those that matched but are withheld because the session was given them
    already (a prompt hook printing nothing for that reason is working); nothing is
    recorded or claimed, and a problem is an error rather than an empty answer.

    \b
    Example:
        echo '{"cwd": ".", "session_id": "s1", "source": "startup"}' \\
            | mem hook session-start --host claude-code
        echo '{"cwd": ".", "session_id": "s1", "prompt": "pooling?"}' \\
            | mem hook prompt --host codex --dry-run --json
    """
    data = b"" if sys.stdin is None or sys.stdin.isatty() else hook.read_input(sys.stdin.buffer)
    if dry_run:
        from mem.render import injection_views

        result = hook.preview(event, host, data, directory, budget, threshold)
        surface.echo(injection_views.hook_preview(result, as_json=json_))
        return
    if json_:
        raise MemError("--json goes with --dry-run: a hook prints what its host reads.")
    surface.echo(hook.run(event, host, data, directory, budget, threshold))
