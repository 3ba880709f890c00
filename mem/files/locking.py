"""The interoperable `writer.lock` (bmad-mem.md section 4, deviation D6)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import time
from collections.abc import Iterator
from typing import NamedTuple

from mem import layout
from mem.core.javascript import js
from mem.errors import MemError
from mem.files.safe_paths import MEMORY_DIR, NotRegularFile, open_regular, refused, safe_path

LOCK_ATTEMPTS = 200


LOCK_RETRY_SECONDS = 0.010


_held_roots: set[str] = set()


# An owner writes its record right after creating the lock file; an empty or unreadable
# lock older than this was left by a writer killed in between.
ABANDONED_AFTER_NS = 5_000_000_000
_TEMP_NAME = re.compile(r".+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp")


class LockOwner(NamedTuple):
    pid: int | None
    hostname: str | None
    raw: str
    inode: int = 0
    modified_ns: int = 0

    @property
    def abandoned_unreadable(self) -> bool:
        """An owner record that is empty or unreadable, and old enough that nobody is writing it."""
        return self.pid is None and time.time_ns() - self.modified_ns > ABANDONED_AFTER_NS

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
            state = "empty" if not self.raw else "unreadable"
            age = (time.time_ns() - self.modified_ns) // 1_000_000_000
            return f"its owner record is {state}, written {age} s ago"
        liveness = {True: "alive", False: "not running", None: "liveness unknown: another host"}
        return f"owner pid {self.pid} on host {self.hostname}, {liveness[self.alive]}"


def fill_created(fd: int, path: str, data: bytes) -> None:
    """Write and fsync the file just created at path, or remove it: left empty or cut short
    by a full disk, it would be taken as whole (the newest handoff, a lock no writer gets)."""
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        if isinstance(error, OSError):
            raise refused("write", path, error, "nothing was written") from None
        raise


def write_all(fd: int, data: bytes) -> None:
    """All of data: a write may take only part of it (a nearly full disk, a signal)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_lock_owner(root: str) -> LockOwner | None:
    path = safe_path(root, layout.WRITER_LOCK)
    try:
        with open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            raw = handle.read(64 * 1024).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except NotRegularFile as error:
        what = "a directory" if error.errno == errno.EISDIR else "not a regular file"
        raise MemError(f"{layout.WRITER_LOCK} is {what}; inspect it.") from None
    stamp = (info.st_ino, info.st_mtime_ns)
    try:
        record = js.parse_json(raw)
    except ValueError:
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return LockOwner(None, None, raw, *stamp)
    hostname = record.get("hostname")
    return LockOwner(record["pid"], hostname if isinstance(hostname, str) else None, raw, *stamp)


def peek_lock_owner(root: str) -> LockOwner | None:
    """read_lock_owner for a report over many projects: never raises for one odd project.

    A lock that cannot be read (a link on the way, a directory, no permission) is an owner
    whose record is unreadable.
    """
    path = os.path.join(root, MEMORY_DIR, "writer.lock")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return LockOwner(None, None, "")
    try:
        raw = os.read(fd, 4096).decode("utf-8", errors="replace")
    except OSError:
        return LockOwner(None, None, "")
    finally:
        os.close(fd)
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

    path = safe_path(root, layout.WRITER_LOCK)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as error:
        raise refused("create", os.path.dirname(path), error, "nothing was written") from None
    owner = json.dumps(
        {"pid": os.getpid(), "hostname": socket.gethostname(), "token": str(uuid.uuid4())},
        separators=(",", ":"),
    )
    fd = _create_lock_file(root, path)
    # Ours, and empty or cut short, it would block every writer until `mem unlock`: gone then.
    fill_created(fd, path, owner.encode("utf-8"))
    _held_roots.add(root)
    try:
        _remove_orphan_temps(os.path.dirname(path))
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


def _remove_orphan_temps(directory: str) -> None:
    """Delete the `<file>.<uuid>.tmp` siblings a killed writer left before its rename.

    Every writer of this directory writes its temporary files under writer.lock, so while
    we hold it none of them belongs to a live writer.
    """
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return
    for name in names:
        if _TEMP_NAME.fullmatch(name):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(os.path.join(directory, name))


def _create_lock_file(root: str, path: str) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(LOCK_ATTEMPTS):
        try:
            return os.open(path, flags, 0o644)
        except FileExistsError:
            time.sleep(LOCK_RETRY_SECONDS)
        except OSError as error:
            raise refused("create", path, error, "nothing was written") from None
    owner = read_lock_owner(root)
    detail = f" ({owner.describe()})" if owner else ""
    removable = owner is not None and (owner.alive is False or owner.abandoned_unreadable)
    hint = " `mem unlock` can remove it." if removable else ""
    raise MemError(
        "Memory writer lock is occupied. Inspect writer.lock and its owner; "
        f"do not remove a live lock.{detail}{hint}"
    )


def remove_dead_lock(root: str, owner: LockOwner) -> bool:
    """Delete writer.lock only if it is still the file, with the owner record, proven dead."""
    current = read_lock_owner(root)
    if current != owner:
        return False
    path = safe_path(root, layout.WRITER_LOCK)
    try:
        os.unlink(path)
    except OSError as error:
        raise refused("remove", path, error) from None
    return True
