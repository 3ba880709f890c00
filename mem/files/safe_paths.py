"""Project-relative safe paths and bounded reads (bmad-mem.md section 3, deviation D5)."""

from __future__ import annotations

import errno
import os
import stat

from mem import layout
from mem.errors import MemError
from mem.files import team

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

STORE_LIMIT = 2 * 1024 * 1024


MEMORY_DIR = layout.BMAD_MEMORY


class NotRegularFile(OSError):
    """What open_regular raises for a directory, FIFO, socket or device."""


def open_regular(path: str, follow_links: bool = True) -> BinaryIO:
    """`path` opened for reading if what it names is a regular file (through a link only
    when `follow_links`; else a link raises the OS's ELOOP).

    A FIFO, socket or device at a store's name would block a plain open or never end its
    read, so the open does not block and the opened file (not the name, which can be
    swapped) is checked; anything else raises NotRegularFile, whose strerror says why.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    # Checked before fdopen, which raises its own IsADirectoryError for a directory.
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return os.fdopen(fd, "rb")
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise NotRegularFile(errno.EISDIR, os.strerror(errno.EISDIR), path)
    raise NotRegularFile(errno.EINVAL, "Not a regular file", path)


def project_root(directory: str | None) -> str:
    """The project root: an existing directory, resolved through every symlink (D5, D8).

    Refusing here, before any command reads or writes, is what keeps a mistyped `-d` from
    answering "no matches" or creating a whole new tree (deviation D8).
    """
    try:
        path = os.path.abspath(directory or os.getcwd())
    except FileNotFoundError:
        raise MemError(
            "Project directory does not exist: the current directory was removed."
        ) from None
    if "\0" in path:  # no file name holds one (os.stat raises ValueError); an MCP call can
        raise MemError(f"Project directory does not exist: {shown_path(path)}")
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise MemError(f"Project directory does not exist: {shown_path(path)}") from None
    except OSError as error:
        raise MemError(
            f"Project directory cannot be read: {shown_path(path)}: {error.strerror}."
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise MemError(f"Project directory is not a directory: {shown_path(path)}")
    root = os.path.realpath(path)
    if os.path.dirname(root) == root:
        raise MemError(f"Project directory cannot be the file system root: {shown_path(root)}")
    try:
        root.encode("utf-8")
    except UnicodeEncodeError:
        # The index, the stores and JSON output all name the root in UTF-8.
        raise MemError(f"Project directory path is not valid UTF-8: {shown_path(root)}") from None
    return root


def shown_path(path: str) -> str:
    """A path as one printable line: undecodable bytes and control characters escaped."""
    text = os.fsencode(path).decode("utf-8", errors="backslashreplace")
    return "".join(
        character if character.isprintable() else character.encode("unicode_escape").decode()
        for character in text
    )


def refused(action: str, path: str, error: OSError, outcome: str | None = None) -> MemError:
    """The OS's refusal to write (a full disk, a read-only file system, no permission), as
    the user's problem it is: `Cannot <action> <path>: <reason>[; <outcome>].`"""
    then = f"; {outcome}" if outcome else ""
    return MemError(f"Cannot {action} {shown_path(path)}: {error.strerror or error}{then}.")


def safe_path(root: str, relative: str) -> str:
    """The absolute path of a project-relative memory path, refusing links and escapes."""
    if not isinstance(relative, str) or not relative or ":" in relative or os.path.isabs(relative):
        raise MemError("Memory path must be a normalized project-relative path.")
    segments = relative.replace("\\", "/").split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise MemError("Memory path must be a normalized project-relative path.")
    target = os.path.join(root, *segments)
    if os.path.commonpath([root, target]) != root or target == root:
        raise MemError("Memory path escapes project.")
    current = root
    for index, segment in enumerate(segments):
        current = os.path.join(current, segment)
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            # Missing (below root, a non-directory is refused at its own segment, so this
            # is a root whose parent is a file): the writer's makedirs says why.
            continue
        if stat.S_ISLNK(info.st_mode):
            raise MemError("Memory paths cannot follow symbolic links or junctions.")
        if index < len(segments) - 1 and not stat.S_ISDIR(info.st_mode):
            raise MemError("Memory parent is not a directory.")
    return target


