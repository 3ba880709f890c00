"""Reads of paths anywhere on the machine: brains, scanned folders, Nexus runs, executables."""

from __future__ import annotations

import os
import stat

from mem.errors import MemError
from mem.files.safe_paths import STORE_LIMIT, open_regular


def file_info(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def subdirectories(path: str) -> list[str] | None:
    """Names of the real (not symlinked) subdirectories, sorted; None when unreadable."""
    try:
        with os.scandir(path) as entries:
            return sorted(entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
    except OSError:
        return None


def read_small_text(path: str, limit: int = STORE_LIMIT) -> str | None:
    """A file outside any memory store (a package.json), None when missing, unreadable or large."""
    try:
        with open_regular(path) as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.decode("utf-8", errors="replace")


def read_text(path: str) -> str | None:
    """A notes file whole, whatever its size, as recall reads it; None when missing or
    unreadable."""
    try:
        with open_regular(path) as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None


def missing_file_message(path: str) -> str:
    """The reference surfaces Node's own text for a missing file; the same words name the path."""
    return f"ENOENT: no such file or directory, stat '{path}'"


def entry_kind(path: str) -> str | None:
    """'file', 'directory', 'link' or 'other' at path, links not followed; None if missing."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "other"


def is_directory(path: str) -> bool:
    """Whether path is a directory (following links); a missing path is Node's ENOENT error."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        raise MemError(missing_file_message(path)) from None
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def directory_names(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def read_limited(path: str, limit: int) -> bytes | None:
    """A file's bytes, or None when it holds more than `limit` bytes; missing is ENOENT."""
    try:
        with open_regular(path) as handle:
            if os.fstat(handle.fileno()).st_size > limit:
                return None
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise MemError(missing_file_message(path)) from None
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None
    return None if len(data) > limit else data


def exists(path: str) -> bool:
    return os.path.lexists(path)


def executable_bytes(command: str) -> bytes:
    """The bytes of a check's executable: the literal `node` is looked up on PATH, links resolved.

    An executable may live outside the project, so no safe-target walk applies (as in Nexus).
    """
    if command == "node":
        import shutil

        found = shutil.which("node")
        if found is None:
            raise MemError("Nexus: Check command must be node or an absolute executable path.")
        command = found
    if not os.path.isabs(command):
        raise MemError("Nexus: Check command must be node or an absolute executable path.")
    real = os.path.realpath(command)
    try:
        info = os.stat(real)
    except FileNotFoundError:
        raise MemError(missing_file_message(real)) from None
    except OSError as error:
        raise MemError(f"Cannot read {real}: {error.strerror}.") from None
    if not stat.S_ISREG(info.st_mode):
        raise MemError("Nexus: Check command is not a regular executable.")
    try:
        with open_regular(real) as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {real}: {error.strerror}.") from None
