"""`mem audit`: compare recorded evidence with the checkout."""

from __future__ import annotations

import sys

import click

from mem.cli import surface
from mem.commands import audit, audit_secrets
from mem.files import safe_paths
from mem.render import memory_views, secret_report


@click.command(cls=surface.MemCommand, name="audit")
@click.argument("memory_id", required=False)
@click.option("--root", metavar="DIR", help=surface.ROOT_HELP)
@click.option("--limit", metavar="N", help="Memories to list, 1 to 1000 (default 20).")
@click.option(
    "--secrets", "secrets_", is_flag=True, help="List possible secrets in memory instead."
)
@click.option("--portfolio", is_flag=True, help="--secrets: also the brain and its projects.")
@surface.allow_secret_option
@surface.project_options
def audit_command(
    memory_id: str | None,
    root: str | None,
    limit: str | None,
    secrets_: bool,
    portfolio: bool,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Compare recorded evidence with the checkout.

    Writes nothing: no store, no index cache, no lock.

    With --secrets, list the possible secrets in the memory files and stores (file, line,
    kind; never the value) and exit 1 if there is any, or a file it could not read: a CI
    gate.

    \b
    Example:
        mem audit --limit 20
        mem audit mem_0123456789abcdef0123 --json
        mem audit --secrets --portfolio
    """
    project = safe_paths.project_root(directory)
    if not (secrets_ or portfolio or allow_secret):
        results, total = audit.audit(project, memory_id, root, limit)
        surface.echo(memory_views.audit(results, total, as_json=json_))
        return
    result = audit_secrets.audit_secrets(
        project,
        portfolio,
        allow_secret,
        asked=secrets_,
        memory_id=memory_id,
        checkout_root=root,
        limit=limit,
    )
    surface.echo(secret_report.audit(result, as_json=json_))
    if result["failed"]:
        sys.exit(1)
