"""Append-only, fsynced writes and atomic whole-file replacement (bmad-mem.md section 5)."""

from __future__ import annotations

import contextlib
import os

from mem.core import ndjson
from mem.errors import MemError
from mem.files import archives
from mem.files.locking import writer_lock
from mem.files.safe_paths import STORE_LIMIT, NotRegularFile, open_regular, read_bounded, safe_path


def append_line(root: str, relative: str, line: str) -> None:
    """Append one record line to a store, under the writer lock, refusing full or torn stores."""
    with writer_lock(root):
        path = safe_path(root, relative)
        finish_interrupted_archive(root, relative)
        prior_size = check_appendable(root, relative, line)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        created = prior_size == 0 and not os.path.exists(path)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o644)
        try:
            _write_all(fd, line.encode("utf-8"), relative, prior_size)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_directory(os.path.dirname(path))


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
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise MemError("Memory source must contain valid UTF-8.") from None
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
        _replace(root, relative, data)


def replace_owned(root: str, relative: str, text: str) -> None:
    """Atomically rewrite one of mem's own files (a brain link, a project index).

    Never a person's file: those are only ever appended to or created.
    """
    _replace(root, relative, text.encode("utf-8"))


def _replace(root: str, relative: str, data: bytes) -> None:
    import uuid  # writers only: a recall never needs it

    path = safe_path(root, relative)
    temp = safe_path(root, f"{relative}.{uuid.uuid4()}.tmp")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        try:
            _write_all(fd, data, relative, 0)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    fsync_directory(os.path.dirname(path))


def _write_all(fd: int, data: bytes, relative: str, restore_size: int) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        # A half-written record would leave a torn line that blocks every later writer.
        os.ftruncate(fd, restore_size)
        raise MemError(
            f"Could not write {relative}: {error.strerror}; nothing was added."
        ) from None


def fsync_directory(path: str) -> None:
    """Make a rename or a new file in `path` durable: the directory entry is data too."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create_new(root: str, relative: str, text: str) -> bool:
    """Create a file that must not exist yet; False (and nothing written) when it does."""
    path = safe_path(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        return False
    try:
        _write_all(fd, text.encode("utf-8"), relative, 0)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_directory(os.path.dirname(path))
    return True


def ensure_directory(root: str, relative: str) -> bool:
    """Create a directory below root (and its parents); True when it did not exist."""
    path = safe_path(root, relative)
    if os.path.isdir(path):
        return False
    os.makedirs(path, exist_ok=True)
    return True


def append_text(root: str, relative: str, text: str) -> None:
    """Append Markdown to a person's file (created when missing), never rewriting what is there."""
    path = safe_path(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    prior = read_bounded(root, relative) or ""
    if prior and not prior.endswith("\n"):
        text = "\n" + text
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o644)
    try:
        _write_all(fd, text.encode("utf-8"), relative, len(prior.encode("utf-8")))
        os.fsync(fd)
    finally:
        os.close(fd)


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
        import uuid

        temp = f"{path}.{uuid.uuid4()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(fd, text.encode("utf-8"), os.path.basename(path), 0)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise MemError(f"{path} already exists; pass --force to replace it.") from None
    try:
        _write_all(fd, text.encode("utf-8"), os.path.basename(path), 0)
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
