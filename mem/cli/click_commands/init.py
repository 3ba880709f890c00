"""`mem init`: set up project memory and link the brain."""

from __future__ import annotations

import click

from mem import clock, layout
from mem.cli import surface
from mem.commands import init as init_
from mem.commands import init_agents, init_hooks
from mem.files import safe_paths
from mem.render import report


@click.command(cls=surface.MemCommand)
@click.argument("files", nargs=-1, metavar="[FILE...]")
@surface.directory_option
@click.option(
    "--agents",
    is_flag=True,
    help="Write the memory protocol block into FILE... (default AGENTS.md) instead.",
)
@click.option(
    "--hooks",
    is_flag=True,
    help="With --agents: also merge mem's hooks into the hosts' settings files.",
)
@click.option(
    "--host",
    "hosts",
    multiple=True,
    metavar="HOST",
    help="claude-code, codex or gemini (repeatable; default: all three).",
)
@click.option("--user", is_flag=True, help="With --hooks: your home's settings files instead.")
@click.option(
    "--remove", "remove_", is_flag=True, help="With --agents: take the block (and hooks) out."
)
@click.option(
    "--team",
    is_flag=True,
    help=f'Also write {layout.SETTINGS} with layout = "team" (docs/team.md).',
)
@surface.json_option
def init(
    files: tuple[str, ...],
    directory: str | None,
    agents: bool,
    hooks: bool,
    hosts: tuple[str, ...],
    user: bool,
    remove_: bool,
    team: bool,
    json_: bool,
) -> None:
    """Set up project memory and link the brain.

    Creates missing files from templates, links the brain, indexes the project.

    Never overwrites a file; a second run only refreshes `linked_at`.

    With --agents, writes only the memory protocol block (read at session start, write on
    the trigger, hand off at the end; guardrails G1-G4) between markers in each FILE, or
    by default in AGENTS.md, with an import of it in CLAUDE.md and GEMINI.md (those that
    exist, and those of the hosts --host names); text outside the markers is kept byte
    for byte, a second run changes nothing, --remove restores the file.

    With --hooks, also merges mem's hooks (`mem hook`: the brief at session start, the
    matching memories on each prompt, the governing ones at each file edit) into
    .claude/settings.json, .codex/hooks.json and .gemini/settings.json (the home's with
    --user), keeping every other key and hook and the file's layout; the hooks run this mem
    by its absolute path (run init again after moving it); --remove takes out only mem's.
    `mem doctor hooks` checks they will run.

    With --team, also writes the settings file that turns on the team layout, where
    concurrent clones and branches never append to the same file (docs/team.md).

    \b
    Example:
        mem init -d ~/dev/shop
        mem init --team
        mem init --agents AGENTS.md CLAUDE.md GEMINI.md
        mem init --agents --hooks
        mem init --agents --hooks --host claude-code --user
    """
    init_agents.check_usage(agents, remove_, list(files), hooks, bool(hosts), user)
    if team and agents:  # --agents writes only the block: the settings file is plain init's
        raise click.UsageError("--team cannot be combined with --agents (run mem init --team).")
    if agents:
        root = safe_paths.project_root(directory)
        chosen = init_hooks.hosts_of(list(hosts)) if hooks or hosts else None
        if hooks:
            init_hooks.check(root, chosen or [], user, removing=remove_)
        if remove_:
            result = init_agents.remove(root, list(files))
            if hooks:
                result["settings"] = init_hooks.remove(root, chosen or [], user)
        else:
            result = init_agents.install(root, list(files), chosen)
            if hooks:
                result["settings"] = init_hooks.install(root, chosen or [], user)
        surface.echo(report.agents(result, as_json=json_))
        return
    result = init_.init(safe_paths.project_root(directory), clock.now_iso(), team=team)
    for warning in result["warnings"]:
        surface.echo(f"mem init: warning: {warning}\n", err=True)
    surface.echo(report.init(result, as_json=json_))
