"""The `mem` command line: the only module that imports click.

The legacy actions keep commander's surface of `bmad-plus mem <action> [query...]`: every
action accepts every legacy option (irrelevant ones are ignored), options may come
anywhere, and usage errors exit 1 with commander's wording.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from mem.entry import LEGACY_OPTIONS
from mem.errors import MemError

LEGACY_ACTIONS = "recall | write | reinforce | observe | outcomes"
_FLAG_TEXT = {names[-1]: ", ".join(names) + " " + metavar for names, metavar, _ in LEGACY_OPTIONS}
_TAKES_VALUE = {name for names, _, _ in LEGACY_OPTIONS for name in names}


class UsageFailure(click.ClickException):
    """A usage error in commander's words, on stderr, exit 1."""

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


class ActionFailure(click.ClickException):
    """A MemError of one action: `mem <action>: <message>` on stderr, or a JSON line on stdout."""

    def __init__(self, action: str, message: str, as_json: bool) -> None:
        super().__init__(message)
        self.action = action
        self.as_json = as_json

    def show(self, file: Any = None) -> None:
        from mem import render

        stream, text = render.action_error(self.action, self.message, self.as_json)
        click.echo(text, nl=False, err=stream == "stderr")


def _commander_usage(error: click.UsageError) -> UsageFailure:
    if isinstance(error, click.NoSuchOption):
        return UsageFailure(f"unknown option '{error.option_name}'")
    if isinstance(error, click.BadOptionUsage) and error.option_name in _FLAG_TEXT:
        return UsageFailure(f"option '{_FLAG_TEXT[error.option_name]}' argument missing")
    return UsageFailure(error.format_message())


class MemGroup(click.Group):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args:
            raise UsageFailure("missing required argument 'action'")
        return super().parse_args(ctx, _action_first(args))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            click.echo(f"mem: unknown action '{name}' — expected {LEGACY_ACTIONS}", err=True)
            ctx.exit(1)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise _commander_usage(error) from None
        except MemError as error:
            name = ctx.invoked_subcommand or "mem"
            raise ActionFailure(name, str(error), bool(ctx.meta.get("mem.json"))) from None


def _action_first(args: list[str]) -> list[str]:
    """commander finds the action among options (`mem --json recall x`); click wants it first."""
    position = 0
    while position < len(args) and args[position].startswith("-") and args[position] != "--":
        position += 2 if args[position] in _TAKES_VALUE else 1
    if 0 < position < len(args):
        return [args[position], *args[:position], *args[position + 1 :]]
    return args


def _remember_json(ctx: click.Context, _: click.Parameter, value: bool) -> bool:
    ctx.meta["mem.json"] = value
    return value


def legacy_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every legacy action accepts every legacy option, as under commander."""
    for names, metavar, help_ in reversed(LEGACY_OPTIONS):
        dest = names[-1].lstrip("-").replace("-", "_")
        command = click.option(*names, dest, metavar=metavar.strip("<>").upper(), help=help_)(command)
    command = click.option(
        "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
    )(command)
    return click.argument("words", nargs=-1)(command)


def _directory(options: dict[str, Any]) -> str:
    from mem import files

    return files.project_root(options.get("directory"))


@click.group(cls=MemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mem")
def cli() -> None:
    """Project memory — recall | write | reinforce | observe | outcomes.

    Deterministic memory for AI coding agents, on the same files as `bmad-plus mem`.
    """


@cli.command()
@legacy_options
def recall(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """Ranked notes and journal events for a query.

    \b
    Example:
        mem recall postgres pooling --limit 3 --json
    """
    from mem import entry

    click.echo(entry.recall_output(words, json_, options), nl=False)


@cli.command()
@legacy_options
def write(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """Append an event to the journal (.bmad/memory/journal.ndjson).

    \b
    Example:
        mem write --agent forge --task "refactor pooling" --outcome success --ci pass
    """
    from mem import clock, journal, render

    signals = journal.parse_signals(options["eval"], options["accept"], options["ci"])
    event = journal.build_event(
        clock.now_iso(),
        options["agent"],
        options["cli"],
        options["model"],
        options["task"],
        options["outcome"],
        signals,
    )
    root = _directory(options)
    journal.append_event(root, event)
    click.echo(render.written_json(event) if json_ else render.write_text(event), nl=False)


@cli.command()
@legacy_options
def outcomes(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """List observed outcome receipts and whether each is still eligible.

    \b
    Example:
        mem outcomes --json
    """
    from mem import outcomes as outcomes_

    results = outcomes_.inspect(_directory(options))
    click.echo(outcomes_.render(results, json_), nl=False)


@cli.group(name="index")
def index_group() -> None:
    """Inspect the index cache (a disposable copy of the canonical files)."""


@index_group.command(name="path")
@click.option("-d", "--directory", help="Project directory (default: the current directory).")
def index_path(directory: str | None) -> None:
    """Print where the project's index lives.

    \b
    Example:
        sqlite3 "$(mem index path)" 'SELECT count(*) FROM notes'
    """
    from mem import files, index, sync

    root = files.project_root(directory)
    sync.sync_project(root)
    click.echo(index.index_path(root, "project"))


@cli.command()
@legacy_options
def reinforce(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """Fold reward signals into a pattern's score (Elo and Beta).

    Proposes, never applies, a promotion once the mean reaches 0.7 over 3 updates.

    \b
    Example:
        mem reinforce --pattern "chromadb batch ingestion" --eval 0.9 --accept yes --ci pass
    """
    from mem import clock, journal, pattern_store, patterns, render

    signals = journal.parse_signals(options["eval"], options["accept"], options["ci"])
    evidence = patterns.parse_evidence(options["evidence"])
    root = _directory(options)
    result = pattern_store.reinforce(root, options["pattern"], signals, evidence, clock.now_iso())
    click.echo(render.reinforce_json(result) if json_ else render.reinforce_text(result), nl=False)


@cli.command(name="patterns")
@click.option("-d", "--directory", help="Project directory (default: the current directory).")
@click.option(
    "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
)
def patterns_command(directory: str | None, json_: bool) -> None:
    """List the scored patterns, best first.

    With each pattern's patterns.md section and newest promotion status.

    \b
    Example:
        mem patterns --json
    """
    from mem import files, pattern_store, render

    listed = pattern_store.scored_patterns(files.project_root(directory))
    click.echo(render.patterns_json(listed) if json_ else render.patterns_text(listed), nl=False)


def main() -> NoReturn:
    cli.main(prog_name="mem")
    sys.exit(0)
