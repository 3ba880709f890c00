"""Help a person can use: every command listed and grouped, each command's own options only."""

from __future__ import annotations

import re

import click
import pytest
from support.cli import invoke

import mem
from mem.cli import app, options


def _every_command() -> list[str]:
    names = []
    ctx = click.Context(app.cli)
    for name in app.cli.list_commands(ctx):
        command = app.cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            names += [f"{name} {sub}" for sub in command.commands]
        else:
            names.append(name)
    return names


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["help"]])
def test_top_level_help_lists_every_command_with_a_summary(args: list[str]) -> None:
    done = invoke(*args)
    assert done.exit_code == 0
    rows = {}
    for line in done.stdout.splitlines():
        match = re.match(r"  (\S+(?: [a-z]+)?)  +(\S.*)$", line)
        if match:
            rows[match.group(1)] = match.group(2)
    for name in _every_command():
        assert name in rows, f"mem {name} is missing from `mem {' '.join(args)}`"
        assert not rows[name].endswith("..."), f"the summary of mem {name} is cut"
    assert "Other commands:" not in done.stdout, "give every command a heading in app.SECTIONS"


def test_the_three_ways_to_ask_show_the_same_help() -> None:
    assert invoke("--help").stdout == invoke("-h").stdout == invoke("help").stdout


def test_commands_are_grouped_under_headings() -> None:
    text = invoke("--help").stdout
    headings = [line[:-1] for line in text.splitlines() if line.endswith(":") and line[0] != " "]
    assert headings[1:] == [title for title, _ in app.SECTIONS]
    recall_section = text.split("Recall & write:")[1].split("\n\n")[0]
    assert "recall" in recall_section and "write" in recall_section


@pytest.mark.parametrize("action", options.LEGACY_ACTIONS)
def test_a_legacy_action_shows_only_the_options_it_reads(action: str) -> None:
    text = invoke(action, "--help").stdout
    for option in options.LEGACY_OPTIONS:
        shown = re.search(rf"(^|[ ,]){re.escape(option.names[-1])}\b", text, re.MULTILINE)
        assert bool(shown) is (action in option.used_by), f"{option.names[-1]} in {action}"


def test_write_help_does_not_mention_recall_options() -> None:
    text = invoke("write", "--help").stdout
    assert "--portfolio" not in text and "--context-scope" not in text
    assert text.startswith("Usage: mem write [OPTIONS]\n")


def test_recall_help_names_its_query() -> None:
    assert invoke("recall", "--help").stdout.startswith("Usage: mem recall [OPTIONS] [QUERY]...\n")


def test_hidden_options_are_still_accepted_as_the_reference_does(project: object) -> None:
    done = invoke(
        "write", "--agent", "forge", "--portfolio", "x", "--limit", "0", "-d", str(project)
    )
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("mem write: event ")


@pytest.mark.parametrize(
    "words", [["recall"], ["evidence", "add"], ["index", "check"], ["help"]], ids=" ".join
)
def test_help_of_one_command_equals_its_own_help_option(words: list[str]) -> None:
    assert invoke("help", *words).stdout == invoke(*words, "--help").stdout
    assert invoke("help", *words).stdout.startswith(f"Usage: mem {' '.join(words)} ")


def test_help_of_an_unknown_command_is_a_usage_error() -> None:
    done = invoke("help", "frobnicate")
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr == "error: unknown command 'frobnicate'\n"


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str) -> None:
    assert invoke(flag).stdout == f"mem, version {mem.__version__}\n"
    assert invoke("recall", "x", flag).stdout == f"mem, version {mem.__version__}\n"
