"""Append-only, fsynced writes and atomic whole-file replacement (bmad-mem.md section 5).

Each writer here does all of its write or leaves the file as it was (a file it created
for the write is removed again), and reports what the OS refused (a full disk, a
read-only file system, no permission) as a MemError naming the file. Directories it
created stay: another writer may already be creating a file in one.
"""

from __future__ import annotations

import contextlib
import os

from mem.core.text import ndjson
from mem.errors import MemError
from mem.files import archives, team
from mem.files.locking import fill_created, write_all, writer_lock
from mem.files.safe_paths import (
    STORE_LIMIT,
    NotRegularFile,
    open_regular,
    read_bounded,
    refused,
    safe_path,
    shown_path,
    utf8_text,
)


def append_line(root: str, relative: str, line: str) -> None:
    """Append one record line to a store, under the writer lock, refusing full or torn stores.

    In team layout the line goes to this clone's shard of the store (deviation D13)."""
    with writer_lock(root):
        if team.is_sharded(root, relative):
            month = team.month_of(line.partition("\n")[0])
            relative = team.shard_for(root, relative, month, writer_id(root))
        path = safe_path(root, relative)
        finish_interrupted_archive(root, relative)
        prior_size = check_appendable(root, relative, line)
        _append(path, line.encode("utf-8"), prior_size)


def check_appendable(root: str, relative: str, line: str) -> int:
    """Raise what append_line would raise for this line (full, torn); else the store's size.

    Lets a writer that changes two files refuse before its first write. The store's bytes
    are searched, never decoded as a whole: size from fstat, torn from the last byte.
    """
    path = safe_path(root, relative)
    # A store that is still its archive's file (an interrupted `mem archive`) is empty:
    # append_line finishes the move before it appends.
    prior = b"" if archives.linked_archive(root, relative) else _store_bytes(path)
    if ndjson.has_conflict_markers(prior):
        raise MemError(ndjson.CONFLICTED)
    if len(prior) + len(line.encode("utf-8")) > STORE_LIMIT:
        raise MemError("Memory store is full; archive it explicitly before adding records.")
    if prior and not prior.endswith(b"\n"):
        raise MemError("Memory store has an incomplete final line; inspect it before writing.")
    return len(prior)


def _store_bytes(path: str) -> bytes:
    """A store's bytes as the bounded reader admits them (regular, 2 MiB, UTF-8); b"" if missing."""
    try:
        handle = open_regular(path, follow_links=False)
    except FileNotFoundError:
        return b""
    except NotRegularFile:
        raise MemError("Memory source must be a regular file of at most 2 MiB.") from None
    with handle:
        if os.fstat(handle.fileno()).st_size > STORE_LIMIT:
            raise MemError("Memory source must be a regular file of at most 2 MiB.")
        data = handle.read(STORE_LIMIT + 1)
    if len(data) > STORE_LIMIT:
        raise MemError("Memory source exceeded 2 MiB while reading.")
    if not data.isascii():
        utf8_text(data, shown_path(path))
    return data


def check_replaceable(text: str) -> bytes:
    """Raise what write_atomic would raise for this content; else its bytes."""
    data = text.encode("utf-8")
    if len(data) > STORE_LIMIT:
        raise MemError("Memory store exceeds 2 MiB.")
    return data


def write_atomic(root: str, relative: str, text: str) -> None:
    """Replace a whole memory file: exclusive temp sibling, fsync, rename."""
    data = check_replaceable(text)
    with writer_lock(root):
        replace_path(safe_path(root, relative), data)


def writer_id(root: str) -> str:
    """This clone's writer id in team layout (deviation D13), made on first use; call it
    under the writer lock. Its folder gets a `.gitignore` of `*`, so it is never committed."""
    path = safe_path(root, team.WRITER_FILE)
    try:
        with open(path, encoding="ascii") as handle:
            found = handle.read().strip()
    except FileNotFoundError:
        found = ""
    except (OSError, UnicodeDecodeError) as error:
        raise MemError(f"Cannot read {team.WRITER_FILE}: {error}.") from None
    if found:
        if not (found.isascii() and found.isalnum() and len(found) <= 64):
            raise MemError(f"{team.WRITER_FILE} must hold a writer id of letters and digits.")
        return found
    made = os.urandom(6).hex()
    ignore = safe_path(root, team.LOCAL_IGNORE)
    if not os.path.exists(ignore):
        replace_path(ignore, b"# per clone: never committed\n*\n")
    replace_path(path, (made + "\n").encode("ascii"))
    return made


def replace_owned(root: str, relative: str, text: str) -> None:
    """Atomically rewrite one of mem's own files (a brain link, a project index).

    Never a person's file: those are only ever appended to or created.
    """
    replace_path(safe_path(root, relative), text.encode("utf-8"))


def replace_path(path: str, data: bytes, mode: int | None = None) -> None:
    """Replace (or create) the file at path whole: an exclusive temp sibling, written,
    fsynced and renamed over it, so a reader sees the old file or the new, never half.
    `mode` is set exactly (the umask narrows the one given to open)."""
    import uuid  # writers only: a recall never needs it

    directory = os.path.dirname(path)
    temp = f"{path}.{uuid.uuid4()}.tmp"
    _make_directories(directory, path)
    fd = _create(temp, path, 0o644 if mode is None else mode)
    try:
        try:
            write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise refused("write", path, error, "nothing was changed") from None
        raise
    fsync_directory(directory)


