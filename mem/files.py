"""Every read and write of a project's canonical files happens here.

Writes follow the contract's rules (bmad-mem.md sections 3-5): project-relative safe paths
that refuse symbolic links at or below the project root (deviation D5), a 2 MiB limit per
store, append-only records under the interoperable ``writer.lock``, fsync before close,
and whole-file writes through an exclusive temp file and an atomic rename.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import stat
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from mem.errors import MemError

STORE_LIMIT = 2 * 1024 * 1024
MEMORY_DIR = ".bmad/memory"
LOCK_ATTEMPTS = 200
LOCK_RETRY_SECONDS = 0.010

_held_roots: set[str] = set()


def project_root(directory: str | None) -> str:
    """The project root: the directory resolved through every symlink (deviation D5)."""
    return os.path.realpath(os.path.abspath(directory or os.getcwd()))


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
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            raise MemError("Memory paths cannot follow symbolic links or junctions.")
        if index < len(segments) - 1 and not stat.S_ISDIR(info.st_mode):
            raise MemError("Memory parent is not a directory.")
    return target


def read_bounded(root: str, relative: str) -> str | None:
    """A memory file's text through the safe path, at most 2 MiB of valid UTF-8; None if missing."""
    path = safe_path(root, relative)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > STORE_LIMIT:
        raise MemError("Memory source must be a regular file of at most 2 MiB.")
    try:
        with open(path, "rb") as handle:
            data = handle.read(STORE_LIMIT + 1)
    except FileNotFoundError:
        return None
    if len(data) > STORE_LIMIT:
        raise MemError("Memory source exceeded 2 MiB while reading.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError("Memory source must contain valid UTF-8.") from None


@dataclass(frozen=True)
class LockOwner:
    pid: int | None
    hostname: str | None
    raw: str

    @property
    def on_this_host(self) -> bool:
        return self.hostname == socket.gethostname()

    @property
    def alive(self) -> bool | None:
        """True or False when provable on this host, None when it cannot be known."""
        if self.pid is None or not self.on_this_host:
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def describe(self) -> str:
        if self.pid is None:
            return "its owner record is unreadable"
        liveness = {True: "alive", False: "not running", None: "liveness unknown: another host"}
        return f"owner pid {self.pid} on host {self.hostname}, {liveness[self.alive]}"


def read_lock_owner(root: str) -> LockOwner | None:
    path = safe_path(root, f"{MEMORY_DIR}/writer.lock")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return LockOwner(None, None, raw)
    hostname = record.get("hostname")
    return LockOwner(record["pid"], hostname if isinstance(hostname, str) else None, raw)


@contextlib.contextmanager
def writer_lock(root: str) -> Iterator[None]:
    """Hold `.bmad/memory/writer.lock`, the lock bmad-plus writers take too (re-entrant per process)."""
    if root in _held_roots:
        yield
        return
    path = safe_path(root, f"{MEMORY_DIR}/writer.lock")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as error:
        raise MemError(f"Cannot create {MEMORY_DIR}: {error.strerror}.") from None
    owner = json.dumps(
        {"pid": os.getpid(), "hostname": socket.gethostname(), "token": str(uuid.uuid4())},
        separators=(",", ":"),
    )
    fd = _create_lock_file(root, path)
    _held_roots.add(root)
    try:
        try:
            os.write(fd, owner.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        yield
    finally:
        _held_roots.discard(root)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                current = handle.read()
        except FileNotFoundError:
            current = None
        if current == owner:
            os.unlink(path)


def _create_lock_file(root: str, path: str) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(LOCK_ATTEMPTS):
        try:
            return os.open(path, flags, 0o644)
        except FileExistsError:
            time.sleep(LOCK_RETRY_SECONDS)
        except OSError as error:
            raise MemError(f"Cannot create {MEMORY_DIR}/writer.lock: {error.strerror}.") from None
    owner = read_lock_owner(root)
    detail = f" ({owner.describe()})" if owner else ""
    hint = " `mem unlock` can remove it." if owner and owner.alive is False else ""
    raise MemError(
        "Memory writer lock is occupied. Inspect writer.lock and its owner; "
        f"do not remove a live lock.{detail}{hint}"
    )


def append_line(root: str, relative: str, line: str) -> None:
    """Append one record line to a store, under the writer lock, refusing full or torn stores."""
    with writer_lock(root):
        path = safe_path(root, relative)
        prior = read_bounded(root, relative) or ""
        prior_size = len(prior.encode("utf-8"))
        if prior_size + len(line.encode("utf-8")) > STORE_LIMIT:
            raise MemError("Memory store is full; archive it explicitly before adding records.")
        if prior and not prior.endswith("\n"):
            raise MemError("Memory store has an incomplete final line; inspect it before writing.")
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
            _fsync_directory(os.path.dirname(path))


def write_atomic(root: str, relative: str, text: str) -> None:
    """Replace a whole memory file: exclusive temp sibling, fsync, rename."""
    data = text.encode("utf-8")
    if len(data) > STORE_LIMIT:
        raise MemError("Memory store exceeds 2 MiB.")
    with writer_lock(root):
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
        _fsync_directory(os.path.dirname(path))


def _write_all(fd: int, data: bytes, relative: str, restore_size: int) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        # A half-written record would leave a torn line that blocks every later writer.
        os.ftruncate(fd, restore_size)
        raise MemError(f"Could not write {relative}: {error.strerror}; nothing was added.") from None


def _fsync_directory(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A canonical file a root may hold, in the reference's candidate order."""

    rank: int
    relative: str
    kind: str  # "journal" or "notes"


@dataclass(frozen=True, slots=True)
class SourceStat:
    spec: SourceSpec
    real: str
    size: int
    mtime_ns: int
    inode: int


def stat_sources(root: str, specs: list[SourceSpec]) -> list[SourceStat]:
    """The sources present under root, each real file once (first in candidate order wins)."""
    found: list[SourceStat] = []
    seen: set[str] = set()
    for spec in specs:
        path = os.path.join(root, spec.relative)
        try:
            info = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            raise MemError(f"Cannot read {path}: {error.strerror}.") from None
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        found.append(SourceStat(spec, real, info.st_size, info.st_mtime_ns, info.st_ino))
    return found


def read_source(path: str) -> bytes:
    """A canonical file read as lexical recall does: following links, without a size limit."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


# Nexus run state (nexus-run-state.md section 3). Read-only: nothing here writes Nexus files.


def missing_file_message(path: str) -> str:
    """The reference surfaces Node's own text for a missing file; the same words name the path."""
    return f"ENOENT: no such file or directory, stat '{path}'"


def nexus_target(root: str, relative: str) -> str:
    """Nexus's safe-target walk: no link, a directory at every parent, a regular file at the end.

    The walk stops silently at the first component that does not exist. Components above the
    root are not walked: the root is already a realpath (deviation D5).
    """
    segments = relative.split("/") if isinstance(relative, str) else []
    if (
        not segments
        or any(segment in ("", ".", "..") for segment in segments)
        or any(character in relative for character in "\\:\0")
    ):
        raise MemError(f"Adapter file must be a relative project path: {relative}")
    current = root
    for position, segment in enumerate(segments):
        current = os.path.join(current, segment)
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            break
        if stat.S_ISLNK(info.st_mode):
            raise MemError(f"Adapter path contains a symlink or junction: {current}")
        final = position == len(segments) - 1
        if final and not stat.S_ISREG(info.st_mode):
            raise MemError(f"Adapter target is not a regular file: {current}")
        if not final and not stat.S_ISDIR(info.st_mode):
            raise MemError(f"Adapter parent is not a directory: {current}")
    return os.path.join(root, *segments)


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
        with open(path, "rb") as handle:
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
        with open(real, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {real}: {error.strerror}.") from None
