"""Agent instruction files (AGENTS.md, CLAUDE.md, GEMINI.md): read whole, replaced atomically.

They are the person's files: mem only rewrites them to put its own block in or take it
out, always as a whole new file renamed into place (so a reader never sees half of one),
keeping the file's permission bits.
"""

from __future__ import annotations

import os
import stat

from mem.errors import MemError
from mem.files import writing
from mem.files.safe_paths import STORE_LIMIT, NotRegularFile, open_regular, refused, safe_path


def check_name(relative: str) -> list[str]:
    """The path's segments; refuses anything but a normalized project-relative path."""
    segments = relative.replace("\\", "/").split("/")
    if not relative or os.path.isabs(relative) or any(s in ("", ".", "..") for s in segments):
        raise MemError(f"{relative}: an instruction file is a normalized project-relative path.")
    return segments


def instruction_path(root: str, relative: str) -> str:
    """A project-relative path reached without symbolic links, never outside the project."""
    segments = check_name(relative)
    current = root
    for segment in segments:
        current = os.path.join(current, segment)
        if os.path.islink(current):
            raise MemError(
                f"{relative}: is reached through a symbolic link; give the file it points to."
            )
    return safe_path(root, "/".join(segments))


def read_instructions(root: str, relative: str) -> str | None:
    """The file's text (UTF-8, at most 2 MiB), or None when it does not exist."""
    path = instruction_path(root, relative)
    try:
        handle = open_regular(path, follow_links=False)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise MemError(f"{relative}: is not a regular file.") from None
    except OSError as error:
        raise MemError(f"{relative}: cannot be read: {error.strerror}.") from None
    with handle:
        data = handle.read(STORE_LIMIT + 1)
    if len(data) > STORE_LIMIT:
        raise MemError(f"{relative}: is larger than 2 MiB; mem leaves it alone.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(f"{relative}: is not valid UTF-8; mem leaves it alone.") from None


def write_instructions(root: str, relative: str, text: str) -> None:
    """Replace (or create) the file whole: temp sibling, fsync, rename; same permissions."""
    path = instruction_path(root, relative)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o644
    writing.replace_path(path, text.encode("utf-8"), mode)


def remove_instructions(root: str, relative: str) -> None:
    path = instruction_path(root, relative)
    try:
        os.unlink(path)
    except OSError as error:
        raise refused("remove", path, error) from None
    writing.fsync_directory(os.path.dirname(path))
