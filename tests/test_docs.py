"""Every command explains itself and is in the README's CLI reference."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from mem.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found.extend(_commands(command, f"{prefix} {name}"))
    return found


COMMANDS = _commands(app.cli, "mem")


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_command_has_help_and_is_documented(name: str, command: click.Command) -> None:
    assert command.help and command.help.strip(), f"{name} has no help text"
    top = " ".join(name.split()[:2])
    assert f"`{top}" in README, f"{top} is missing from the README"
