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

from mem.cli.options import LEGACY_OPTIONS
from mem.errors import MemError
from mem.files import safe_paths

LEGACY_ACTIONS = "recall | write | reinforce | observe | outcomes"
STORE_NAMES = ("journal", "outcomes", "promotions", "evidence", "lifecycle")  # mem archive
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
        command = click.option(*names, dest, metavar=metavar.strip("<>").upper(), help=help_)(
            command
        )
    command = click.option(
        "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
    )(command)
    return click.argument("words", nargs=-1)(command)


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
@click.version_option(package_name="mem")
def cli() -> None:
    """Project memory — recall | write | reinforce | observe | outcomes.

    Deterministic memory for AI coding agents, on the same files as `bmad-plus mem`.
    """


@cli.command()
@click.option("--with-evidence", is_flag=True, help="Add each note's lifecycle and audit status.")
@legacy_options
@click.option("--include-archive", is_flag=True, help="Also search archived journals.")
@click.option("--include-retired", is_flag=True, help="Also list superseded and retracted notes.")
@click.option(
    "--project",
    "projects",
    multiple=True,
    metavar="NAME",
    help="--scope all: only this registered project (name or path; repeatable).",
)
def recall(words: tuple[str, ...], json_: bool, include_archive: bool, **options: Any) -> None:
    """Ranked notes and journal events for a query.

    --scope all searches every project registered in the portfolio brain, and its notes.

    \b
    Example:
        mem recall postgres pooling --limit 3 --json
        mem recall postgres pooling --scope all --project shop
    """
    from mem.cli import fast

    click.echo(fast.recall_output(words, json_, options, include_archive=include_archive), nl=False)


@cli.command()
@legacy_options
@allow_secret_option
def write(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Append an event to the journal (.bmad/memory/journal.ndjson).

    \b
    Example:
        mem write --agent forge --task "refactor pooling" --outcome success --ci pass
    """
    from mem import clock, render
    from mem.commands import write

    signals = write.parse_signals(options["eval"], options["accept"], options["ci"])
    event = write.build_event(
        clock.now_iso(),
        options["agent"],
        options["cli"],
        options["model"],
        options["task"],
        options["outcome"],
        signals,
    )
    root = _directory(options)
    write.append_event(root, event, allow_secret)
    click.echo(render.written_json(event) if json_ else render.write_text(event), nl=False)


@cli.command()
@legacy_options
def outcomes(words: tuple[str, ...], json_: bool, **options: Any) -> None:
    """List observed outcome receipts and whether each is still eligible.

    \b
    Example:
        mem outcomes --json
    """
    from mem.commands import outcomes as outcomes_

    results = outcomes_.inspect(_directory(options))
    click.echo(outcomes_.render(results, json_), nl=False)


@cli.group(name="index")
def index_group() -> None:
    """Inspect the index cache (a disposable copy of the canonical files)."""


def directory_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "-d", "--directory", help="Project directory (default: the current directory)."
    )(command)


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
    )(command)


def _emit(result: dict[str, Any], json_: bool, text: Callable[[dict[str, Any]], str]) -> None:
    from mem.render import report

    click.echo(report.as_json(result) if json_ else text(result), nl=False)


def portfolio_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--portfolio` (a flag: the portfolio index instead of the project's) and its brain."""
    command = click.option(
        "--brain", metavar="PATH", help="--portfolio: the brain (default: the linked brain)."
    )(command)
    return click.option(
        "--portfolio", "portfolio_", is_flag=True, help="The portfolio index of the brain."
    )(command)


def _portfolio_brain(directory: str | None, brain: str | None) -> str:
    from mem.commands import registry

    return registry.portfolio_brain(safe_paths.project_root(directory), brain)


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
    from mem import index
    from mem.cli import progress
    from mem.index import check, healing

    if portfolio_:
        with progress.Progress("mem index: syncing the portfolio index") as shown:
            path = check.portfolio_path(_portfolio_brain(directory, brain), shown.sync_step)
    else:
        root = safe_paths.project_root(directory)
        healing.sync_project(root)
        path = index.index_path(root, "project")
    _emit({"path": path}, json_, lambda result: result["path"] + "\n")


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
    from mem.files import safe_paths
    from mem.index import check
    from mem.render import report

    if portfolio_:
        with progress.Progress("mem index: checking the portfolio index") as shown:
            result = check.portfolio_check(_portfolio_brain(directory, brain), shown.sync_step)
    else:
        result = check.check(safe_paths.project_root(directory))
    _emit(result, json_, report.index_check_text)
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
    from mem.files import safe_paths
    from mem.index import check
    from mem.render import report

    if portfolio_:
        with progress.Progress("mem index: rebuilding the portfolio index") as shown:
            result = check.portfolio_rebuild(_portfolio_brain(directory, brain), shown.sync_step)
    else:
        result = check.rebuild(safe_paths.project_root(directory))
    _emit(result, json_, report.index_rebuild_text)


@cli.command()
@directory_option
@json_option
def init(directory: str | None, json_: bool) -> None:
    """Set up project memory and link the brain.

    Creates missing files from templates, links the brain, indexes the project.

    Never overwrites a file; a second run only refreshes `linked_at`.

    \b
    Example:
        mem init -d ~/dev/shop
    """
    from mem import clock
    from mem.commands import portfolio
    from mem.render import report

    result = portfolio.init(safe_paths.project_root(directory), clock.now_iso())
    for warning in result["warnings"]:
        click.echo(f"mem init: warning: {warning}", err=True)
    _emit(result, json_, report.init_text)


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
        _emit(result, json_, portfolio_views.status_text)
        return
    _emit(status_.status(root), json_, report.status_text)


@cli.group(name="portfolio")
def portfolio_group() -> None:
    """The projects registered in the portfolio's brain (`projects/*.yaml`)."""


def brain_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--brain", metavar="PATH", help="The brain (default: the linked or detected brain)."
    )(command)


