"""`mem check`: check the project's memory as its readers meet it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from mem.cli import progress, surface
from mem.commands import amendments, findability
from mem.files import safe_paths
from mem.render import report


@click.group(cls=surface.SubGroup, name="check")
def check_group() -> None:
    """Check the project's memory as its readers meet it."""


def check_scope_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--scope",
        type=click.Choice(["project", "all"]),
        default="project",
        show_default=True,
        help="The project, or each project registered in the portfolio.",
    )(command)


@check_group.command(name="findability")
@surface.directory_option
@check_scope_option
@surface.brain_option
@click.option(
    "--min-recall",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Exit 1 when a ranking finds fewer notes in its top 5 (a share from 0 to 1).",
)
@surface.json_option
def check_findability(
    directory: str | None, scope: str, brain: str | None, min_recall: float | None, json_: bool
) -> None:
    """Whether the queries a user could type for each note find it.

    For every note: its heading's content words, the identifiers and paths it names, and
    the entries of an `Aliases:` line, each searched as `mem recall` searches. Reports the
    share of notes found first and in the top 5, the notes no query finds, and the notes
    another note shadows (ranked above for every query); with --scope all, also notes of
    different projects with the same heading words.

    \b
    Example:
        mem check findability
        mem check findability --min-recall 0.9   # in CI
        mem check findability --scope all --json
    """
    root = safe_paths.project_root(directory)
    checked = progress.Lines("mem check findability", "note checks")
    result = findability.findability_report(root, scope, brain, min_recall, checked)
    surface.echo(report.findability(result, as_json=json_))
    if result.get("belowMinRecall"):
        sys.exit(1)


@check_group.command(name="amendments")
@surface.directory_option
@check_scope_option
@surface.brain_option
@click.option("--fail-on-found", is_flag=True, help="Exit 1 when a likely pair is found (for CI).")
@surface.json_option
def check_amendments(
    directory: str | None, scope: str, brain: str | None, fail_on_found: bool, json_: bool
) -> None:
    """Active notes that a later note on the same subject likely amends.

    Pairs two active notes when their words weigh alike (shared terms, the same heading
    words) and one is newer (the date its heading starts with, else the later section).
    Lists each pair, older first, with why and the `mem supersede` command that retires
    the older once a person has confirmed it. Until then, recall with bm25 or
    --with-evidence, MCP recall and the hooks show the newer first and mark the older.

    \b
    Example:
        mem check amendments
        mem check amendments --fail-on-found   # in CI
        mem check amendments --scope all --json
    """
    root = safe_paths.project_root(directory)
    result = amendments.amendments_report(root, scope, brain)
    surface.echo(report.amendments(result, as_json=json_))
    if fail_on_found and result["pairs"]:
        sys.exit(1)
