"""The `mem` command line: the only package that imports click.

The top-level group and its table of commands; each command is declared in its own module
of mem.cli.click_commands, loaded when it is asked for, on the surface of mem.cli.surface
(commander's reading of the legacy actions, usage errors in commander's words).
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

import mem
from mem.cli.surface import MemGroup, echo

# command -> (its module in mem.cli.click_commands, the click command's name there)
COMMANDS = {
    "archive": ("archive", "archive"),
    "audit": ("audit", "audit_command"),
    "browse": ("browse", "browse_command"),
    "cache": ("cache", "cache_group"),
    "check": ("check", "check_group"),
    "consolidate": ("consolidate", "consolidate"),
    "context": ("context", "context_command"),
    "doctor": ("doctor", "doctor_group"),
    "evidence": ("evidence", "evidence_group"),
    "export": ("export", "export"),
    "handoff": ("handoff", "handoff"),
    "hook": ("hook", "hook_command"),
    "import": ("import_", "import_command"),
    "inbox": ("inbox", "inbox_group"),
    "index": ("index", "index_group"),
    "init": ("init", "init"),
    "injections": ("injections", "injections_command"),
    "mcp": ("mcp", "mcp_command"),
    "note": ("note", "note_group"),
    "observe": ("observe", "observe"),
    "outcomes": ("outcomes", "outcomes"),
    "patterns": ("patterns", "patterns_command"),
    "portfolio": ("portfolio", "portfolio_group"),
    "promote": ("promote", "promote"),
    "recall": ("recall", "recall"),
    "reinforce": ("reinforce", "reinforce"),
    "retract": ("retract", "retract_command"),
    "scan": ("scan", "scan"),
    "show": ("show", "show_command"),
    "status": ("status", "status"),
    "supersede": ("supersede", "supersede_command"),
    "unlock": ("unlock", "unlock"),
    "write": ("write", "write"),
}

# `mem --help` lists every command under one of these headings; a command missing here is
# listed under "Other commands", never left out.
SECTIONS = (
    (
        "Recall & write",
        ("recall", "write", "context", "handoff", "note", "show", "import", "inbox"),
    ),
    ("Agents", ("mcp", "hook", "injections")),
    ("Patterns & outcomes", ("reinforce", "patterns", "observe", "outcomes")),
    ("Evidence & lifecycle", ("evidence", "audit", "supersede", "retract")),
    (
        "Project & portfolio",
        (
            "init",
            "status",
            "check",
            "portfolio",
            "export",
            "scan",
            "consolidate",
            "promote",
            "archive",
            "unlock",
            "doctor",
        ),
    ),
    ("Index", ("index", "cache", "browse")),
    ("Help", ("help",)),
)


@click.group(
    cls=MemGroup,
    lazy=COMMANDS,
    sections=SECTIONS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(mem.__version__, "-V", "--version", prog_name="mem")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Project memory for AI coding agents: recall what a project learned, record what was done.

    Notes live in Markdown (.agents/memory/, .bmad/memory/) and events in an append-only
    journal; `mem` ranks them for a query, writes events, scores patterns and ties memories
    to evidence. Deterministic and non-interactive. `mem <command> --help` for details.
    """
    action = ctx.invoked_subcommand
    # Never for the server or a hook: their stderr belongs to the agent's host.
    if action is not None and action not in ("mcp", "hook") and sys.stderr.isatty():
        from mem.cli import progress

        progress.show_builds(action)


def _command_names(
    ctx: click.Context, _: click.Parameter, incomplete: str
) -> list[click.shell_completion.CompletionItem]:
    return [
        click.shell_completion.CompletionItem(name)
        for name in cli.list_commands(ctx)
        if name.startswith(incomplete)
    ]


@cli.command(name="help")
@click.argument("command", nargs=-1, shell_complete=_command_names)
def help_command(command: tuple[str, ...]) -> None:
    """Show the commands, or one command's options.

    \b
    Example:
        mem help evidence add
    """
    shown = click.Context(cli, info_name="mem", **cli.context_settings)
    for position, name in enumerate(command):
        group = shown.command
        found = group.get_command(shown, name) if isinstance(group, click.Group) else None
        if found is None:
            raise click.UsageError(f"unknown command '{' '.join(command[: position + 1])}'")
        shown = click.Context(found, info_name=name, parent=shown)
    echo(shown.get_help() + "\n")


def complete(instruction: str) -> NoReturn:
    """Shell completion: an unparsable command line completes to nothing, never a traceback."""
    from click.shell_completion import shell_complete  # only for completion

    try:
        code = shell_complete(cli, {}, "mem", "_MEM_COMPLETE", instruction)
    except click.UsageError:
        code = 0
    sys.exit(code)


def main() -> NoReturn:
    cli.main(prog_name="mem")
    sys.exit(0)
