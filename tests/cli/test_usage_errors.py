"""Usage errors exit 1; the five legacy actions word them exactly as commander 14 does.

The expected texts are commander's (bmad-mem.md section 1): `error: missing required
argument 'action'`, `error: unknown option '<flag>'` with commander's suggestion line,
`error: option '<flags>' argument missing`, and the reference's own unknown-action line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.cli import RunMem, invoke

from mem.cli import commander, options

UNKNOWN_ACTION = (
    "mem: unknown action '{}' — expected recall | write | reinforce | observe | outcomes\n"
)

COMMANDER = [
    ([], "error: missing required argument 'action'"),
    (["--json"], "error: missing required argument 'action'"),
    (["-d", "somewhere"], "error: missing required argument 'action'"),
    (["--frob"], "error: unknown option '--frob'"),
    (["--frob", "recall", "x"], "error: unknown option '--frob'"),
    (["recall", "x", "--bogus"], "error: unknown option '--bogus'"),
    (["recall", "x", "-x"], "error: unknown option '-x'"),
    (["recall", "x", "-jx"], "error: unknown option '-jx'"),
    (["recall", "x", "--jsn"], "error: unknown option '--jsn'\n(Did you mean --json?)"),
    (["recall", "--json=1"], "error: unknown option '--json=1'\n(Did you mean --json?)"),
    (["write", "--agnt", "a"], "error: unknown option '--agnt'\n(Did you mean --agent?)"),
    (["write", "--cl", "a"], "error: unknown option '--cl'\n(Did you mean one of --ci, --cli?)"),
    (["recall", "--versio"], "error: unknown option '--versio'\n(Did you mean --version?)"),
    (["--limt", "3", "recall"], "error: unknown option '--limt'\n(Did you mean --limit?)"),
    (["write", "--agent"], "error: option '--agent <name>' argument missing"),
    (["recall", "x", "-d"], "error: option '-d, --directory <path>' argument missing"),
    (["recall", "x", "--limit"], "error: option '--limit <n>' argument missing"),
    (["--limit"], "error: option '--limit <n>' argument missing"),
    (["recall", "-h", "--limit"], "error: option '--limit <n>' argument missing"),
    (["recall", "--bogus", "--limit"], "error: option '--limit <n>' argument missing"),
    (["reinforce", "--evidence"], "error: option '--evidence <ids>' argument missing"),
]


@pytest.mark.parametrize(("args", "message"), COMMANDER, ids=[" ".join(a) for a, _ in COMMANDER])
def test_commander_wording(args: list[str], message: str) -> None:
    done = invoke(*args)
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", message + "\n")


@pytest.mark.parametrize(
    ("args", "action"),
    [(["frobnicate"], "frobnicate"), (["frobnicate", "--json"], "frobnicate"), (["-5"], "-5")]
    + [(["--", "-x"], "-x"), (["-d", ".", "help-me"], "help-me")],
)
def test_an_unknown_action_is_named(args: list[str], action: str) -> None:
    done = invoke(*args)
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", UNKNOWN_ACTION.format(action))


def test_an_unknown_option_before_an_unknown_action_wins() -> None:
    assert invoke("frobnicate", "--bogus").stderr == "error: unknown option '--bogus'\n"


def test_help_wins_over_an_unknown_option_as_in_commander() -> None:
    done = invoke("recall", "--bogus", "--help")
    assert done.exit_code == 0 and done.stdout.startswith("Usage: mem recall")


def test_negative_numbers_and_words_after_double_dash_are_query_words(project: Path) -> None:
    done = invoke("recall", "-d", str(project), "--json", "--", "--limit", "-5", "postgres")
    assert done.exit_code == 0, done.stderr
    assert '"query": "--limit -5 postgres"' in done.stdout
    negative = invoke("recall", "-5", "postgres", "-d", str(project), "--json")
    assert '"query": "-5 postgres"' in negative.stdout


def test_options_may_take_values_that_look_like_options(project: Path) -> None:
    done = invoke("write", "--agent", "--json", "--task", "-x", "-d", str(project))
    assert done.exit_code == 0, done.stderr
    assert "agent=--json" in done.stdout and "task: -x" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["status", "--frob"], "error: unknown option '--frob'\n"),
        (["status", "--jsn"], "error: unknown option '--jsn'\n(Did you mean --json?)\n"),
        (["audit", "--limit"], "error: option '--limit <n>' argument missing\n"),
        (["evidence", "add"], "error: Missing argument 'MEMORY_ID'.\n"),
        (["evidence", "frob"], "error: No such command 'frob'.\n"),
        (["--json", "status", "--frob"], "error: unknown option '--frob'\n"),
    ],
)
def test_other_commands_exit_1_with_an_error_line(args: list[str], message: str) -> None:
    done = invoke(*args)
    assert (done.exit_code, done.stdout, done.stderr) == (1, "", message)


@pytest.mark.parametrize("group", ["index", "evidence"])
def test_a_group_without_its_subcommand_shows_its_help_and_exits_1(group: str) -> None:
    done = invoke(group)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr.startswith(f"Usage: mem {group} [OPTIONS] COMMAND [ARGS]...")


@pytest.mark.process
def test_the_real_entry_point_exits_1_on_a_top_level_usage_error(run_mem: RunMem) -> None:
    done = run_mem("--frob")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "error: unknown option '--frob'\n"


@pytest.mark.parametrize(
    ("word", "candidates", "hint"),
    [
        ("--bogus", ["--json", "--limit"], ""),
        ("--c", ["--ci", "--cli"], "\n(Did you mean --ci?)"),
        ("--modle", ["--model", "--mode"], "\n(Did you mean one of --mode, --model?)"),
        ("--jsno", ["--json", "--json"], "\n(Did you mean --json?)"),
        ("--x", ["--x", "--y"], ""),  # one-character candidates are never suggested
        ("--scpoe", ["--scope"], "\n(Did you mean --scope?)"),  # a transposition is one edit
    ],
)
def test_suggestions_follow_commanders_rules(word: str, candidates: list[str], hint: str) -> None:
    assert commander.suggestion(word, candidates) == hint


option_names = [name for option in options.LEGACY_OPTIONS for name in option.names]
token = st.one_of(
    st.sampled_from(["recall", "write", "x", "-", "--", "-5", "--bogus", "-h", "--limit=3"]),
    st.sampled_from(option_names),
    st.text(max_size=5),
)


@given(st.lists(token, max_size=8))
def test_parsing_never_raises_and_keeps_every_argument(args: list[str]) -> None:
    parsed = commander.parse(args, options.LEGACY_TABLE)
    if parsed.error is None:
        consumed = len(parsed.operands) + len(parsed.unknown)
        assert consumed <= len(args)
    if parsed.first_operand_at is not None:
        assert args[parsed.first_operand_at] == parsed.operands[0]
