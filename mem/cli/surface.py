"""commander's surface on click: how mem's click commands read their arguments and word
their errors, and the option bundles they declare.

The legacy actions keep commander's surface of `bmad-plus mem <action> [query...]`: every
action accepts every legacy option (its help shows only those it reads), options may come
anywhere, and usage errors exit 1 in commander's words (mem.cli.commander reads their
arguments as commander does; click then only fills in the values). The other commands are
plain click, their usage errors worded and exiting alike. The top-level group loads each
command's module only when that command is asked for (mem.cli.app.COMMANDS).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

import mem
from mem.cli import commander
from mem.cli.options import LEGACY_ACTIONS, LEGACY_OPTIONS, LEGACY_TABLE, VERSION, candidates
from mem.errors import MemError
from mem.files import safe_paths
from mem.render import action_views

# Where the modules of mem.cli.app.COMMANDS are.
COMMAND_PACKAGE = "mem.cli.click_commands"


def echo(text: str, err: bool = False) -> None:
    """Write through the process's own streams, which escape what they cannot encode."""
    click.echo(text, nl=False, file=sys.stderr if err else sys.stdout)


class UsageFailure(click.ClickException):
    """A usage error in commander's words, on stderr, exit 1."""

    def show(self, file: Any = None) -> None:
        echo(f"error: {self.message}\n", err=True)


class HelpOnError(click.ClickException):
    """A group called without its subcommand: its help on stderr, exit 1."""

    def __init__(self, ctx: click.Context) -> None:
        super().__init__(ctx.get_help())

    def show(self, file: Any = None) -> None:
        echo(self.message + "\n", err=True)


class ActionFailure(click.ClickException):
    """A MemError of one action: `mem <action>: <message>` on stderr, or a JSON line on stdout."""

    def __init__(self, action: str, message: str, as_json: bool) -> None:
        super().__init__(message)
        self.action = action
        self.as_json = as_json

    def show(self, file: Any = None) -> None:
        stream, text = action_views.action_error(self.action, self.message, as_json=self.as_json)
        echo(text, err=stream == "stderr")


def _option_flags(option: click.Option) -> str:
    names = ", ".join([*option.opts, *option.secondary_opts])
    return names if option.is_flag else f"{names} <{(option.metavar or 'value').lower()}>"


def _usage_failure(
    error: click.UsageError, command: click.Command | None = None
) -> click.ClickException:
    """Click's usage errors of the non-legacy commands, worded as commander words its own."""
    no_args_is_help = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2
    if isinstance(error, no_args_is_help) and error.ctx is not None:
        return HelpOnError(error.ctx)
    command = command or (error.ctx.command if error.ctx else None)
    options = [p for p in command.params if isinstance(p, click.Option)] if command else []
    if isinstance(error, click.NoSuchOption):
        longs = [name for option in options for name in option.opts if name.startswith("--")]
        hint = commander.suggestion(error.option_name, [*longs, "--help"])
        hint = hint if error.option_name.startswith("--") else ""
        return UsageFailure(f"unknown option '{error.option_name}'{hint}")
    if isinstance(error, click.BadOptionUsage):
        for option in options:
            if error.option_name in option.opts and not option.is_flag:
                return UsageFailure(f"option '{_option_flags(option)}' argument missing")
    return UsageFailure(error.format_message())


def _parse_worded(
    command: click.Command, ctx: click.Context, parse: Callable[[], list[str]]
) -> list[str]:
    try:
        return parse()
    except click.UsageError as error:
        if ctx.resilient_parsing:
            raise
        raise _usage_failure(error, command) from None


class MemCommand(click.Command):
    """A command of mem's own: its usage errors read `error: ...` and exit 1."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return _parse_worded(self, ctx, lambda: super(MemCommand, self).parse_args(ctx, args))


class SubGroup(click.Group):
    """`mem index`, `mem evidence`: usage errors worded alike; alone, the group shows its help."""

    command_class = MemCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return _parse_worded(self, ctx, lambda: super(SubGroup, self).parse_args(ctx, args))


class MemGroup(click.Group):
    """The top level: finds the action as commander would, then lets its command parse.

    `lazy` names each command's module (in COMMAND_PACKAGE) and function, imported when the
    command is asked for: `mem write` loads what write needs and no other command's imports.
    `sections` are the headings of `mem --help`.
    """

    command_class = MemCommand
    group_class = SubGroup

    def __init__(
        self,
        *args: Any,
        lazy: Mapping[str, tuple[str, str]],
        sections: Sequence[tuple[str, Sequence[str]]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy
        self.sections = sections

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, function = self.lazy[cmd_name]
            command = getattr(importlib.import_module(f"{COMMAND_PACKAGE}.{module}"), function)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is not None:
            # The action first, as it mostly is: no option before it for commander to read,
            # and no other action's module to load for its options.
            return self._click_parse(ctx, args)
        table = self._commander_table(ctx)
        parsed = commander.parse(args, table)
        action = parsed.operands[0] if parsed.operands else None
        command = self.get_command(ctx, action) if action is not None else None
        if command is not None and parsed.first_operand_at is not None:
            # commander finds the action among the options; click wants it first
            at = parsed.first_operand_at
            return self._click_parse(ctx, [args[at], *args[:at], *args[at + 1 :]])
        if ctx.resilient_parsing:  # shell completion: never an error, never an exit
            return super().parse_args(ctx, [])
        if parsed.error is None and "version" in parsed.values:
            return self._click_parse(ctx, ["--version"])
        if parsed.error is None and commander.wants_help(parsed):
            return self._click_parse(ctx, ["--help"])
        message = commander.usage_error(parsed, candidates(table))
        if message is not None:
            raise UsageFailure(message)
        if action is None:
            raise UsageFailure("missing required argument 'action'")
        echo(f"mem: unknown action '{action}' — expected {' | '.join(LEGACY_ACTIONS)}\n", err=True)
        ctx.exit(1)

    def _click_parse(self, ctx: click.Context, args: list[str]) -> list[str]:
        return _parse_worded(self, ctx, lambda: super(MemGroup, self).parse_args(ctx, args))

    def _commander_table(self, ctx: click.Context) -> list[commander.Option]:
        """The legacy options plus the flags of every legacy action: options before the action."""
        table = list(LEGACY_TABLE)
        for name in LEGACY_ACTIONS:
            command = self.get_command(ctx, name)
            if isinstance(command, LegacyCommand):
                table += [entry for entry in command.commander_table() if entry not in table]
        return table

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise _usage_failure(error) from None
        except MemError as error:
            name = ctx.invoked_subcommand or "mem"
            raise ActionFailure(name, str(error), bool(ctx.meta.get("mem.json"))) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Every command, under its heading, subcommands of a group on rows of their own."""
        rows: dict[str, list[tuple[str, str]]] = {}
        placed = {name: title for title, names in self.sections for name in names}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            section = rows.setdefault(placed.get(name, "Other commands"), [])
            if isinstance(command, click.Group):
                for sub in command.list_commands(ctx):
                    subcommand = command.get_command(ctx, sub)
                    if subcommand is not None and not subcommand.hidden:
                        section.append((f"{name} {sub}", subcommand.get_short_help_str(60)))
            else:
                section.append((name, command.get_short_help_str(60)))
        ranked = {name: position for position, name in enumerate(placed)}
        for title in [*(title for title, _ in self.sections), "Other commands"]:
            if rows.get(title):
                entries = sorted(rows[title], key=lambda row: ranked.get(row[0].split()[0], 0))
                with formatter.section(title):
                    formatter.write_dl(entries)


