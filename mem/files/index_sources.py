"""The canonical files an index mirrors: which exist, their stat signatures, their bytes."""

from __future__ import annotations

import os
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
