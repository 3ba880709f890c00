"""mem's settings: the project's `.agents/memory/mem.toml` (committed with the project) and
the user's own `~/.config/mem/config.toml`, read by tomllib and checked against the
choices each setting takes (docs/team.md, docs/history.md).

A project without a settings file (most) reads none and loads no TOML reader.
"""

from __future__ import annotations

import os

from mem import layout
from mem.errors import MemError
from mem.files.regular_files import open_regular

SETTINGS = layout.SETTINGS
BOOLEAN = ("false", "true")  # a setting TOML writes as `key = true` (or as a string)
# Each setting and the values it takes; the first is the default. Later settings join here.
CHOICES: dict[str, tuple[str, ...]] = {
    "layout": ("classic", "team"),
    "ranking": ("lexical", "bm25", "evidence"),
    "history": BOOLEAN,  # a bm25 recall ranks the project's commits (docs/history.md)
}
# A setting with no default here falls through to the user's file, then to mem's default.
DEFAULTS = {"layout": "classic"}
# The user's own settings file, for what is a person's choice rather than the project's.
USER_SETTINGS = ("mem", "config.toml")  # under $XDG_CONFIG_HOME, else ~/.config
USER_CHOICES = {"ranking": CHOICES["ranking"]}
TEAM_TEXT = '# mem settings (docs/team.md)\nlayout = "team"\n'


def project(root: str) -> dict[str, str]:
    """The project's settings: the defaults, overridden by what mem.toml says."""
    data = _read(os.path.join(root, SETTINGS), SETTINGS)
    return DEFAULTS if data is None else parse_settings(data)


def user() -> dict[str, str]:
    """The user's settings file (a ranking of their own), or {} without one."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(base, *USER_SETTINGS)
    data = _read(path, path)
    return {} if data is None else _checked(_table(data, path), path, USER_CHOICES)


def _read(path: str, shown: str) -> bytes | None:
    """A settings file's bytes; a FIFO or device there is refused, never waited on."""
    try:
        with open_regular(path) as handle:
            return handle.read(64 * 1024 + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise MemError(f"Cannot read {shown}: {error.strerror}.") from None


def parse_settings(data: bytes) -> dict[str, str]:
    """Pure: the settings a mem.toml's bytes give, or a MemError naming the file."""
    return {**DEFAULTS, **_checked(_table(data, SETTINGS), SETTINGS, CHOICES)}


def _table(data: bytes, shown: str) -> dict[str, object]:
    if len(data) > 64 * 1024:
        raise MemError(f"{shown} is larger than 64 KiB.")
    data = data.removeprefix(b"\xef\xbb\xbf")  # Notepad's byte order mark; TOML has none
    # Imported here: a project without a settings file (most) never loads it, nor its `re`.
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise MemError(f"{shown} is not valid TOML: {error}.") from None


def _checked(
    table: dict[str, object], shown: str, choices: dict[str, tuple[str, ...]]
) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, bool) and choices.get(key) == BOOLEAN:  # `history = true`
            value = "true" if value else "false"
        allowed_values = choices.get(key)
        if allowed_values is None:
            known = ", ".join(sorted(choices))
            raise MemError(f'{shown}: unknown setting "{key}" (known: {known}).')
        if value not in allowed_values:
            allowed = " or ".join(f'"{choice}"' for choice in allowed_values)
            raise MemError(f"{shown}: {key} must be {allowed}, not {_shown(value)}.")
        found[key] = str(value)
    return found


def _shown(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)