@portfolio_group.command(name="add")
@click.argument("paths", nargs=-1, metavar="PATH...")
@directory_option
@brain_option
@json_option
def portfolio_add(
    paths: tuple[str, ...], directory: str | None, brain: str | None, json_: bool
) -> None:
    """Register projects in the portfolio.

    \b
    Example:
        mem portfolio add ~/dev/shop ~/dev/billing
    """
    from mem import clock
    from mem.commands import registry
    from mem.render import portfolio_views

    root = safe_paths.project_root(directory)
    result = registry.add(root, brain, list(paths), clock.now_iso())
    _emit(result, json_, portfolio_views.added_text)


@portfolio_group.command(name="list")
@directory_option
@brain_option
@json_option
def portfolio_list(directory: str | None, brain: str | None, json_: bool) -> None:
    """List the registered projects and whether each is still there.

    \b
    Example:
        mem portfolio list --json
    """
    from mem.commands import registry
    from mem.render import portfolio_views

    result = registry.listed(safe_paths.project_root(directory), brain)
    _emit(result, json_, portfolio_views.listed_text)


@portfolio_group.command(name="remove")
@click.argument("project")
@directory_option
@brain_option
@json_option
def portfolio_remove(project: str, directory: str | None, brain: str | None, json_: bool) -> None:
    """Unregister a project (by path or name); its files are untouched.

    \b
    Example:
        mem portfolio remove billing
    """
    from mem import clock
    from mem.commands import registry
    from mem.render import portfolio_views

    root = safe_paths.project_root(directory)
    result = registry.remove(root, brain, project, clock.now_iso())
    _emit(result, json_, portfolio_views.removed_text)


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
    from mem.commands import portfolio
    from mem.render import report

    root = safe_paths.project_root(directory)
    result = portfolio.export(root, clock.now_iso(), output, force, allow_secret)
    _emit(result, json_, report.export_text)


