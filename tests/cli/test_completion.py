"""Shell completion through the real console script: names and options, never a traceback."""

from __future__ import annotations

import pytest
from support.cli import RunMem

# The process is the point: the console script answers completion before click is loaded.
pytestmark = pytest.mark.process


def _complete(run_mem: RunMem, shell: str, words: str, cword: int | None = None) -> list[str]:
    env = {"_MEM_COMPLETE": f"{shell}_complete", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(len(words.split()) - 1 if cword is None else cword)
    if shell == "fish":  # fish's script passes the word being completed itself
        env["COMP_CWORD"] = "" if words.endswith(" ") else words.split()[-1]
    done = run_mem(env=env)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout.splitlines()


def test_bash_completes_command_names(run_mem: RunMem) -> None:
    found = _complete(run_mem, "bash", "mem re")
    assert found == ["plain,recall", "plain,reinforce", "plain,retract"]


def test_zsh_and_fish_complete_command_names(run_mem: RunMem) -> None:
    zsh = _complete(run_mem, "zsh", "mem re")
    assert zsh[1::3] == ["recall", "reinforce", "retract"]  # type, value, help per item
    fish = _complete(run_mem, "fish", "mem re")
    assert [line.split(",")[1].split("\t")[0] for line in fish] == [
        "recall",
        "reinforce",
        "retract",
    ]


def test_options_of_a_legacy_action_are_only_those_it_reads(run_mem: RunMem) -> None:
    found = [line.split(",", 1)[1] for line in _complete(run_mem, "bash", "mem write --")]
    assert "--agent" in found and "--json" in found
    assert "--portfolio" not in found and "--context-scope" not in found


def test_subcommands_and_help_topics_complete(run_mem: RunMem) -> None:
    assert _complete(run_mem, "bash", "mem evidence ", 2) == ["plain,add", "plain,list"]
    assert _complete(run_mem, "bash", "mem help ev") == ["plain,evidence"]
    assert _complete(run_mem, "bash", "mem --json re") == [
        "plain,recall",
        "plain,reinforce",
        "plain,retract",
    ]


@pytest.mark.parametrize(
    "words", ["mem status --frob x", "mem --frob re", "mem write --agent", "mem recall -- --"]
)
def test_a_line_that_would_not_parse_completes_without_a_traceback(
    run_mem: RunMem, words: str
) -> None:
    _complete(run_mem, "bash", words)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_activation_scripts_exist(run_mem: RunMem, shell: str) -> None:
    done = run_mem(env={"_MEM_COMPLETE": f"{shell}_source"})
    assert done.returncode == 0 and "_MEM_COMPLETE" in done.stdout
