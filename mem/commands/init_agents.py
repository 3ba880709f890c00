"""`mem init --agents [FILE...] [--remove]`: the memory protocol block in the files agents read.

Every file is read and checked before any is written, so a refusal (a link, a damaged
block, a file that is not UTF-8) leaves all of them as they were.
"""

from __future__ import annotations

from typing import Any

from mem.core import agents_block
from mem.errors import MemError
from mem.files import instructions

DEFAULT_FILES = ("AGENTS.md",)


def _read_all(root: str, names: list[str]) -> list[tuple[str, str | None]]:
    chosen = list(dict.fromkeys(names or DEFAULT_FILES))  # each file once, in the order given
    for name in chosen:
        instructions.check_name(name)
    return [(name, instructions.read_instructions(root, name)) for name in chosen]


def install(root: str, names: list[str]) -> dict[str, Any]:
    """Put the current block in each file (appended, or replaced in place); idempotent."""
    planned = [
        (name, before, agents_block.with_block(before or "", name))
        for name, before in _read_all(root, names)
    ]
    results = []
    for name, before, after in planned:
        if before == after:
            action = "unchanged"
        else:
            instructions.write_instructions(root, name, after)
            action = "created" if before is None else "updated"
        results.append({"path": name, "action": action})
    return {"root": root, "files": results}


def remove(root: str, names: list[str]) -> dict[str, Any]:
    """Take the block out of each file; a file that held nothing else goes with it."""
    planned = [
        (name, None if before is None else agents_block.without_block(before, name))
        for name, before in _read_all(root, names)
    ]
    results = []
    for name, after in planned:
        if after is None:
            action = "absent"
        elif after:
            instructions.write_instructions(root, name, after)
            action = "removed"
        else:
            instructions.remove_instructions(root, name)
            action = "deleted"
        results.append({"path": name, "action": action})
    return {"root": root, "files": results}


def check_usage(agents: bool, remove_: bool, names: list[str]) -> None:
    if not agents and (remove_ or names):
        raise MemError("FILE arguments and --remove go with --agents: mem init --agents [FILE...]")
