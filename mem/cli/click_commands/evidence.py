"""`mem evidence`: record and list the checkout files a memory rests on."""

from __future__ import annotations

import click

from mem import clock
from mem.cli import surface
from mem.commands import evidence
from mem.files import safe_paths
from mem.render import memory_views


@click.group(cls=surface.SubGroup, name="evidence")
def evidence_group() -> None:
    """Record and list the checkout files a memory rests on."""


@evidence_group.command(name="add")
@click.argument("memory_id")
@click.option(
    "--source", "sources", multiple=True, metavar="PATH", help="Source file (repeatable, 1 to 50)."
)
@click.option("--root", metavar="DIR", help=surface.ROOT_HELP)
@surface.allow_secret_option
@surface.project_options
def evidence_add(
    memory_id: str,
    sources: tuple[str, ...],
    root: str | None,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Record the files a memory rests on, by their SHA-256.

    The hashes are bound to the memory's current revision.

    \b
    Example:
        mem evidence add mem_0123456789abcdef0123 --source src/policy.py --source docs/policy.md
    """
    project = safe_paths.project_root(directory)
    added = evidence.add(project, memory_id, list(sources), root, clock.now_iso(), allow_secret)
    surface.echo(memory_views.evidence_added(added, as_json=json_))


@evidence_group.command(name="list")
@click.argument("memory_id")
@surface.project_options
def evidence_list(memory_id: str, directory: str | None, json_: bool) -> None:
    """List a memory's evidence records, marking current ones.

    Every revision's records, in store order.

    \b
    Example:
        mem evidence list mem_0123456789abcdef0123 --json
    """
    memory, records = evidence.listed(safe_paths.project_root(directory), memory_id)
    surface.echo(memory_views.evidence_list(memory, records, as_json=json_))