class LegacyCommand(click.Command):
    """A legacy action: commander reads the arguments; the ignored legacy options are hidden."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        legacy = {option.names[-1]: option for option in LEGACY_OPTIONS}
        for param in self.params:
            if isinstance(param, click.Option) and param.opts[-1] in legacy:
                param.hidden = self.name not in legacy[param.opts[-1]].used_by

    def commander_table(self) -> list[commander.Option]:
        """The command's options as commander sees them, each landing in its click parameter."""
        legacy = {entry.names: entry for entry in LEGACY_TABLE}
        table = []
        for param in self.params:
            if isinstance(param, click.Option) and param.name and param.name != "help":
                names = tuple(param.opts)
                flags = legacy[names].flags if names in legacy else _option_flags(param)
                option = commander.Option(
                    names, not param.is_flag, flags, param.name, repeatable=param.multiple
                )
                table.append(option)
        return [*table, legacy[VERSION.names]]

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)
        return pieces if self.name == "recall" else pieces[:1]  # only recall reads words

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        table = self.commander_table()
        parsed = commander.parse(args, table)
        if not ctx.resilient_parsing:
            if parsed.error is None and "version" in parsed.values:
                echo(f"mem, version {mem.__version__}\n")
                ctx.exit(0)
            if parsed.error is None and commander.wants_help(parsed):
                echo(ctx.get_help() + "\n")
                ctx.exit(0)
            message = commander.usage_error(parsed, candidates(table))
            if message is not None:
                raise UsageFailure(message)
        by_destination = {param.name: param for param in self.params}
        canonical = []
        for destination, value in parsed.values.items():
            param = by_destination.get(destination)
            if not isinstance(param, click.Option):
                continue
            long = next(name for name in param.opts if name.startswith("--"))
            given = value if isinstance(value, list) else [value]
            canonical += [long if each is True else f"{long}={each}" for each in given]
        return super().parse_args(ctx, [*canonical, "--", *parsed.operands])


def _remember_json(ctx: click.Context, _: click.Parameter, value: bool) -> bool:
    ctx.meta["mem.json"] = value
    return value


# Options declared once; a command lists the bundles it takes.
def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
    )(command)


def directory_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("-d", "--directory", metavar="PATH", help=LEGACY_OPTIONS[0].help)(command)


def project_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`-d/--directory` and `--json`, as every project command takes them."""
    return directory_option(json_option(command))


def legacy_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every legacy option, as under commander; LegacyCommand hides those an action ignores."""
    for option in reversed(LEGACY_OPTIONS):
        if option.value is None:
            command = json_option(command)
        else:
            metavar = option.value.strip("<>").upper()
            declare = click.option(
                *option.names, option.destination, metavar=metavar, help=option.help
            )
            command = declare(command)
    return click.argument("words", nargs=-1, metavar="[QUERY]...")(command)


def allow_secret_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every command that writes text checks it for secrets; this lets one kind through, once."""
    return click.option(
        "--allow-secret",
        "allow_secret",
        multiple=True,
        metavar="KIND",
        help="Write even though the text holds a possible secret of KIND (a false positive;"
        " repeatable; recorded nowhere).",
    )(command)


def directory_of(options: dict[str, Any]) -> str:
    return safe_paths.project_root(options.get("directory"))


def portfolio_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--portfolio` (the portfolio index instead of the project's) and the brain it is of."""
    command = brain_option(command)
    return click.option(
        "--portfolio", "portfolio_", is_flag=True, help="The portfolio index of the brain."
    )(command)


def brain_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--brain", metavar="PATH", help="The brain (default: the linked or detected brain)."
    )(command)


ROOT_HELP = "Top level of the git work tree the sources live in (default: the project directory)."
