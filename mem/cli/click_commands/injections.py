"""`mem injections`: list what the hooks injected into sessions (this machine)."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import injections
from mem.errors import MemError
from mem.files import safe_paths
from mem.render import injection_views


@click.command(cls=surface.MemCommand, name="injections")
@click.option("--session", metavar="ID", help="Only the injections into this session.")
@click.option(
    "--outcomes",
    "outcomes_",
    is_flag=True,
    help="Per memory: how often it was injected and how those sessions ended.",
)
@surface.project_options
def injections_command(
    session: str | None, outcomes_: bool, directory: str | None, json_: bool
) -> None:
    """List what the hooks injected into sessions (this machine).

    Each injection: time, host, session, event, the memories and their revisions, the size
    and SHA-256 of the bytes; and each prompt hook that printed nothing because the session
    had every memory that matched (withheld, with those memories). With --outcomes, per
    memory, how often it was injected and how the sessions it went into ended (the outcome
    of their last `mem write`).

    \b
    Example:
        mem injections --session 0193a1f2
        mem injections --outcomes --json
    """
    root = safe_paths.project_root(directory)
    if outcomes_:
        if session is not None:
            raise MemError("--outcomes covers every session; --session lists one.")
        surface.echo(injection_views.outcomes(injections.outcomes(root), as_json=json_))
        return
    surface.echo(injection_views.listed(injections.listed(root, session), as_json=json_))