def read_bounded(root: str, relative: str) -> str | None:
    """A memory file's text through the safe path, at most 2 MiB of valid UTF-8; None if missing.

    In team layout a store is its classic file and its shards, read as one text (D13)."""
    text = _read_bounded(root, relative)
    shards = team.team_shards(root, relative)
    if not shards:
        return text
    lines = [part for part in (_read_bounded(root, shard) for shard in shards) if part]
    return (text or "") + ("" if not text or text.endswith("\n") else "\n") + _by_time(lines)


def _by_time(texts: list[str]) -> str:
    """The shards' lines as one text, by their record's `ts`, then by the line itself: a
    total order that no merge changes (deviation D13). A torn last line stays last."""
    lines = []
    torn = []
    for text in texts:
        complete, _, rest = text.rpartition("\n")
        if complete:
            lines += complete.split("\n")
        if rest:
            torn.append(rest)
    lines.sort(key=_time_key)
    return "".join(line + "\n" for line in lines) + "\n".join(torn)


def _time_key(line: str) -> tuple[str, str]:
    at = line.find('"ts":"')
    return (line[at + 6 : at + 30] if at >= 0 else "", line)


def _read_bounded(root: str, relative: str) -> str | None:
    path = safe_path(root, relative)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > STORE_LIMIT:
        raise MemError("Memory source must be a regular file of at most 2 MiB.")
    try:
        with open_regular(path) as handle:
            data = handle.read(STORE_LIMIT + 1)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise MemError("Memory source must be a regular file of at most 2 MiB.") from None
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None
    if len(data) > STORE_LIMIT:
        raise MemError("Memory source exceeded 2 MiB while reading.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError("Memory source must contain valid UTF-8.") from None


def read_plain(root: str, relative: str) -> bytes | None:
    """A project file read as the reference reads pattern-scores.json: following links,
    without a size limit; None if missing. In team layout a store's shards follow it (D13)."""
    data = _read_plain(root, relative)
    shards = team.team_shards(root, relative)
    if not shards:
        return data
    texts = [part for part in (_read_plain(root, shard) for shard in shards) if part]
    merged = _by_time([text.decode("utf-8", "surrogateescape") for text in texts])
    head = data or b""
    return (
        head
        + (b"" if not head or head.endswith(b"\n") else b"\n")
        + merged.encode("utf-8", "surrogateescape")
    )


def _read_plain(root: str, relative: str) -> bytes | None:
    path = os.path.join(root, relative)
    try:
        with open_regular(path) as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def list_names(root: str, relative: str) -> list[str]:
    """The sorted entry names of a directory below root; [] when it is missing."""
    try:
        return sorted(os.listdir(safe_path(root, relative)))
    except (FileNotFoundError, NotADirectoryError):
        return []


def regular_files_named(root: str, relative: str, suffix: str) -> list[str] | None:
    """The sorted names ending in suffix of a project directory's regular files; None if absent."""
    path = safe_path(root, relative)
    try:
        entries = list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise MemError(f"Cannot list {relative}: {error.strerror}.") from None
    return sorted(
        entry.name
        for entry in entries
        if entry.name.endswith(suffix) and entry.is_file(follow_symlinks=False)
    )


def inside_root(root: str, base: str, path: str) -> str | None:
    """`path` (absolute, or relative to `base`) relative to the real `root`, '/'-separated;
    None when it lies outside the root. The file need not exist (it may be about to be
    written): the links of its folder are resolved, not the name itself."""
    full = os.path.join(base, path)
    folder, name = os.path.split(os.path.normpath(full))
    relative = os.path.relpath(os.path.join(os.path.realpath(folder), name), root)
    if relative == os.curdir or relative.startswith(os.pardir + os.sep) or relative == os.pardir:
        return None
    return relative.replace(os.sep, "/")
