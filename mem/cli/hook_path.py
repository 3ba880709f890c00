"""The click-free path for `mem hook`: a host runs it on every prompt, within 150 ms.

Loading click costs a hook a third of its budget, so a hook command line of the plain shape
`mem hook EVENT [--host H] [--budget N] [--threshold X] [-d DIR]` is answered here; any
other (help, an unknown option) goes to the click CLI, which owns the whole surface and
calls the same entry function.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

OPTIONS = {
    "--host": "host",
    "--budget": "budget",
    "--threshold": "threshold",
    "-d": "directory",
    "--directory": "directory",
}


def plain_hook(args: list[str]) -> dict[str, str] | None:
    """The event and options of a plain `hook` command line; None when click must decide."""
    if len(args) < 2 or args[0] != "hook" or args[1].startswith("-"):
        return None
    found = {"event": args[1]}
    rest = args[2:]
    while rest:
        name, _, value = rest[0].partition("=")
        if name not in OPTIONS or OPTIONS[name] in found:
            return None
        if not value:
            if len(rest) < 2:
                return None
            value, rest = rest[1], rest[2:]
        else:
            rest = rest[1:]
        found[OPTIONS[name]] = value
    return found


def answer(parsed: dict[str, str]) -> NoReturn:
    from mem.commands import hook

    data = b"" if sys.stdin is None or sys.stdin.isatty() else hook.read_input(sys.stdin.buffer)
    output = hook.run(
        parsed["event"],
        parsed.get("host", ""),
        data,
        parsed.get("directory"),
        parsed.get("budget"),
        parsed.get("threshold"),
    )
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except OSError:
        pass  # the host stopped reading: it has its answer, or no longer wants one
    os._exit(0)  # like a plain recall: nothing is left to tear down