@cli.command()
@click.argument("path", required=False)
@directory_option
@click.option("--depth", metavar="N", help="How deep to search (default 4).")
@click.option("--active-days", metavar="N", help="Active when changed within N days (default 30).")
@click.option("--paused-days", metavar="N", help="Paused within N days (default 180).")
@click.option("-y", "--yes", is_flag=True, help="Index the projects found in the global brain.")
@click.option("--register", is_flag=True, help="Register the projects found in the portfolio.")
@click.option("--brain", metavar="PATH", help="--register: the brain (default: detected).")
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
    from mem.commands import registry
    from mem.commands import scan as scan_
    from mem.render import report

    options = scan_.Options(
        scan_.parse_count("depth", depth, 4, minimum=0),  # depth 0: only the folder itself
        scan_.parse_count("active-days", active_days, 30),
        scan_.parse_count("paused-days", paused_days, 180),
    )
    folder = path or directory or "."
    brain_dir = registry.scan_brain(folder, brain) if register else None
    with progress.Progress("scanning") as shown:
        result = scan_.scan(
            folder, options, clock.now_iso(), yes or register, shown.update, brain_dir
        )
    _emit(result, json_, lambda result: report.scan_text(result, yes or register))


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
    from mem.commands import portfolio
    from mem.render import report

    if (from_ is None) == (not stdin):
        raise MemError("Give exactly one of --from FILE or --stdin.")
    text = sys.stdin.read() if stdin else portfolio.read_input_file(from_ or "")
    root = safe_paths.project_root(directory)
    result = portfolio.handoff(root, topic, text, clock.now_iso(), allow_secret)
    _emit(result, json_, report.handoff_text)


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
    from mem.commands import portfolio
    from mem.render import report

    result = portfolio.consolidate(safe_paths.project_root(directory), clock.now_iso())
    _emit(result, json_, report.consolidate_text)


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
    from mem.commands import portfolio
    from mem.render import report

    root = safe_paths.project_root(directory)
    result = portfolio.promote(root, memory_id, approve, by, clock.now_iso(), allow_secret)
    _emit(result, json_, report.promote_text)


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
    from mem.commands import housekeeping
    from mem.render import report

    result = housekeeping.archive(
        safe_paths.project_root(directory), store, approve, clock.now_iso()
    )
    _emit(result, json_, report.archive_text)


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
    from mem.commands import housekeeping
    from mem.files import safe_paths
    from mem.render import report

    _emit(housekeeping.unlock(safe_paths.project_root(directory)), json_, report.unlock_text)


@cli.command()
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
    from mem.commands import reinforce, write
    from mem.core import patterns

    signals = write.parse_signals(options["eval"], options["accept"], options["ci"])
    evidence = patterns.parse_evidence(options["evidence"])
    root = _directory(options)
    result = reinforce.reinforce(
        root, options["pattern"], signals, evidence, clock.now_iso(), allow_secret
    )
    warning = reinforce.missing_section_warning(root, result.pattern_id)
    if warning is not None:
        click.echo(f"mem reinforce: warning: {warning}", err=True)
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
    from mem import render
    from mem.commands import reinforce

    listed = reinforce.scored_patterns(safe_paths.project_root(directory))
    click.echo(render.patterns_json(listed) if json_ else render.patterns_text(listed), nl=False)


