"""The legacy option table of `bmad-plus mem`, shared by the click CLI and the fast path."""

from __future__ import annotations

from mem.cli import commander

LEGACY_ACTIONS = ("recall", "write", "reinforce", "observe", "outcomes")


class LegacyOption:
    """An option of `bmad-plus mem`: every legacy action accepts it."""

    __slots__ = ("names", "value", "help", "used_by")

    def __init__(
        self, names: tuple[str, ...], value: str | None, help: str, used_by: frozenset[str]
    ) -> None:
        self.names = names
        self.value = value  # commander's placeholder ("<path>"); None for a flag
        self.help = help
        self.used_by = used_by  # only these actions read it

    @property
    def destination(self) -> str:
        return self.names[-1].lstrip("-").replace("-", "_")

    @property
    def flags(self) -> str:
        """How commander names the option in its errors."""
        return ", ".join(self.names) + (f" {self.value}" if self.value else "")


def _used_by(*actions: str) -> frozenset[str]:
    return frozenset(actions)


EVERY_ACTION = frozenset(LEGACY_ACTIONS)
SIGNAL = _used_by("write", "reinforce")

# commander's option table of `bmad-plus mem`, in its order: every legacy action accepts
# all of them and ignores those it does not use.
LEGACY_OPTIONS: list[LegacyOption] = [
    LegacyOption(
        ("-d", "--directory"),
        "<path>",
        "Project directory (default: the current directory).",
        EVERY_ACTION,
    ),
    LegacyOption(
        ("--scope",),
        "<scope>",
        "project, portfolio or all (default project).",
        _used_by("recall"),
    ),
    LegacyOption(
        ("--portfolio",),
        "<path>",
        "The portfolio brain for --scope portfolio or all (default: the linked brain).",
        _used_by("recall"),
    ),
    LegacyOption(
        ("--limit",), "<n>", "Results to show, 1 to 1000 (default 8).", _used_by("recall")
    ),
    LegacyOption(
        ("--ranking",),
        "<mode>",
        "lexical, evidence or bm25 (default: $MEM_RANKING, mem.toml, your config.toml,"
        " else lexical).",
        _used_by("recall"),
    ),
    LegacyOption(
        ("--context-scope",),
        "<paths>",
        "Comma-separated project paths the evidence ranking is for.",
        _used_by("recall"),
    ),
    LegacyOption(
        ("--input",), "<file>", "Project-relative JSON observation to record.", _used_by("observe")
    ),
    LegacyOption(("--agent",), "<name>", "The agent that acted (required).", _used_by("write")),
    LegacyOption(
        ("--cli",), "<name>", "The coding CLI (claude-code, codex-cli, ...).", _used_by("write")
    ),
    LegacyOption(("--model",), "<id>", "The model.", _used_by("write")),
    LegacyOption(("--task",), "<text>", "What was attempted.", _used_by("write")),
    LegacyOption(
        ("--outcome",),
        "<outcome>",
        "success, failure, partial or abandoned.",
        _used_by("write"),
    ),
    LegacyOption(
        ("--pattern",),
        "<id>",
        "The pattern: its ### heading in patterns.md (required).",
        _used_by("reinforce"),
    ),
    LegacyOption(("--eval",), "<score>", "Signal: evaluation score, 0 to 1.", SIGNAL),
    LegacyOption(
        ("--accept",), "<bool>", "Signal: accepted (true, false, yes, no or 0 to 1).", SIGNAL
    ),
    LegacyOption(("--ci",), "<result>", "Signal: CI result (pass, fail or 0 to 1).", SIGNAL),
    LegacyOption(
        ("--evidence",),
        "<ids>",
        "Comma-separated ids copied into a promotion proposal.",
        _used_by("reinforce"),
    ),
    LegacyOption(("--json",), None, "JSON output.", EVERY_ACTION),
]
# The reference's parent program contributes `--version` (and `--help`): commander accepts
# it after any action and suggests it for near misses.
VERSION = LegacyOption(("-V", "--version"), None, "Show the version and exit.", EVERY_ACTION)
DESTINATION = {
    name: option.destination
    for option in LEGACY_OPTIONS
    if option.value is not None
    for name in option.names
}


def commander_table(options: list[LegacyOption]) -> list[commander.Option]:
    return [
        commander.Option(option.names, option.value is not None, option.flags, option.destination)
        for option in options
    ]


LEGACY_TABLE = commander_table([*LEGACY_OPTIONS, VERSION])


def candidates(table: list[commander.Option]) -> list[str]:
    """The long flags commander suggests from: the command's, then its parent's."""
    longs = [name for option in table for name in option.names if name.startswith("--")]
    return [*longs, "--help", "--version"]
