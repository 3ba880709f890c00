"""Nexus's safe-target walk (nexus-run-state.md section 3). Read-only."""

from __future__ import annotations

import os
import stat

from mem.errors import MemError


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
