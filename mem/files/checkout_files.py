"""Checkout files a memory's evidence rests on: hashed, never followed outside the root."""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

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
