"""The click-free recall path parses exactly what click would, or leaves the decision to click."""

from __future__ import annotations

import click
from hypothesis import given
from hypothesis import strategies as st

from mem.cli import fast, options
from mem.cli.click_commands import recall as recall_command

option_names = [name for option in options.LEGACY_OPTIONS for name in option.names]
token = st.one_of(
    st.sampled_from(
        [
            "postgres",
            "pooling",
            "x",
            "",
            " ",
            "--json",
            "-",
            "--",
            "--bogus",
            "-h",
            "--help",
            "--limit=3",
            "-dx",
            "--jso",
            "é",
            "-3",
            "--project",
            "--include-history",
        ]
    ),
    st.sampled_from(option_names),
    st.text(max_size=6),
)


@given(st.lists(token, max_size=8))
def test_fast_parse_agrees_with_click(args: list[str]) -> None:
    parsed = fast.plain_recall(["recall", *args])
    if parsed is None:
        return
    words, as_json, options = parsed
    context = recall_command.recall.make_context("recall", list(args))
    params = dict(context.params)
    assert list(params.pop("words")) == words
    assert params.pop("json_") is as_json
    assert params.pop("include_archive") is False  # recall-only flags always go through click
    assert params.pop("with_evidence") is False
    assert params.pop("include_retired") is False
    assert params.pop("explain") is False
    assert params.pop("projects") == ()  # --project (--scope all) goes through click too
    assert params == options  # --include-history too: the fast path reads it


def test_anything_unusual_goes_to_click() -> None:
    assert fast.plain_recall(["write", "--agent", "x"]) is None
    assert fast.plain_recall(["recall", "x", "--help"]) is None
    assert fast.plain_recall(["recall", "x", "--limit"]) is None
    assert fast.plain_recall(["recall", "x", "--with-something", "y"]) is None
    assert fast.plain_recall(["recall", "postgres", "--limit", "3", "--json"]) == (
        ["postgres"],
        True,
        {**{d: None for d in options.DESTINATION.values()}, "limit": "3", "include_history": False},
    )


def test_click_is_not_needed_for_a_plain_recall() -> None:
    import subprocess
    import sys

    # -X importtime names every module loaded (a plain recall exits without running
    # atexit handlers, so the process cannot report on itself at exit).
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import sys; sys.argv = ['mem', 'recall', 'nothing-here'];"
            "from mem.cli.main import main; main()",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "mem.commands.recall" in modules
    assert not [name for name in modules if name.split(".")[0] == "click"]
    assert isinstance(click.__name__, str)
