"""The `mem` command line: the only module that imports click.

The legacy actions keep commander's surface of `bmad-plus mem <action> [query...]`: every
action accepts every legacy option (its help shows only those it reads), options may come
anywhere, and usage errors exit 1 in commander's words (mem.cli.commander reads their
arguments as commander does; click then only fills in the values). The other commands are
plain click, their usage errors worded and exiting alike.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

import mem
from mem import layout
from mem.cli import commander
from mem.cli.options import LEGACY_ACTIONS, LEGACY_OPTIONS, LEGACY_TABLE, VERSION, candidates
from mem.errors import MemError
from mem.files import safe_paths

STORE_NAMES = ("journal", "outcomes", "promotions", "evidence", "lifecycle")  # mem archive
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
        from mem import render

        stream, text = render.action_error(self.action, self.message, as_json=self.as_json)
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
    """The top level: finds the action as commander would, then lets its command parse."""

    command_class = MemCommand
    group_class = SubGroup

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
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
        placed = {name: title for title, names in SECTIONS for name in names}
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
        for title in [*(title for title, _ in SECTIONS), "Other commands"]:
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


def _directory(options: dict[str, Any]) -> str:
    from mem.files import safe_paths

    return safe_paths.project_root(options.get("directory"))


@click.group(cls=MemGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


@cli.command(cls=LegacyCommand)
@click.option("--with-evidence", is_flag=True, help="Add each note's lifecycle and audit status.")
@click.option("--explain", is_flag=True, help="Show every part of each result's score.")
@legacy_options
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
    from mem.cli import fast

    echo(fast.recall_output(words, json_, options, include_archive=include_archive))


@cli.command(cls=LegacyCommand)
@legacy_options
@allow_secret_option
@click.option(
    "--session",
    metavar="ID",
    help="The agent session this event ends or reports on (default: the one the host's"
    " environment names); noted on this machine for `mem injections --outcomes`.",
)
def write(
    words: tuple[str, ...],
    json_: bool,
    allow_secret: tuple[str, ...],
    session: str | None,
    **options: Any,
) -> None:
    """Append an event to the journal.

    The journal is .bmad/memory/journal.ndjson, appended under writer.lock.

    \b
    Example:
        mem write --agent forge --task "refactor pooling" --outcome success --ci pass
    """
    from mem import clock, render
    from mem.commands import write

    event = write.write(
        _directory(options),
        clock.now_iso(),
        agent=options["agent"],
        cli=options["cli"],
        model=options["model"],
        task=options["task"],
        outcome=options["outcome"],
        eval_=options["eval"],
        accept=options["accept"],
        ci=options["ci"],
        allow_secrets=allow_secret,
        session=session,
    )
    echo(render.write(event, as_json=json_))


@cli.command(cls=LegacyCommand)
@legacy_options
def outcomes(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """List outcome receipts and whether each is still eligible.

    \b
    Example:
        mem outcomes --json
    """
    from mem import render
    from mem.commands import outcomes as outcomes_

    results = outcomes_.listed(_directory(options))
    echo(render.outcomes(results, as_json=json_))


@cli.group(name="index")
def index_group() -> None:
    """Inspect the index cache, a disposable copy of the files."""


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


@index_group.command(name="path")
@directory_option
@portfolio_options
@json_option
def index_path(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Print where the project's (or the portfolio's) index lives.

    \b
    Example:
        sqlite3 "$(mem index path)" 'SELECT count(*) FROM notes'
        sqlite3 "$(mem index path --portfolio)" 'SELECT project_name, count(*) FROM notes'
    """
    from mem.cli import progress
    from mem.commands import index_cache
    from mem.render import report

    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: syncing the portfolio index") as shown:
        result = index_cache.index_path(root, portfolio_, brain, shown.sync_step)
    echo(report.index_path(result, as_json=json_))


