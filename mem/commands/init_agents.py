"""`mem init --agents [FILE...] [--remove]`: the memory protocol block in the files agents read.

Every file is read and checked before any is written, so a refusal (a link, a damaged
block, a file that is not UTF-8) leaves all of them as they were.
"""

from __future__ import annotations

import os
from typing import Any

from mem.core.prose import agents_block
from mem.errors import MemError
from mem.files import instructions

DEFAULT_FILES = ("AGENTS.md",)
# The file each host reads its instructions from, when it is not AGENTS.md.
HOST_FILES = {"claude-code": "CLAUDE.md", "gemini": "GEMINI.md"}


def _read_all(root: str, names: list[str]) -> list[tuple[str, str | None]]:
    chosen = list(dict.fromkeys(names or DEFAULT_FILES))  # each file once, in the order given
    for name in chosen:
        instructions.check_name(name)
    return [(name, instructions.read_instructions(root, name)) for name in chosen]


def _plan(root: str, names: list[str], hosts: list[str] | None) -> list[tuple[str, str]]:
    """(file, block) to put in place. Named files get the whole block; by default AGENTS.md
    does, and CLAUDE.md and GEMINI.md import it: those that exist, and those of the hosts
    asked for (created when missing)."""
    if names:
        return [(name, agents_block.BLOCK) for name in dict.fromkeys(names)]
    plan = [("AGENTS.md", agents_block.BLOCK)]
    for host, name in HOST_FILES.items():
        wanted = hosts is not None and host in hosts
        if wanted or os.path.lexists(os.path.join(root, name)):
            plan.append((name, agents_block.import_block(name)))
    return plan


def _covered(root: str, name: str, before: str | None) -> bool:
    """Whether a host's file already brings the instructions: a link to AGENTS.md, an import
    of it, or the whole block put there by an earlier `mem init --agents CLAUDE.md`."""
    path = os.path.join(root, name)
    if os.path.islink(path):
        return os.path.realpath(path) == os.path.realpath(os.path.join(root, "AGENTS.md"))
    if before is None:
        return False
    span = agents_block.find(before, name)
    outside = before if span is None else before[: span.start] + before[span.end :]
    inside = "" if span is None else before[span.start : span.end]
    return agents_block.imports_agents(outside) or agents_block.BODY in inside


def install(root: str, names: list[str], hosts: list[str] | None = None) -> dict[str, Any]:
    """Put the current block in each file (appended, or replaced in place); idempotent."""
    planned: list[tuple[str, str | None, str | None, bool]] = []
    for name, block in _plan(root, names, hosts):
        instructions.check_name(name)
        imports = block != agents_block.BLOCK
        if imports and os.path.islink(os.path.join(root, name)) and _covered(root, name, None):
            planned.append((name, None, None, imports))
            continue
        before = instructions.read_instructions(root, name)
        if imports and _covered(root, name, before):
            planned.append((name, before, None, imports))
            continue
        planned.append((name, before, agents_block.with_block(before or "", name, block), imports))
    results = []
    for name, before, after, imports in planned:
        if after is None:
            action = "covered"
        elif before == after:
            action = "unchanged"
        else:
            instructions.write_instructions(root, name, after)
            action = "created" if before is None else "updated"
        result = {"path": name, "action": action}
        if imports and after is not None:
            result["imports"] = "AGENTS.md"
        results.append(result)
    return {"root": root, "files": results}


def remove(root: str, names: list[str]) -> dict[str, Any]:
    """Take the block out of each file; a file that held nothing else goes with it.

    By default: AGENTS.md, CLAUDE.md and GEMINI.md, whichever hold a block.
    """
    chosen = names or [
        name
        for name in ("AGENTS.md", *HOST_FILES.values())
        if name == "AGENTS.md" or not os.path.islink(os.path.join(root, name))
    ]
    planned = [
        (name, None if before is None else agents_block.without_block(before, name))
        for name, before in _read_all(root, chosen)
    ]
    results = []
    for name, after in planned:
        if after is None:
            if names or name == "AGENTS.md":
                results.append({"path": name, "action": "absent"})
            continue
        if after:
            instructions.write_instructions(root, name, after)
            action = "removed"
        else:
            instructions.remove_instructions(root, name)
            action = "deleted"
        results.append({"path": name, "action": action})
    return {"root": root, "files": results}


def check_usage(
    agents: bool,
    remove_: bool,
    names: list[str],
    hooks: bool = False,
    hosts: bool = False,
    user: bool = False,
) -> None:
    if not agents and (remove_ or names or hooks or hosts or user):
        raise MemError(
            "FILE arguments, --hooks, --host, --user and --remove go with --agents:"
            " mem init --agents [FILE...] [--hooks [--host HOST] [--user]] [--remove]"
        )
    if user and not hooks:
        raise MemError("--user places the hooks in your home's settings: it goes with --hooks.")
