"""`mem doctor`: check the project for problems before they happen."""

from __future__ import annotations

import sys

import click

from mem.cli import surface
from mem.commands import doctor
from mem.commands import doctor_hooks as doctor_hooks_
from mem.files import safe_paths
from mem.render import report


@click.group(cls=surface.SubGroup, name="doctor")
def doctor_group() -> None:
    """Check the project for problems before they happen."""


@doctor_group.command(name="merge")
@click.argument("branches", nargs=-1, metavar="[BRANCH...]")
@surface.project_options
def doctor_merge(branches: tuple[str, ...], directory: str | None, json_: bool) -> None:
    """Memory files merging a branch would conflict in.

    Runs `git merge-tree --write-tree` per branch (default: every local and
    remote-tracking branch but the checked-out one), touching neither the worktree nor
    the index. It checks the files, not merge drivers, so the answer holds for GitHub's
    merges too. Exit 1 when a branch would conflict in a memory file.

    \b
    Example:
        mem doctor merge
        mem doctor merge origin/feature --json
    """
    result = doctor.merge(safe_paths.project_root(directory), list(branches))
    surface.echo(report.doctor_merge(result, as_json=json_))
    if result["conflicting"]:
        sys.exit(1)


@doctor_group.command(name="hooks")
@surface.project_options
def doctor_hooks(directory: str | None, json_: bool) -> None:
    """Whether each agent host's mem hooks will really run here, and each fix.

    Per host (Claude Code, Codex, Gemini CLI): where mem's hooks are installed (the
    project's settings file, the user's), whether the host can read it, whether each
    hook's command can start (an absolute path, or a name on this shell's PATH), and the
    host's own trust: Claude Code's trusted folders (~/.claude.json), Codex's project trust
    and per-hook trust hashes ($CODEX_HOME/config.toml), Gemini CLI's trusted folders
    (~/.gemini/trustedFolders.json). Reads only; each problem says the step that fixes it.
    Exit 1 when a problem was found, 0 when every installed hook will run.

    \b
    Example:
        mem doctor hooks
        mem doctor hooks --json
    """
    result = doctor_hooks_.hooks(safe_paths.project_root(directory))
    surface.echo(report.doctor_hooks(result, as_json=json_))
    if result["problems"]:
        sys.exit(1)
