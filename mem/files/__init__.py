"""Every read and write of a project's canonical files happens here.

Writes follow the contract's rules (bmad-mem.md sections 3-5): project-relative safe paths
that refuse symbolic links at or below the project root (deviation D5), a 2 MiB limit per
store, append-only records under the interoperable ``writer.lock``, fsync before close,
and whole-file writes through an exclusive temp file and an atomic rename.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Iterator
from typing import NamedTuple

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


class LockOwner(NamedTuple):
    pid: int | None
    hostname: str | None
    raw: str

    @property
    def on_this_host(self) -> bool:
        import socket

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
    """Hold `.bmad/memory/writer.lock`, which bmad-plus writers take too.

    Re-entrant per process: a writer that already holds it runs directly.
    """
    if root in _held_roots:
        yield
        return
    import socket
    import uuid

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
        current: str | None
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
            _fsync_directory(os.path.dirname(path))


def check_appendable(root: str, relative: str, line: str) -> int:
    """Raise what append_line would raise for this line (full, torn); else the store's size.

    Lets a writer that changes two files refuse before its first write.
    """
    prior = read_bounded(root, relative) or ""
    prior_size = len(prior.encode("utf-8"))
    if prior_size + len(line.encode("utf-8")) > STORE_LIMIT:
        raise MemError("Memory store is full; archive it explicitly before adding records.")
    if prior and not prior.endswith("\n"):
        raise MemError("Memory store has an incomplete final line; inspect it before writing.")
    return prior_size


def write_atomic(root: str, relative: str, text: str) -> None:
    """Replace a whole memory file: exclusive temp sibling, fsync, rename."""
    data = text.encode("utf-8")
    if len(data) > STORE_LIMIT:
        raise MemError("Memory store exceeds 2 MiB.")
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
    _fsync_directory(os.path.dirname(path))


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


def _fsync_directory(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class SourceSpec(NamedTuple):
    """A canonical file a root may hold, in the reference's candidate order."""

    rank: int
    relative: str
    kind: str  # "journal" or "notes"


class SourceStat(NamedTuple):
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


def read_plain(root: str, relative: str) -> bytes | None:
    """A project file read as the reference reads pattern-scores.json: following links,
    without a size limit; None if missing."""
    path = os.path.join(root, relative)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def read_source(path: str) -> bytes:
    """A canonical file read as lexical recall does: following links, without a size limit."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


# ---- Project and portfolio memory (init, handoff, promote, archive, unlock, scan, export).


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
    _fsync_directory(os.path.dirname(path))
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
    """Move a file to a new name; refuses (changing nothing) when the target exists."""
    source_path = safe_path(root, source)
    target_path = safe_path(root, target)
    os.makedirs(os.path.dirname(target_path), exist_ok=True)
    try:
        os.link(source_path, target_path)  # a hard link, unlike rename, never replaces a file
    except FileExistsError:
        raise MemError(f"{target} already exists; nothing was moved.") from None
    except OSError:
        # No hard links on this filesystem: rename, after checking (callers hold writer.lock).
        if os.path.lexists(target_path):
            raise MemError(f"{target} already exists; nothing was moved.") from None
        os.rename(source_path, target_path)
    else:
        os.unlink(source_path)
    _fsync_directory(os.path.dirname(target_path))
    _fsync_directory(os.path.dirname(source_path))


def remove_dead_lock(root: str, owner: LockOwner) -> bool:
    """Delete writer.lock only if it still holds the owner record that was proven dead."""
    current = read_lock_owner(root)
    if current is None or current.raw != owner.raw:
        return False
    os.unlink(safe_path(root, f"{MEMORY_DIR}/writer.lock"))
    return True


def list_names(root: str, relative: str) -> list[str]:
    """The sorted entry names of a directory below root; [] when it is missing."""
    try:
        return sorted(os.listdir(safe_path(root, relative)))
    except (FileNotFoundError, NotADirectoryError):
        return []


def listing(path: str) -> list[str]:
    """Sorted names in a directory, following links as lexical recall does; [] when missing."""
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


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
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.decode("utf-8", errors="replace")


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


SOURCE_LIMIT = 1024 * 1024


class CheckoutFile(NamedTuple):
    """A checkout file as evidence sees it: its hash, or why it is missing or unusable."""

    state: str  # "file", "missing" or "refused"
    sha256: str | None = None
    size: int | None = None
    reason: str | None = None


def read_checkout_file(root: str, relative: str) -> CheckoutFile:
    """Hash one regular file below root, at most 1 MiB, never through a symbolic link.

    `relative` is a normalised '/'-separated path (the caller validates it). Every
    component is lstat-ed so a link anywhere below root is refused, and the file is
    opened without following links and re-checked after reading, so what is hashed is
    what sits at that path now.
    """
    current = root
    segments = relative.split("/")
    for position, segment in enumerate(segments):
        current = os.path.join(current, segment)
        shown = "/".join(segments[: position + 1])
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return CheckoutFile("missing", reason="does not exist")
        except NotADirectoryError:
            return CheckoutFile("missing", reason="does not exist (a parent is not a directory)")
        except OSError as error:
            return CheckoutFile("refused", reason=f"is unreadable: {error.strerror}")
        if stat.S_ISLNK(info.st_mode):
            if position == len(segments) - 1:
                return CheckoutFile("refused", reason="is a symbolic link")
            return CheckoutFile("refused", reason=f"passes through the symbolic link {shown}")
        if position < len(segments) - 1 and not stat.S_ISDIR(info.st_mode):
            return CheckoutFile("missing", reason=f"does not exist ({shown} is not a directory)")
    if stat.S_ISDIR(info.st_mode):
        return CheckoutFile("refused", reason="is a directory")
    if not stat.S_ISREG(info.st_mode):
        return CheckoutFile("refused", reason="is not a regular file")
    if info.st_size > SOURCE_LIMIT:
        return CheckoutFile("refused", reason=f"is larger than 1 MiB ({info.st_size} bytes)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(current, flags)
    except FileNotFoundError:
        return CheckoutFile("missing", reason="does not exist")
    except OSError as error:
        return CheckoutFile("refused", reason=f"is unreadable: {error.strerror}")
    try:
        before = os.fstat(fd)
        chunks = []
        remaining = SOURCE_LIMIT + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        after = os.fstat(fd)
    except OSError as error:
        return CheckoutFile("refused", reason=f"is unreadable: {error.strerror}")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > SOURCE_LIMIT:
        return CheckoutFile("refused", reason="grew past 1 MiB while being read")
    unchanged = (before.st_ino, before.st_size, before.st_mtime_ns) == (
        after.st_ino,
        after.st_size,
        after.st_mtime_ns,
    )
    if not stat.S_ISREG(before.st_mode) or before.st_ino != info.st_ino or not unchanged:
        return CheckoutFile("refused", reason="changed while being read")
    if len(data) != after.st_size:
        return CheckoutFile("refused", reason="changed while being read")
    import hashlib  # evidence only: recall never hashes checkout files

    return CheckoutFile("file", hashlib.sha256(data).hexdigest(), len(data))


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
