"""mem's hook entries: the command names the mem that installed them, and every form mem
ever wrote is recognised as mem's."""

from __future__ import annotations

import shlex

import pytest

from mem.core.rules import hook_settings


@pytest.mark.parametrize(
    "command",
    [
        "mem hook prompt --host codex",  # as mem wrote it before absolute paths
        "/home/me/.venv/bin/mem hook prompt --host codex",
        "'/Users/me/My Tools/.venv/bin/mem' hook session-start --host gemini",
        "C:/tools/mem.exe hook prompt --host claude-code",
    ],
)
def test_every_form_of_mem_s_command_is_mem_s(command: str) -> None:
    assert hook_settings.is_ours({"type": "command", "command": command})


@pytest.mark.parametrize(
    "command", ["memo hook prompt", "mem hooks prompt", "echo mem hook", "'mem hook prompt"]
)
def test_other_commands_are_not(command: str) -> None:
    assert not hook_settings.is_ours({"type": "command", "command": command})


def test_the_command_names_the_program_quoted_for_the_host_s_shell() -> None:
    program = "/Users/me/My Tools/.venv/bin/mem"
    (_, handler), _, _ = hook_settings.wanted("codex", program).values()
    assert shlex.split(handler["command"]) == [program, "hook", "session-start", "--host", "codex"]
    merged = hook_settings.merged({}, "gemini", "x", program)
    assert hook_settings.without(merged, "x") is None