def create_new(root: str, relative: str, text: str) -> bool:
    """Create a file that must not exist yet; False (and nothing written) when it does."""
    path = safe_path(root, relative)
    directory = os.path.dirname(path)
    _make_directories(directory, path)
    try:
        fd = _create(path, path, 0o644)
    except FileExistsError:
        return False
    fill_created(fd, path, text.encode("utf-8"))
    fsync_directory(directory)
    return True


def ensure_directory(root: str, relative: str) -> bool:
    """Create a directory below root (and its parents); True when it did not exist."""
    path = safe_path(root, relative)
    if os.path.isdir(path):
        return False
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise refused("create", path, error) from None
    return True


def append_text(root: str, relative: str, text: str) -> None:
    """Append Markdown to a person's file (created when missing), never rewriting what is there,
    in the file's own line endings: CRLF when its last line break is one (a Windows editor's)."""
    path = safe_path(root, relative)
    prior = read_bounded(root, relative) or ""
    crlf = prior[: prior.rfind("\n") + 1].endswith("\r\n")
    if prior and not prior.endswith("\n"):
        text = "\n" + text
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    _append(path, text.encode("utf-8"), len(prior.encode("utf-8")))


def move_without_replace(root: str, source: str, target: str) -> None:
    """Move a file to a new name; refuses (changing nothing) when the target exists.

    A hard link, unlike a rename, never replaces a file. Killed (or the power lost) between
    the link and the unlink, the file keeps both names: a store then is its archive's file,
    which readers count once and the next writer finishes (finish_interrupted_archive). The
    new name is made durable before the old one goes, so no crash loses both.
    """
    source_path = safe_path(root, source)
    target_path = safe_path(root, target)
    os.makedirs(os.path.dirname(target_path), exist_ok=True)
    try:
        os.link(source_path, target_path)
    except FileExistsError:
        raise MemError(f"{target} already exists; nothing was moved.") from None
    except OSError:
        # No hard links on this filesystem: rename, after checking (callers hold writer.lock).
        if os.path.lexists(target_path):
            raise MemError(f"{target} already exists; nothing was moved.") from None
        os.rename(source_path, target_path)
    else:
        fsync_directory(os.path.dirname(target_path))
        os.unlink(source_path)
    fsync_directory(os.path.dirname(target_path))
    fsync_directory(os.path.dirname(source_path))


def finish_interrupted_archive(root: str, relative: str) -> str | None:
    """Finish a `mem archive` of this store that stopped between its link and its unlink
    (callers hold writer.lock): the store's name goes, its lines stay in the archive.

    The archive it finished (relative to the root), or None when the store is plain.
    """
    archive = archives.linked_archive(root, relative)
    if archive is None:
        return None
    path = safe_path(root, relative)
    os.unlink(path)
    fsync_directory(os.path.dirname(path))
    return archive


def write_export(path: str, text: str, replace: bool) -> None:
    """Write a file a person asked for at an explicit path; never replaces one unless told to."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise MemError(f"Directory not found: {directory}")
    if replace:
        replace_path(path, text.encode("utf-8"))
        return
    try:
        fd = _create(path, path, 0o644)
    except FileExistsError:
        raise MemError(f"{path} already exists; pass --force to replace it.") from None
    fill_created(fd, path, text.encode("utf-8"))


def _make_directories(directory: str, path: str) -> None:
    """`directory` and its parents, for writing `path`."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        raise refused("write", path, error, "nothing was written") from None


def _create(path: str, shown: str, mode: int) -> int:
    """A new file opened for writing; FileExistsError when there is one (or a link)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, mode)
    except FileExistsError:
        raise
    except OSError as error:
        raise refused("write", shown, error, "nothing was written") from None


def _append(path: str, data: bytes, prior_size: int) -> None:
    """Append data to the file at path (created when missing), which held prior_size bytes;
    on failure the file is as it was, or gone again when this created it."""
    _make_directories(os.path.dirname(path), path)
    try:
        fd = _create(path, path, 0o644)
        created = True
    except FileExistsError:
        created = False
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
        except OSError as error:
            raise refused("write", path, error, "nothing was added") from None
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            # A half-written record would leave a torn line that blocks every later writer.
            os.ftruncate(fd, prior_size)
            raise
        finally:
            os.close(fd)
    except BaseException as error:
        if created:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        if isinstance(error, OSError):
            raise refused("write", path, error, "nothing was added") from None
        raise
    if created:
        fsync_directory(os.path.dirname(path))


def fsync_directory(path: str) -> None:
    """Make a rename or a new file in `path` durable: the directory entry is data too."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_owned(root: str, relative: str) -> bool:
    """Delete one of mem's own files (a registry entry); False when it was already gone."""
    path = safe_path(root, relative)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise MemError(f"Cannot remove {path}: {error.strerror}.") from None
    fsync_directory(os.path.dirname(path))
    return True
