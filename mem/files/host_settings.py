"""A coding agent host's JSON settings file, read whole and replaced atomically.

Project files (`.claude/settings.json`, ...) are reached as instruction files are: no
symbolic link on the way, never outside the project. The user's own files (`~/.claude/...`)
are often links into a dotfiles checkout, so those are followed to the real file, which is
then replaced in its own folder. Either way the new file is a temp sibling, fsynced and
renamed into place, with the old one's permission bits.
"""

from __future__ import annotations

import json
import os

from mem.core.javascript import json_style
from mem.core.rules import hook_settings
from mem.errors import MemError
from mem.files import instructions


def user_file(host: str) -> str:
    """The host's settings file in the user's home (Codex: under $CODEX_HOME when set)."""
    home = os.path.expanduser("~")
    if host == "codex":
        return os.path.join(
            os.environ.get("CODEX_HOME") or os.path.join(home, ".codex"), "hooks.json"
        )
    return os.path.join(home, hook_settings.PROJECT_FILES[host])


def label(host: str, user: bool) -> str:
    """How messages name the file: project-relative, or under `~` for the user's own."""
    if not user:
        return hook_settings.PROJECT_FILES[host]
    path = user_file(host)
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def location(root: str, host: str, user: bool) -> tuple[str, str]:
    """(folder, file name relative to it) where the host's settings are written."""
    if not user:
        return root, hook_settings.PROJECT_FILES[host]
    real = os.path.realpath(user_file(host))
    return os.path.dirname(real), os.path.basename(real)


def read(folder: str, relative: str, label: str) -> dict[str, object] | None:
    """The file's JSON object; None when there is no file. Anything else is refused."""
    return read_styled(folder, relative, label)[0]


def read_styled(
    folder: str, relative: str, label: str
) -> tuple[dict[str, object] | None, json_style.Style]:
    """The file's JSON object and its own layout (mem's default when there is no file)."""
    text = instructions.read_instructions(folder, relative)
    if text is None:
        return None, json_style.DEFAULT
    try:
        value = json.loads(text)
    except ValueError as error:
        raise MemError(
            f"{label}: is not plain JSON ({error}); mem leaves it alone (comments are not"
            " kept by a rewrite: add the hooks by hand, see docs/hooks.md)."
        ) from None
    if not isinstance(value, dict):
        raise MemError(f"{label}: is not a JSON object; mem leaves it alone.")
    return value, json_style.detect(text, value)


def text_of(settings: dict[str, object], style: json_style.Style = json_style.DEFAULT) -> str:
    return json_style.render(settings, style)


def write(folder: str, relative: str, settings: dict[str, object], style: json_style.Style) -> None:
    """Replace the file, laid out as it was (json_style): taking mem's hooks out again gives
    back the very bytes it had before they went in."""
    instructions.write_instructions(folder, relative, text_of(settings, style))


def remove(folder: str, relative: str, user: bool) -> None:
    """Delete the file; a project's `.claude/`-style folder goes too when nothing else is in it."""
    instructions.remove_instructions(folder, relative)
    parent = os.path.dirname(os.path.join(folder, relative))
    if not user and parent != folder:
        try:
            os.rmdir(parent)
        except OSError:
            pass  # it holds other files (or is not ours to remove): it stays