def project_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`-d/--directory` and `--json`, as the memory commands take them."""
    command = click.option(
        "--json", "json_", is_flag=True, is_eager=True, callback=_remember_json, help="JSON output."
    )(command)
    return click.option(
        "-d", "--directory", help="Project directory (default: the current directory)."
    )(command)


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
    """Record the SHA-256 of source files for a memory's current revision.

    \b
    Example:
        mem evidence add mem_0123456789abcdef0123 --source src/policy.py --source docs/policy.md
    """
    from mem import clock
    from mem.commands import evidence
    from mem.render import memory_views

    project = safe_paths.project_root(directory)
    added = evidence.add(project, memory_id, list(sources), root, clock.now_iso(), allow_secret)
    click.echo(memory_views.evidence_added(added, json_), nl=False)


@evidence_group.command(name="list")
@click.argument("memory_id")
@project_options
def evidence_list(memory_id: str, directory: str | None, json_: bool) -> None:
    """List a memory's evidence records, all revisions, marking the current ones.

    \b
    Example:
        mem evidence list mem_0123456789abcdef0123 --json
    """
    from mem.commands import evidence
    from mem.files import safe_paths
    from mem.render import memory_views

    memory, records = evidence.listed(safe_paths.project_root(directory), memory_id)
    click.echo(memory_views.evidence_list(memory, records, json_), nl=False)


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
    """Compare recorded evidence with the checkout, writing nothing.

    With --secrets, list the possible secrets in the memory files and stores (file, line,
    kind; never the value) and exit 1 if there is any: a CI gate.

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
    results, total = audit.audit(project, memory_id, root, audit.parse_limit(limit))
    click.echo(memory_views.audit(results, total, json_), nl=False)


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
    from mem.commands import secret_audit
    from mem.render import secret_report

    if not secrets_:
        raise MemError("--portfolio and --allow-secret go with --secrets (mem audit --secrets).")
    if memory_id is not None or root is not None or limit is not None:
        raise MemError("--secrets takes no memory id, --root or --limit: it reads every file.")
    result = secret_audit.audit(project, portfolio, allow_secret)
    _emit(result, json_, secret_report.audit_text)
    if result["count"]:
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
    """Record that a memory's current revision is replaced by another memory.

    \b
    Example:
        mem supersede mem_0123456789abcdef0123 --with mem_3210fedcba9876543210 \\
            --reason "Policy changed after review"
    """
    from mem import clock
    from mem.commands import lifecycle
    from mem.render import memory_views

    root = safe_paths.project_root(directory)
    outcome = lifecycle.supersede(root, memory_id, successor, reason, clock.now_iso(), allow_secret)
    click.echo(memory_views.lifecycle_outcome("supersede", outcome, json_), nl=False)


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

    \b
    Example:
        mem retract mem_0123456789abcdef0123 --reason "The recorded conclusion was incorrect"
    """
    from mem import clock
    from mem.commands import lifecycle
    from mem.render import memory_views

    outcome = lifecycle.retract(
        safe_paths.project_root(directory), memory_id, reason, clock.now_iso(), allow_secret
    )
    click.echo(memory_views.lifecycle_outcome("retract", outcome, json_), nl=False)


@cli.command(name="context")
@click.option("--with-evidence", is_flag=True, help="Add each memory's audit and outcome receipts.")
@project_options
def context_command(with_evidence: bool, directory: str | None, json_: bool) -> None:
    """Memory state for an agent starting work: context, handoff, brain, commits, memories.

    \b
    Example:
        mem context --with-evidence --json
    """
    from mem.commands import context
    from mem.files import safe_paths
    from mem.render import memory_views

    state = context.gather(safe_paths.project_root(directory), with_evidence)
    click.echo(memory_views.context(state, json_), nl=False)


@cli.command()
@legacy_options
@allow_secret_option
def observe(
    words: tuple[str, ...], json_: bool, allow_secret: tuple[str, ...], **options: Any
) -> None:
    """Record that accepted, verified Nexus work supports a memory section.

    The input names the Nexus run and task, the memory section (file and heading), the
    scope and an interpretation; the receipt goes to .bmad/memory/outcomes.ndjson.

    \b
    Example:
        mem observe --input observation.json --json
    """
    from mem import clock, render
    from mem.commands import observe as observe_

    receipt = observe_.observe(_directory(options), options["input"], clock.now_iso(), allow_secret)
    click.echo(render.written_json(receipt) if json_ else render.observe_text(receipt), nl=False)


def main() -> NoReturn:
    cli.main(prog_name="mem")
    sys.exit(0)
