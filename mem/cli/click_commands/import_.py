"""`mem import`: bring a host's memories into the inbox, for review."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import inbox
from mem.files import safe_paths
from mem.render import inbox_views

HOST_CHOICES = "claude-code|codex|gemini|serena|vscode|all"


@click.command(cls=surface.MemCommand, name="import")
@click.argument("host", metavar=HOST_CHOICES)
@click.option("--dry-run", is_flag=True, help="Show what would be offered; write nothing.")
@surface.allow_secret_option
@surface.project_options
def import_command(
    host: str, dry_run: bool, allow_secret: tuple[str, ...], directory: str | None, json_: bool
) -> None:
    """Bring a host's memories into the inbox, for review.

    Claude Code's auto memory, Codex's memories, Gemini CLI's private project memory,
    Serena's and VS Code Copilot's memory files become candidate notes in this machine's
    inbox (never in the project): each with its kind, and its source and date on a line of
    its own. A possible secret is refused; an exact duplicate of a note or of a candidate
    is skipped, a near one is offered as an amendment. Nothing is a note until
    `mem inbox accept`. docs/import.md says where each host keeps its memory.

    \b
    Example:
        mem import claude-code --dry-run
        mem import all
    """
    root = safe_paths.project_root(directory)
    result = inbox.import_memories(root, host, clock.now_iso(), dry_run, allow_secret)
    surface.echo(inbox_views.imported(result, as_json=json_))
