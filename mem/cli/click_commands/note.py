"""`mem note`: add a decision, lesson or pattern as a well-formed section."""

from __future__ import annotations

import sys

import click

from mem import clock
from mem.cli import surface
from mem.commands import note
from mem.errors import MemError
from mem.files import safe_paths
from mem.render import memory_views


@click.group(cls=surface.SubGroup, name="note")
def note_group() -> None:
    """Add a decision, lesson or pattern as a well-formed section."""


@note_group.command(name="add")
@click.argument("kind", metavar="decision|lesson|pattern")
@click.option("--title", metavar="TEXT", help="The heading's title (one line, at most 200).")
@click.option("--body", metavar="TEXT", help="The note's text (at most 8000 characters).")
@click.option("--stdin", is_flag=True, help="Read the note's text from standard input.")
@surface.allow_secret_option
@surface.project_options
def note_add(
    kind: str,
    title: str | None,
    body: str | None,
    stdin: bool,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Append a dated `###` section to .agents/memory/<kind>s.md.

    The heading is `YYYY-MM-DD — TITLE` (a pattern's is its name); without text, the
    template's fields are written for you to fill in. The file is created from its
    template when missing; nothing else in it is touched. In team layout the note is a
    file of its own, .agents/memory/<kind>s/<date>-<slug>-<writer>.md (docs/team.md).

    \b
    Example:
        mem note add decision --title "Pool Postgres connections" --stdin < why.md
        mem note add lesson --title "Webhooks retry for 3 days" --body "- **Rule**: ..."
    """
    if stdin and body is not None:
        raise MemError("Give the text with --body or --stdin, not both.")
    text = sys.stdin.read() if stdin else body
    root = safe_paths.project_root(directory)
    result = note.add(root, kind, title, text, clock.now_iso(), allow_secret)
    surface.echo(memory_views.note_added(result, as_json=json_))