@index_group.command(name="check")
@directory_option
@portfolio_options
@json_option
def index_check(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Verify the index equals a fresh build.

    Exits 1 and lists the differences when it does not.

    \b
    Example:
        mem index check --json
        mem index check --portfolio
    """
    from mem.cli import progress
    from mem.commands import index_cache
    from mem.render import report

    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: checking the portfolio index") as shown:
        result = index_cache.index_check(root, portfolio_, brain, shown.sync_step)
    echo(report.index_check(result, as_json=json_))
    if not result["ok"]:
        sys.exit(1)


@index_group.command(name="rebuild")
@directory_option
@portfolio_options
@json_option
def index_rebuild(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Rebuild the index from the files now.

    \b
    Example:
        mem index rebuild
        mem index rebuild --portfolio
    """
    from mem.cli import progress
    from mem.commands import index_cache
    from mem.render import report

    root = safe_paths.project_root(directory)
    with progress.Progress("mem index: rebuilding the portfolio index") as shown:
        result = index_cache.index_rebuild(root, portfolio_, brain, shown.sync_step)
    echo(report.index_rebuild(result, as_json=json_))


@cli.group(name="check")
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
@directory_option
@check_scope_option
@brain_option
@click.option(
    "--min-recall",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Exit 1 when a ranking finds fewer notes in its top 5 (a share from 0 to 1).",
)
@json_option
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
    from mem.cli import progress
    from mem.commands import findability
    from mem.render import report

    root = safe_paths.project_root(directory)
    checked = progress.Lines("mem check findability", "note checks")
    result = findability.findability_report(root, scope, brain, min_recall, checked)
    echo(report.findability(result, as_json=json_))
    if result.get("belowMinRecall"):
        sys.exit(1)


@check_group.command(name="amendments")
@directory_option
@check_scope_option
@brain_option
@click.option("--fail-on-found", is_flag=True, help="Exit 1 when a likely pair is found (for CI).")
@json_option
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
    from mem.commands import amendments
    from mem.render import report

    root = safe_paths.project_root(directory)
    result = amendments.amendments_report(root, scope, brain)
    echo(report.amendments(result, as_json=json_))
    if fail_on_found and result["pairs"]:
        sys.exit(1)


@cli.group(name="cache")
def cache_group() -> None:
    """Find or empty the cache directory where the indexes live."""


@cache_group.command(name="dir")
@json_option
def cache_dir(json_: bool) -> None:
    """Print the cache directory, where the indexes live.

    $MEM_CACHE_DIR, else $XDG_CACHE_HOME/mem, else ~/.cache/mem.

    \b
    Example:
        du -sh "$(mem cache dir)"
    """
    from mem.commands import index_cache
    from mem.render import report

    echo(report.cache_dir(index_cache.cache_dir(), as_json=json_))


@cache_group.command(name="clean")
@directory_option
@click.option("--all", "all_", is_flag=True, help="Every index in the cache, of every project.")
@json_option
def cache_clean(directory: str | None, all_: bool, json_: bool) -> None:
    """Delete the project's index from the cache (or --all).

    Only index files in the cache directory are deleted, never a project's files; the next
    read builds what it needs again. Before `pip uninstall`, `mem cache clean --all`.

    \b
    Example:
        mem cache clean
        mem cache clean --all --json
    """
    from mem.commands import index_cache
    from mem.render import report

    root = None if all_ else safe_paths.project_root(directory)
    echo(report.cache_clean(index_cache.cache_clean(root), as_json=json_))


@cli.command()
@click.argument("files", nargs=-1, metavar="[FILE...]")
@directory_option
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
@json_option
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
    from mem import clock
    from mem.commands import init as init_
    from mem.commands import init_agents, init_hooks
    from mem.render import report

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
        echo(report.agents(result, as_json=json_))
        return
    result = init_.init(safe_paths.project_root(directory), clock.now_iso(), team=team)
    for warning in result["warnings"]:
        echo(f"mem init: warning: {warning}\n", err=True)
    echo(report.init(result, as_json=json_))


@cli.command(name="mcp")
@directory_option
@click.option(
    "--tools",
    "tool_set",
    default="core",
    metavar="SET",
    help="core (default: recall, context, write, note_add, supersede, retract) or all.",
)
def mcp_command(directory: str | None, tool_set: str) -> None:
    """Serve the memory tools to agents over MCP (stdio).

    Tools: recall, context, write, note_add, supersede, retract; with --tools all also
    reinforce, patterns, status, audit, evidence_add, evidence_list and the Nexus tools
    observe and outcomes (every tool answers a call either way). Each answers with its
    command's --json output. Needs the optional extra:

    \b
        pipx inject mem-project 'mcp>=2.3'
        pip install './mem-project[mcp]'   (with pip, from the checkout)

    \b
    Example:
        claude mcp add mem -- mem mcp -d ~/dev/shop
    """
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        from mem.core import extras

        raise MemError(f"the MCP server needs the optional MCP SDK: {extras.install_hint('mcp')}")
    import contextlib

    from mem import index

    if tool_set not in ("core", "all"):
        raise MemError(f"--tools must be core or all, not {tool_set!r}")
    root = safe_paths.project_root(directory)
    # Sync before the SDK is imported: the transient memory of a first build is then reused
    # by the SDK's modules instead of adding to them, and the first call finds a warm index.
    # A project whose index cannot be built now is served all the same: its recall says why.
    with contextlib.suppress(MemError):
        index.sync_project(root)
    from mem.mcp import server

    server.serve(root, tool_set)


@cli.command(name="hook")
@click.argument("event", metavar="EVENT")
@click.option("--host", default="", metavar="HOST", help="claude-code, codex or gemini.")
@click.option(
    "--budget",
    metavar="CHARS",
    help="At most CHARS characters (default 6000 at session start, 1500 per prompt,"
    " 1000 per edit).",
)
@click.option(
    "--threshold",
    metavar="SHARE",
    help=(
        "prompt: the share of the prompt's weight a memory's score must pass, 0 to 1"
        " (default 0.25); a word no memory holds weighs as the rarest, the weight counts at"
        " most as 7 rarest words, and on a prompt that long a memory holds 5 of its terms."
    ),
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show what the hook would print and the matches it would withhold; record nothing.",
)
@project_options
def hook_command(
    event: str,
    host: str,
    budget: str | None,
    threshold: str | None,
    dry_run: bool,
    directory: str | None,
    json_: bool,
) -> None:
    """Answer a coding agent's hook with project memory.

    EVENT is session-start, prompt or pre-edit. Reads the host's JSON on stdin and prints
    exactly what the host accepts: at session start the brief (as `mem context --budget`),
    on each prompt the memories that match it, before each file edit the memories that
    govern the file (its evidence, its path, the names the edit defines); none that this
    session was given already.
    Never fails: any problem prints the host's empty answer, exits 0 and goes to the hook
    log in the state directory. Every injection is recorded (`mem injections`).
    `mem init --agents --hooks` installs it.

    With --dry-run (for a person, not a host): what it would print for that input, the
    memories, and those that matched but are withheld because the session was given them
    already (a prompt hook printing nothing for that reason is working); nothing is
    recorded or claimed, and a problem is an error rather than an empty answer.

    \b
    Example:
        echo '{"cwd": ".", "session_id": "s1", "source": "startup"}' \\
            | mem hook session-start --host claude-code
        echo '{"cwd": ".", "session_id": "s1", "prompt": "pooling?"}' \\
            | mem hook prompt --host codex --dry-run --json
    """
    from mem.commands import hook

    data = b"" if sys.stdin is None or sys.stdin.isatty() else hook.read_input(sys.stdin.buffer)
    if dry_run:
        from mem.render import injection_views

        result = hook.preview(event, host, data, directory, budget, threshold)
        echo(injection_views.hook_preview(result, as_json=json_))
        return
    if json_:
        raise MemError("--json goes with --dry-run: a hook prints what its host reads.")
    echo(hook.run(event, host, data, directory, budget, threshold))


@cli.command(name="injections")
@click.option("--session", metavar="ID", help="Only the injections into this session.")
@click.option(
    "--outcomes",
    "outcomes_",
    is_flag=True,
    help="Per memory: how often it was injected and how those sessions ended.",
)
@project_options
def injections_command(
    session: str | None, outcomes_: bool, directory: str | None, json_: bool
) -> None:
    """List what the hooks injected into sessions (this machine).

    Each injection: time, host, session, event, the memories and their revisions, the size
    and SHA-256 of the bytes; and each prompt hook that printed nothing because the session
    had every memory that matched (withheld, with those memories). With --outcomes, per
    memory, how often it was injected and how the sessions it went into ended (the outcome
    of their last `mem write`).

    \b
    Example:
        mem injections --session 0193a1f2
        mem injections --outcomes --json
    """
    from mem.commands import injections
    from mem.render import injection_views

    root = safe_paths.project_root(directory)
    if outcomes_:
        if session is not None:
            raise MemError("--outcomes covers every session; --session lists one.")
        echo(injection_views.outcomes(injections.outcomes(root), as_json=json_))
        return
    echo(injection_views.listed(injections.listed(root, session), as_json=json_))


@cli.group(name="doctor")
def doctor_group() -> None:
    """Check the project for problems before they happen."""


@doctor_group.command(name="merge")
@click.argument("branches", nargs=-1, metavar="[BRANCH...]")
@project_options
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
    from mem.commands import doctor
    from mem.render import report

    result = doctor.merge(safe_paths.project_root(directory), list(branches))
    echo(report.doctor_merge(result, as_json=json_))
    if result["conflicting"]:
        sys.exit(1)


@doctor_group.command(name="hooks")
@project_options
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
    from mem.commands import doctor_hooks as doctor_hooks_
    from mem.render import report

    result = doctor_hooks_.hooks(safe_paths.project_root(directory))
    echo(report.doctor_hooks(result, as_json=json_))
    if result["problems"]:
        sys.exit(1)


@cli.group(name="note")
def note_group() -> None:
    """Add a decision, lesson or pattern as a well-formed section."""


@note_group.command(name="add")
@click.argument("kind", metavar="decision|lesson|pattern")
@click.option("--title", metavar="TEXT", help="The heading's title (one line, at most 200).")
@click.option("--body", metavar="TEXT", help="The note's text (at most 8000 characters).")
@click.option("--stdin", is_flag=True, help="Read the note's text from standard input.")
@allow_secret_option
@project_options
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
    from mem import clock
    from mem.commands import note
    from mem.render import injection_views

    if stdin and body is not None:
        raise MemError("Give the text with --body or --stdin, not both.")
    text = sys.stdin.read() if stdin else body
    root = safe_paths.project_root(directory)
    result = note.add(root, kind, title, text, clock.now_iso(), allow_secret)
    echo(injection_views.note_added(result, as_json=json_))


@cli.command(name="show")
@click.argument("memory_id")
@project_options
def show_command(memory_id: str, directory: str | None, json_: bool) -> None:
    """Print one memory (or a commit, by its sha) whole.

    A memory with its lifecycle status; a commit by a short or full sha, with its paths.

    \b
    Example:
        mem show mem_0123456789abcdef0123
        mem show 9d9c0fe
    """
    from mem.commands import note
    from mem.render import injection_views

    result = note.show(safe_paths.project_root(directory), memory_id)
    echo(injection_views.memory_shown(result, as_json=json_))


HOST_CHOICES = "claude-code|codex|gemini|serena|vscode|all"


@cli.command(name="import")
@click.argument("host", metavar=HOST_CHOICES)
@click.option("--dry-run", is_flag=True, help="Show what would be offered; write nothing.")
@allow_secret_option
@project_options
def import_command(
    host: str, dry_run: bool, allow_secret: tuple[str, ...], directory: str | None, json_: bool
) -> None:
    """Bring a host's memories into the inbox, for review.

    Claude Code's auto memory, Codex's memories, Gemini CLI's private project memory,
    Serena's and VS Code Copilot's memory files become candidate notes in this machine's
    inbox (never in the project): each with its kind, and its source and date on a line of
    its own. A possible secret is refused; an exact duplicate of a note or of a candidate
    is skipped, a near one is offered as an amendment. Nothing is a note until
    `mem inbox accept`. docs/import.md says where each host keeps its memory.

    \b
    Example:
        mem import claude-code --dry-run
        mem import all
    """
    from mem import clock
    from mem.commands import inbox
    from mem.render import inbox_views

    root = safe_paths.project_root(directory)
    result = inbox.import_memories(root, host, clock.now_iso(), dry_run, allow_secret)
    echo(inbox_views.imported(result, as_json=json_))


@cli.group(name="inbox", invoke_without_command=True)
@project_options
@click.pass_context
def inbox_group(ctx: click.Context, directory: str | None, json_: bool) -> None:
    """Review imported memories: list, show, accept or reject them (list by default).

    \b
    Example:
        mem inbox
        mem inbox accept imp_0123456789abcdef
        mem inbox reject --all
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(inbox_list, directory=directory, json_=json_)


def _inbox_ids(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option("--all", "every", is_flag=True, help="Every pending candidate.")(command)
    return click.argument("ids", nargs=-1, metavar="[ID...]")(command)


@inbox_group.command(name="list")
@click.option("--all", "every", is_flag=True, help="Also the accepted and rejected ones.")
@project_options
def inbox_list(every: bool = False, directory: str | None = None, json_: bool = False) -> None:
    """The candidates waiting for a yes or a no."""
    from mem.commands import inbox
    from mem.render import inbox_views

    result = inbox.listing(safe_paths.project_root(directory), every)
    echo(inbox_views.listed(result, as_json=json_))


@inbox_group.command(name="show")
@_inbox_ids
@project_options
def inbox_show(ids: tuple[str, ...], every: bool, directory: str | None, json_: bool) -> None:
    """Candidates whole: the notes they would write."""
    from mem.commands import inbox
    from mem.render import inbox_views

    result = inbox.show(safe_paths.project_root(directory), ids, every)
    echo(inbox_views.shown(result, as_json=json_))


@inbox_group.command(name="accept")
@_inbox_ids
@allow_secret_option
@project_options
def inbox_accept(
    ids: tuple[str, ...],
    every: bool,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Write candidates as notes, as `mem note add` does.

    Each note goes where `mem note add` puts it (classic or team layout), dated today,
    with the line saying where it came from; accepting one already accepted changes
    nothing, and one that cannot be written stays in the inbox with the reason.

    \b
    Example:
        mem inbox accept imp_0123456789abcdef
        mem inbox accept --all
    """
    from mem import clock
    from mem.commands import inbox
    from mem.render import inbox_views

    root = safe_paths.project_root(directory)
    result = inbox.decide(root, "accept", ids, every, clock.now_iso(), allow_secret)
    echo(inbox_views.decided(result, as_json=json_))


@inbox_group.command(name="reject")
@_inbox_ids
@project_options
def inbox_reject(ids: tuple[str, ...], every: bool, directory: str | None, json_: bool) -> None:
    """Set candidates aside for good.

    A later `mem import` will not offer them again."""
    from mem import clock
    from mem.commands import inbox
    from mem.render import inbox_views

    root = safe_paths.project_root(directory)
    result = inbox.decide(root, "reject", ids, every, clock.now_iso())
    echo(inbox_views.decided(result, as_json=json_))


@cli.command()
@directory_option
@portfolio_options
@json_option
def status(directory: str | None, portfolio_: bool, brain: str | None, json_: bool) -> None:
    """Health of memory, stores, lock and index.

    With --portfolio, one row per project of the portfolio.

    \b
    Example:
        mem status --json
        mem status --portfolio
    """
    from mem.cli import progress
    from mem.commands import status as status_
    from mem.files import safe_paths
    from mem.render import portfolio_views, report

    root = safe_paths.project_root(directory)
    if portfolio_:
        with progress.Progress("mem status: syncing the portfolio index") as shown:
            result = status_.portfolio_status(root, brain, shown.sync_step)
        echo(portfolio_views.status(result, as_json=json_))
        return
    echo(report.status(status_.status(root), as_json=json_))


@cli.group(name="portfolio")
def portfolio_group() -> None:
    """The projects registered in the portfolio's brain (projects/*.yaml)."""


@portfolio_group.command(name="add")
@click.argument("paths", nargs=-1, metavar="PATH...")
@directory_option
@brain_option
@json_option
@allow_secret_option
def portfolio_add(
    paths: tuple[str, ...],
    directory: str | None,
    brain: str | None,
    json_: bool,
    allow_secret: tuple[str, ...],
) -> None:
    """Register projects in the portfolio.

    \b
    Example:
        mem portfolio add ~/dev/shop ~/dev/billing
    """
    from mem import clock
    from mem.commands import portfolio
    from mem.render import portfolio_views

    root = safe_paths.project_root(directory)
    result = portfolio.add(root, brain, list(paths), clock.now_iso(), allow_secret)
    echo(portfolio_views.added(result, as_json=json_))


@portfolio_group.command(name="list")
@directory_option
@brain_option
@json_option
def portfolio_list(directory: str | None, brain: str | None, json_: bool) -> None:
    """List the registered projects, each marked present or gone.

    \b
    Example:
        mem portfolio list --json
    """
    from mem.commands import portfolio
    from mem.render import portfolio_views

    result = portfolio.listed(safe_paths.project_root(directory), brain)
    echo(portfolio_views.listed(result, as_json=json_))


@portfolio_group.command(name="remove")
@click.argument("project")
@directory_option
@brain_option
@json_option
def portfolio_remove(project: str, directory: str | None, brain: str | None, json_: bool) -> None:
    """Unregister a project by path or name.

    Its files are untouched.

    \b
    Example:
        mem portfolio remove billing
    """
    from mem import clock
    from mem.commands import portfolio
    from mem.render import portfolio_views

    root = safe_paths.project_root(directory)
    result = portfolio.remove(root, brain, project, clock.now_iso())
    echo(portfolio_views.removed(result, as_json=json_))


@cli.command()
@directory_option
@click.option("--output", metavar="PATH", help="Where to write (default: in the project).")
@click.option("--force", is_flag=True, help="Replace an existing export.")
@allow_secret_option
@json_option
def export(
    directory: str | None,
    output: str | None,
    force: bool,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Export the global brain as one Markdown file.

    \b
    Example:
        mem export --output /tmp/brain.md
    """
    from mem import clock
    from mem.commands import export as export_
    from mem.render import report

    root = safe_paths.project_root(directory)
    result = export_.export(root, clock.now_iso(), output, force, allow_secret)
    echo(report.export(result, as_json=json_))


@cli.command()
@click.argument("path", required=False)
@directory_option
@click.option("--depth", metavar="N", help="How deep to search (default 4).")
@click.option("--active-days", metavar="N", help="Active when changed within N days (default 30).")
@click.option("--paused-days", metavar="N", help="Paused within N days (default 180).")
@click.option("-y", "--yes", is_flag=True, help="Index the projects found in the global brain.")
@click.option("--register", is_flag=True, help="Register the projects found in the portfolio.")
@brain_option
@allow_secret_option
@json_option
def scan(
    path: str | None,
    directory: str | None,
    depth: str | None,
    active_days: str | None,
    paused_days: str | None,
    yes: bool,
    register: bool,
    brain: str | None,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Find projects under a folder.

    With --yes, index them in the global brain; with --register, register them in the
    portfolio's brain (the one detected from the folder, or --brain).

    \b
    Example:
        mem scan ~/dev --depth 2 --yes
        mem scan ~/dev --register
    """
    from mem import clock
    from mem.cli import progress
    from mem.commands import scan as scan_
    from mem.render import report

    with progress.Progress("scanning") as shown:
        result = scan_.scan(
            path or directory or ".",
            clock.now_iso(),
            depth=depth,
            active_days=active_days,
            paused_days=paused_days,
            index=yes,
            register=register,
            explicit=brain,
            progress=shown.update,
            allow_secrets=allow_secret,
        )
    echo(report.scan(result, yes or register, as_json=json_))


@cli.command()
@directory_option
@click.option("--topic", required=True, metavar="TEXT", help="What the session was about.")
@click.option("--from", "from_", metavar="FILE", help="Read the handoff text from FILE.")
@click.option("--stdin", is_flag=True, help="Read the handoff text from standard input.")
@allow_secret_option
@json_option
def handoff(
    directory: str | None,
    topic: str,
    from_: str | None,
    stdin: bool,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Write a session handoff (never overwrites one).

    The file is .agents/memory/sessions/<date>-<topic>.md.

    \b
    Example:
        mem handoff --topic "auth refactor" --from notes/handoff.md
    """
    from mem import clock
    from mem.commands import handoff as handoff_
    from mem.render import report

    if (from_ is None) == (not stdin):
        raise MemError("Give exactly one of --from FILE or --stdin.")
    text = sys.stdin.read() if stdin else handoff_.read_input_file(from_ or "")
    root = safe_paths.project_root(directory)
    result = handoff_.handoff(root, topic, text, clock.now_iso(), allow_secret)
    echo(report.handoff(result, as_json=json_))


@cli.command()
@directory_option
@json_option
def consolidate(directory: str | None, json_: bool) -> None:
    """Audit memory: duplicates, stale decisions, promotions.

    Writes nothing; each finding carries a proposal a person can apply.

    \b
    Example:
        mem consolidate --json
    """
    from mem import clock
    from mem.commands import consolidate as consolidate_
    from mem.render import report

    result = consolidate_.consolidate(safe_paths.project_root(directory), clock.now_iso())
    echo(report.consolidate(result, as_json=json_))


@cli.command()
@click.argument("memory_id")
@directory_option
@click.option("--approve", is_flag=True, help="Append it to the brain (needs --by).")
@click.option("--by", metavar="NAME", help="Who approved the promotion.")
@allow_secret_option
@json_option
def promote(
    memory_id: str,
    directory: str | None,
    approve: bool,
    by: str | None,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    """Promote a project memory to the brain.

    Shows the section; with --approve --by NAME appends it to the brain file of its kind.

    \b
    Example:
        mem promote mem_0123456789abcdef0123 --approve --by alice
    """
    from mem import clock
    from mem.commands import promote as promote_
    from mem.render import report

    root = safe_paths.project_root(directory)
    result = promote_.promote(root, memory_id, approve, by, clock.now_iso(), allow_secret)
    echo(report.promote(result, as_json=json_))


@cli.command()
@click.argument("store", type=click.Choice(list(STORE_NAMES)))
@directory_option
@click.option("--approve", is_flag=True, help="Move the store now (without it: show the plan).")
@json_option
def archive(store: str, directory: str | None, approve: bool, json_: bool) -> None:
    """Archive a full store and start an empty one.

    Moves it whole to .bmad/memory/archive/; without --approve, shows the plan.

    \b
    Example:
        mem archive journal --approve
    """
    from mem import clock
    from mem.commands import archive as archive_
    from mem.render import report

    result = archive_.archive(safe_paths.project_root(directory), store, approve, clock.now_iso())
    echo(report.archive(result, as_json=json_))


@cli.command()
@directory_option
@json_option
def unlock(directory: str | None, json_: bool) -> None:
    """Remove a dead writer's writer.lock.

    Only when its owner is provably dead on this host; otherwise changes nothing.

    \b
    Example:
        mem unlock
    """
    from mem.commands import unlock as unlock_
    from mem.render import report

    echo(report.unlock(unlock_.unlock(safe_paths.project_root(directory)), as_json=json_))


@cli.command(cls=LegacyCommand)
@legacy_options
@allow_secret_option
def reinforce(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Fold reward signals into a pattern's score (Elo and Beta).

    Proposes, never applies, a promotion once the mean reaches 0.7 over 3 updates.

    \b
    Example:
        mem reinforce --pattern "chromadb batch ingestion" --eval 0.9 --accept yes --ci pass
    """
    from mem import clock, render
    from mem.commands import reinforce

    result, warning = reinforce.reinforce(
        _directory(options),
        clock.now_iso(),
        pattern=options["pattern"],
        eval_=options["eval"],
        accept=options["accept"],
        ci=options["ci"],
        evidence=options["evidence"],
        allow_secrets=allow_secret,
    )
    if warning is not None:
        echo(f"mem reinforce: warning: {warning}\n", err=True)
    echo(render.reinforce(result, as_json=json_))


@cli.command(name="patterns")
@project_options
def patterns_command(directory: str | None, json_: bool) -> None:
    """List the scored patterns, best first.

    With each pattern's patterns.md section and newest promotion status.

    \b
    Example:
        mem patterns --json
    """
    from mem import render
    from mem.commands import patterns

    listed = patterns.listed(safe_paths.project_root(directory))
    echo(render.patterns(listed, as_json=json_))


_ROOT_HELP = "Top level of the git work tree the sources live in (default: the project directory)."


@cli.group(name="evidence")
def evidence_group() -> None:
    """Record and list the checkout files a memory rests on."""


@evidence_group.command(name="add")
@click.argument("memory_id")
@click.option(
    "--source", "sources", multiple=True, metavar="PATH", help="Source file (repeatable, 1 to 50)."
)
@click.option("--root", metavar="DIR", help=_ROOT_HELP)
@allow_secret_option
@project_options
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
    from mem import clock
    from mem.commands import evidence
    from mem.render import memory_views

    project = safe_paths.project_root(directory)
    added = evidence.add(project, memory_id, list(sources), root, clock.now_iso(), allow_secret)
    echo(memory_views.evidence_added(added, as_json=json_))


@evidence_group.command(name="list")
@click.argument("memory_id")
@project_options
def evidence_list(memory_id: str, directory: str | None, json_: bool) -> None:
    """List a memory's evidence records, marking current ones.

    Every revision's records, in store order.

    \b
    Example:
        mem evidence list mem_0123456789abcdef0123 --json
    """
    from mem.commands import evidence
    from mem.files import safe_paths
    from mem.render import memory_views

    memory, records = evidence.listed(safe_paths.project_root(directory), memory_id)
    echo(memory_views.evidence_list(memory, records, as_json=json_))


@cli.command(name="audit")
@click.argument("memory_id", required=False)
@click.option("--root", metavar="DIR", help=_ROOT_HELP)
@click.option("--limit", metavar="N", help="Memories to list, 1 to 1000 (default 20).")
@click.option(
    "--secrets", "secrets_", is_flag=True, help="List possible secrets in memory instead."
)
@click.option("--portfolio", is_flag=True, help="--secrets: also the brain and its projects.")
@allow_secret_option
@project_options
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
    from mem.commands import audit
    from mem.files import safe_paths
    from mem.render import memory_views

    project = safe_paths.project_root(directory)
    if secrets_ or portfolio or allow_secret:
        _audit_secrets(project, memory_id, root, limit, secrets_, portfolio, allow_secret, json_)
        return
    results, total = audit.audit(project, memory_id, root, limit)
    echo(memory_views.audit(results, total, as_json=json_))


def _audit_secrets(
    project: str,
    memory_id: str | None,
    root: str | None,
    limit: str | None,
    secrets_: bool,
    portfolio: bool,
    allow_secret: tuple[str, ...],
    json_: bool,
) -> None:
    from mem.commands import audit_secrets
    from mem.render import secret_report

    result = audit_secrets.audit_secrets(
        project,
        portfolio,
        allow_secret,
        asked=secrets_,
        memory_id=memory_id,
        checkout_root=root,
        limit=limit,
    )
    echo(secret_report.audit(result, as_json=json_))
    if result["failed"]:
        sys.exit(1)


@cli.command(name="supersede")
@click.argument("memory_id")
@click.option("--with", "successor", metavar="ID", help="Full id of the memory that replaces it.")
@click.option("--reason", metavar="TEXT", help="Why (at most 2000 characters).")
@allow_secret_option
@project_options
def supersede_command(
    memory_id: str,
    successor: str | None,
    reason: str | None,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Record that another memory replaces this one.

    Binds the current revisions of both; an edit to either ends it.

    \b
    Example:
        mem supersede mem_0123456789abcdef0123 --with mem_3210fedcba9876543210 \\
            --reason "Policy changed after review"
    """
    from mem import clock
    from mem.commands import supersede
    from mem.render import memory_views

    root = safe_paths.project_root(directory)
    outcome = supersede.supersede(root, memory_id, successor, reason, clock.now_iso(), allow_secret)
    echo(memory_views.lifecycle_outcome("supersede", outcome, as_json=json_))


@cli.command(name="retract")
@click.argument("memory_id")
@click.option("--reason", metavar="TEXT", help="Why (at most 2000 characters).")
@allow_secret_option
@project_options
def retract_command(
    memory_id: str,
    reason: str | None,
    allow_secret: tuple[str, ...],
    directory: str | None,
    json_: bool,
) -> None:
    """Record that a memory's current revision is withdrawn.

    An edit to the memory ends the retraction.

    \b
    Example:
        mem retract mem_0123456789abcdef0123 --reason "The recorded conclusion was incorrect"
    """
    from mem import clock
    from mem.commands import retract
    from mem.render import memory_views

    outcome = retract.retract(
        safe_paths.project_root(directory), memory_id, reason, clock.now_iso(), allow_secret
    )
    echo(memory_views.lifecycle_outcome("retract", outcome, as_json=json_))


@cli.command(name="context")
@click.option("--with-evidence", is_flag=True, help="Add each memory's audit and outcome receipts.")
@click.option(
    "--budget",
    metavar="CHARS",
    help="Only the brief, in at most CHARS characters of output (400 to 10000000).",
)
@project_options
def context_command(
    with_evidence: bool, budget: str | None, directory: str | None, json_: bool
) -> None:
    """What an agent starting work should know.

    The context file, the newest handoff, the brain link, the last commits and every
    memory with its status.

    With --budget, a brief that fits: the head of context.md, the newest handoff's open
    points, then the active memories, those matching the current work (branch, changed
    files) first, then the newest; whole entries only, ending with how many were left
    out. Same files and git state, same bytes.

    \b
    Example:
        mem context --with-evidence --json
        mem context --budget 6000
    """
    from mem.commands import context
    from mem.files import safe_paths
    from mem.render import memory_views

    root = safe_paths.project_root(directory)
    if budget is not None:
        if with_evidence:
            raise MemError("--budget and --with-evidence do not go together.")
        echo(context.brief(root, budget, as_json=json_))
        return
    state = context.gather(root, with_evidence)
    echo(memory_views.context(state, as_json=json_))


@cli.command(cls=LegacyCommand)
@legacy_options
@allow_secret_option
def observe(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Record that verified Nexus work supports a memory.

    The input names the Nexus run and task, the memory section (file and heading), the
    scope and an interpretation; the receipt goes to .bmad/memory/outcomes.ndjson.

    \b
    Example:
        mem observe --input observation.json --json
    """
    from mem import clock, render
    from mem.commands import observe as observe_

    receipt = observe_.observe(_directory(options), options["input"], clock.now_iso(), allow_secret)
    echo(render.observe(receipt, as_json=json_))


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
    from click.shell_completion import shell_complete

    try:
        code = shell_complete(cli, {}, "mem", "_MEM_COMPLETE", instruction)
    except click.UsageError:
        code = 0
    sys.exit(code)


@cli.command(name="browse")
@portfolio_options
@click.option("--port", metavar="N", help="Port on 127.0.0.1 (default 8001; 0: any free port).")
@project_options
def browse_command(
    portfolio_: bool, brain: str | None, port: str | None, directory: str | None, json_: bool
) -> None:
    """Browse the index read-only in a web browser.

    Syncs, then serves a read-only snapshot with Datasette on 127.0.0.1 until Ctrl-C, and
    prints the URL. With --portfolio, the portfolio index: every registered project.
    Needs the optional extra:

    \b
        pipx inject mem-project 'datasette>=0.65,<1.0'
        pip install './mem-project[web]'   (with pip, from the checkout)

    \b
    Example:
        mem browse --port 8001
        mem browse --portfolio --port 0
    """
    from mem.cli import progress
    from mem.commands import browse
    from mem.render import report

    shown = progress.Progress("mem browse: syncing the portfolio index")

    def ready(served: browse.Served) -> None:
        shown.clear()
        for where, problem in served.problems:
            echo(f"mem browse: warning: {where}: {problem}\n", err=True)
        echo(report.browse(served._asdict(), as_json=json_))
        echo("mem browse: stop with Ctrl-C.\n", err=True)

    root = safe_paths.project_root(directory)
    with shown:
        browse.browse(
            root, port, ready, portfolio=portfolio_, explicit=brain, progress=shown.sync_step
        )


def main() -> NoReturn:
    cli.main(prog_name="mem")
    sys.exit(0)
