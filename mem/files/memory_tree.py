"""Every file of a project's memory folders, or of a brain, read for an audit (never written).

Symbolic links are listed, never followed (one could point at a device or outside the
project); a file that cannot be read is listed with the reason. A file of any size is read,
in blocks of whole lines, so a notes file far larger than a store is still read whole.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import NamedTuple

from mem import layout
from mem.files.safe_paths import open_regular

MEMORY_DIRS = (layout.BMAD_MEMORY, layout.AGENTS_MEMORY)
BRAIN_DIRS = (layout.BRAIN_NOTES_DIR, layout.BRAIN_PROJECTS)
BRAIN_SUFFIXES = (".md", ".yaml", ".yml", ".json", ".ndjson")
BLOCK = 16 * 1024 * 1024  # what one read holds in memory at most (plus a line)


class MemoryFile(NamedTuple):
    path: str  # absolute
    relative: str  # to the project or brain it belongs to, '/'-separated
    problem: str | None  # why it cannot be read; None for a regular file


def project_files(root: str) -> list[MemoryFile]:
    """The files below `.bmad/memory/` and `.agents/memory/`, sorted by relative path."""
    found: list[MemoryFile] = []
    for directory in MEMORY_DIRS:
        found += _walk(root, directory)
    return sorted(found, key=lambda item: item.relative)


def brain_files(brain: str) -> list[MemoryFile]:
    """A brain's top-level notes and settings, and everything in its memory folders."""
    found: list[MemoryFile] = []
    try:
        entries = sorted(os.scandir(brain), key=lambda entry: entry.name)
    except OSError:
        return []
    for entry in entries:
        if entry.name.endswith(BRAIN_SUFFIXES) and not entry.is_dir(follow_symlinks=False):
            found.append(_read(entry.path, entry.name))
    for directory in BRAIN_DIRS:
        found += _walk(brain, directory)
    return sorted(found, key=lambda item: item.relative)


def _walk(base: str, directory: str) -> list[MemoryFile]:
    """Every entry below a folder, depth first; a loop, not recursion, so any depth is fine."""
    top = os.path.join(base, *directory.split("/"))
    if not stat.S_ISDIR(_mode(top) or 0):
        return []  # missing, a file, or a link: nothing of ours to walk
    found: list[MemoryFile] = []
    pending = [top]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            relative = os.path.relpath(current, base).replace(os.sep, "/")
            found.append(MemoryFile(current, relative, f"unreadable ({error.strerror})"))
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            else:
                relative = os.path.relpath(entry.path, base).replace(os.sep, "/")
                found.append(_read(entry.path, relative))
    return found


def _mode(path: str) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _read(path: str, relative: str) -> MemoryFile:
    mode = _mode(path)
    if mode is None:
        return MemoryFile(path, relative, "vanished while listed")
    if stat.S_ISLNK(mode):
        return MemoryFile(path, relative, "a symbolic link (not followed)")
    if not stat.S_ISREG(mode):
        return MemoryFile(path, relative, "not a regular file")
    return MemoryFile(path, relative, None)


def blocks(item: MemoryFile) -> Iterator[tuple[int, str]]:
    """A regular file's text in blocks of whole lines, each with the number of its first line;
    a byte that is not UTF-8 reads as U+FFFD. Raises OSError when the file cannot be read."""
    first_line = 1
    rest = b""
    with open_regular(item.path, follow_links=False) as handle:
        while data := handle.read(BLOCK):
            data = rest + data
            end = data.rfind(b"\n") + 1
            if end == 0:
                rest = data  # one line longer than a block: read on until it ends
                continue
            rest = data[end:]
            yield first_line, data[:end].decode("utf-8", errors="replace")
            first_line += data.count(b"\n", 0, end)
    if rest:
        yield first_line, rest.decode("utf-8", errors="replace")


def is_directory(path: str) -> bool:
    return os.path.isdir(path)
