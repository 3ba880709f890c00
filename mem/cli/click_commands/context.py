"""`mem context`: what an agent starting work should know."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import context
from mem.errors import MemError
from mem.files import safe_paths
from mem.render import memory_views


@click.command(cls=surface.MemCommand, name="context")
@click.option("--with-evidence", is_flag=True, help="Add each memory's audit and outcome receipts.")
@click.option(
    "--budget",
    metavar="CHARS",
    help="Only the brief, in at most CHARS characters of output (400 to 10000000).",
)
@surface.project_options
def context_command(
    with_evidence: bool, budget: str | None, directory: str | None, json_: bool
) -> None:
    """What an agent starting work should know.

    The context file, the newest handoff, the brain link, the last commits and every
    memory with its status.

    With --budget, a brief that fits: the head of context.md, the newest handoff's open
    points, then the active memories, those matching the current work (branch, changed
    files) first, then the newest; whole entries only, ending with how many were left
    out. Same files and git state, same bytes.

    \b
    Example:
        mem context --with-evidence --json
        mem context --budget 6000
    """
    root = safe_paths.project_root(directory)
    if budget is not None:
        if with_evidence:
            raise MemError("--budget and --with-evidence do not go together.")
        surface.echo(context.brief(root, budget, as_json=json_))
        return
    state = context.gather(root, with_evidence)
    surface.echo(memory_views.context(state, as_json=json_))
