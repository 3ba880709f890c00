"""The canonical files an index mirrors: which exist, their stat signatures, their bytes."""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

from mem.errors import MemError


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


def read_source(path: str) -> bytes:
    """A canonical file read as lexical recall does: following links, without a size limit."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None


def listing(path: str) -> list[str]:
    """Sorted names in a directory, following links as lexical recall does; [] when missing."""
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


def stat_signature(root: str, specs: list[SourceSpec]) -> str | None:
    """The stat data of a root's sources in one string: equal means nothing was touched.

    One `stat` per source and no path resolution, so an unchanged root costs little;
    None when a source cannot be examined (the full scan then reports why).
    """
    parts = []
    for spec in specs:
        try:
            info = os.stat(os.path.join(root, spec.relative))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return None
        parts.append(
            f"{spec.rank} {spec.relative} {info.st_size} {info.st_mtime_ns}"
            f" {info.st_ctime_ns} {info.st_ino} {info.st_dev}"
        )
    return "\n".join(parts)


def is_folder(path: str) -> bool:
    """Whether a root is there: a directory, following links; False for anything unreadable."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
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
