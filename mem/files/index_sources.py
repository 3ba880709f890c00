"""The canonical files an index mirrors: which exist, their stat signatures, their bytes."""

from __future__ import annotations

import array
import os
import stat
from typing import NamedTuple

from mem.errors import MemError
from mem.files.safe_paths import open_regular


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
    ctime_ns: int


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
        found.append(
            SourceStat(spec, real, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        )
    return found


def read_source(path: str) -> bytes:
    """A canonical file read as lexical recall does: following links, without a size limit."""
    try:
        with open_regular(path) as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def listing(path: str) -> list[str]:
    """Sorted names in a directory, following links as lexical recall does; [] when missing."""
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


def watch_paths(root: str, files: list[str], listed: list[str]) -> list[str]:
    """What tells, by its stat data alone, that a root's sources are as they were.

    Each file that is there (a link counts, even a dangling one) and the deepest existing
    folder above it, so a file that appears changes that folder; each listed folder (where
    sources are found by name) or its deepest existing parent. "." is the root itself.
    """
    watched: dict[str, None] = {}
    for relative, is_file in [(path, True) for path in files] + [(path, False) for path in listed]:
        if is_file and os.path.lexists(os.path.join(root, relative)):
            watched[relative] = None
        parts = relative.split("/")
        for depth in range(len(parts) - (1 if is_file else 0), -1, -1):
            folder = "/".join(parts[:depth])
            if os.path.isdir(os.path.join(root, folder) if folder else root):
                watched[folder or "."] = None
                break
    return sorted(watched)


def watch_signature(root: str, watched: list[str]) -> bytes:
    """The exact stat data of the watched paths, packed: one `stat` each, no path resolution."""
    return _packed(_stat_values(root, watched))


def watch_signature_and_newest(root: str, watched: list[str]) -> tuple[bytes, int]:
    """watch_signature and the newest mtime among the paths, from the same `stat` calls."""
    values = _stat_values(root, watched)
    mtimes = [values[i + 2] for i in range(0, len(values), 6) if values[i] == 1]
    return _packed(values), max(mtimes, default=0)


def _stat_values(root: str, watched: list[str]) -> list[int]:
    prefix = root.rstrip(os.sep) + os.sep
    status = os.stat
    values: list[int] = []
    for relative in watched:
        try:
            info = status(prefix + relative)
        except OSError:
            values += (0, 0, 0, 0, 0, 0)
            continue
        values += (1, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
    return values


def _packed(values: list[int]) -> bytes:
    try:
        return array.array("q", values).tobytes()
    except OverflowError:  # an inode number above 2**63: spell the numbers out instead
        return repr(values).encode()


def is_folder(path: str) -> bool:
    """Whether a root is there: a directory, following links; False for anything unreadable."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def is_file(path: str) -> bool:
    """Whether path is a regular file, following links; False for anything unreadable."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def real_path(path: str) -> str:
    return os.path.realpath(path)


def link_signature(root: str, relative: str) -> str:
    """The stat data of a path itself (not following a final link), or why there is none."""
    try:
        info = os.lstat(os.path.join(root, relative))
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return f"error {error.errno}"
    return f"{info.st_mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino}"


def signature_mtime(signature: str) -> int | None:
    """The mtime a link_signature holds, None when it holds no stat data."""
    parts = signature.split(" ")
    return int(parts[2]) if len(parts) == 5 else None
