"""Opening a file only when it is a regular one: a FIFO, socket or device at a file's name
would block a plain open or never end its read."""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


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
