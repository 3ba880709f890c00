"""Agent instruction files (AGENTS.md, CLAUDE.md, GEMINI.md): read whole, replaced atomically.

They are the person's files: mem only rewrites them to put its own block in or take it
out, always as a whole new file renamed into place (so a reader never sees half of one),
keeping the file's permission bits.
"""

from __future__ import annotations

import contextlib
import os
import stat

from mem.errors import MemError
from mem.files.safe_paths import STORE_LIMIT, NotRegularFile, open_regular, safe_path
from mem.files.writing import fsync_directory


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
    import uuid  # writers only

    path = instruction_path(root, relative)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o644
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as error:
        raise MemError(f"{relative}: could not be written: {error.strerror}.") from None
    temp = f"{path}.{uuid.uuid4().hex}.tmp"
    try:
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode
        )
    except OSError as error:  # a read-only or full file system: nothing was written
        raise MemError(f"{relative}: could not be written: {error.strerror}.") from None
    try:
        try:
            view = memoryview(text.encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)  # the umask narrowed the mode given to open
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise MemError(f"{relative}: could not be written: {error.strerror}.") from None
        raise
    fsync_directory(os.path.dirname(path))


def remove_instructions(root: str, relative: str) -> None:
    path = instruction_path(root, relative)
    os.unlink(path)
    fsync_directory(os.path.dirname(path))
