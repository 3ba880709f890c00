"""`mem recall`: ranked notes and journal events for a query."""

from __future__ import annotations

from typing import Any

import click

from mem.cli import fast, surface


@click.command(cls=surface.LegacyCommand)
@click.option("--with-evidence", is_flag=True, help="Add each note's lifecycle and audit status.")
@click.option("--explain", is_flag=True, help="Show every part of each result's score.")
@surface.legacy_options
@click.option("--include-archive", is_flag=True, help="Also search archived journals.")
@click.option("--include-retired", is_flag=True, help="Also list superseded and retracted notes.")
@click.option(
    "--include-history",
    is_flag=True,
    help="--ranking bm25: also rank the git commits (--scope all: every project's).",
)
@click.option(
    "--project",
    "projects",
    multiple=True,
    metavar="NAME",
    help="--scope all: only this registered project (name or path; repeatable).",
)
def recall(words: tuple[str, ...], json_: bool, include_archive: bool, **options: Any) -> None:
    """Ranked notes and journal events for a query.

    --scope all searches every project registered in the portfolio's brain, and its notes.

    \b
    Example:
        mem recall postgres pooling --limit 3 --json
        mem recall postgres pooling --scope all --project shop
        mem recall retry backoff --ranking bm25 --include-history
    """
    surface.echo(fast.recall_output(words, json_, options, include_archive=include_archive))
