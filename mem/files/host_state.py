"""The agent hosts' own state on this machine, read only: trust files, their settings, PATH.

Each reader answers the file's text (or parsed value) and where it was looked for; a file
that is missing reads as None. Nothing here is written: fixing is the user's step.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tomllib
from typing import Any

from mem.core.javascript import js
from mem.core.rules import host_trust
from mem.files.safe_paths import open_regular

# ~/.claude.json keeps every project's state, so it can be larger than a memory store.
READ_LIMIT = 64 * 1024 * 1024
CLAUDE_SETTINGS_DIR = ".claude"
GEMINI_DIR = ".gemini"


class Unreadable(Exception):
    """A host file that exists but cannot be parsed (the message says why)."""


def _home() -> str:
    return os.path.expanduser("~")


def _text(path: str) -> str | None:
    try:
        with open_regular(path) as handle:  # a FIFO at the name must not hang the doctor
            data = handle.read(READ_LIMIT + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise Unreadable(f"cannot be read: {error.strerror}") from None
    if len(data) > READ_LIMIT:
        raise Unreadable(f"is larger than {READ_LIMIT >> 20} MiB")
    return data.decode("utf-8", errors="replace")


def read_json(path: str, comments: bool = False) -> Any:
    """The file's JSON value (with `//` and `/* */` comments, as Gemini CLI reads its own
    files, when comments); None when there is no file."""
    text = _text(path)
    if text is None:
        return None
    try:
        return js.parse_json(host_trust.without_comments(text) if comments else text)
    except ValueError as error:
        raise Unreadable(f"is not valid JSON ({error})") from None


def read_jsonc(path: str) -> Any:
    return read_json(path, comments=True)


def read_toml(path: str) -> dict[str, Any] | None:
    text = _text(path)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Unreadable(f"is not valid TOML ({error})") from None


def claude_config_path() -> str:
    """Claude Code's global config (folder trust): `~/.claude.json`, under $CLAUDE_CONFIG_DIR
    when set; a legacy `.config.json` in the settings folder wins when it exists (2.1.197)."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    legacy = os.path.join(config_dir or os.path.join(_home(), CLAUDE_SETTINGS_DIR), ".config.json")
    if os.path.isfile(legacy):
        return legacy
    return os.path.join(config_dir or _home(), ".claude.json")


def codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(_home(), ".codex")


def codex_config_path() -> str:
    return os.path.join(codex_home(), "config.toml")


def gemini_home() -> str:
    """Gemini CLI's home: $GEMINI_CLI_HOME, else the user's home (0.61.0)."""
    return os.environ.get("GEMINI_CLI_HOME") or _home()


def gemini_trusted_folders_path() -> str:
    return os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
        gemini_home(), GEMINI_DIR, "trustedFolders.json"
    )


def gemini_settings_paths() -> list[tuple[str, str]]:
    """(what, path) of the settings files that decide folder trust, in Gemini's merge order."""
    system_dir = "/etc/gemini-cli"
    return [
        (
            "system defaults",
            os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
            or os.path.join(system_dir, "system-defaults.json"),
        ),
        ("user", os.path.join(gemini_home(), GEMINI_DIR, "settings.json")),
        (
            "system",
            os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
            or os.path.join(system_dir, "settings.json"),
        ),
    ]


def real_path(path: str) -> str:
    """The path through its symbolic links, as Gemini CLI compares folders (itself if absent)."""
    return os.path.realpath(path) if os.path.exists(path) else os.path.abspath(path)


def gemini_trust_override() -> bool | None:
    """What Gemini CLI's environment says of every folder's trust (None: it says nothing)."""
    workspace = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if os.environ.get("GEMINI_RESTRICTED_MODE") == "true" or workspace == "false":
        return False
    return True if workspace == "true" else None


def search_path() -> str:
    return os.environ.get("PATH", "")


def resolve_command(command: str, cwd: str) -> tuple[str, str | None]:
    """(the program the command starts, its absolute path when it can be run from here, else None).

    A name without a slash is looked up on this process's PATH, as the host's shell would
    when the host inherits it; a relative path is taken from the project's folder.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    program = words[0] if words else ""
    if not program:
        return program, None
    if "/" not in program:
        return program, shutil.which(program, path=search_path())
    path = program if os.path.isabs(program) else os.path.join(cwd, program)
    runnable = os.path.isfile(path) and os.access(path, os.X_OK)
    return program, path if runnable else None


def running_program() -> str:
    """The absolute path of the `mem` console script running now, as hooks should name it.

    The script's own path (not resolved through links: a pipx or Homebrew link outlives the
    virtual environment it points into), else the `mem` beside this Python (`python -m mem`),
    else the bare name.
    """
    invoked = sys.argv[0] if sys.argv else ""
    if os.path.basename(invoked) in ("mem", "mem.exe") and os.path.isfile(invoked):
        return os.path.abspath(invoked)
    beside = os.path.join(os.path.dirname(sys.executable), "mem")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return "mem"
