"""The canonical files an index mirrors: which exist, their stat signatures, their bytes."""

from __future__ import annotations

import itertools
import operator
import os
import stat

from mem.errors import MemError
from mem.files.safe_paths import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal


class SourceSpec:
    """A canonical file a root may hold, in the reference's candidate order."""

    __slots__ = ("rank", "relative", "kind")

    def __init__(self, rank: int, relative: str, kind: str) -> None:
        self.rank = rank
        self.relative = relative
        self.kind = kind  # "journal", "notes", or a store's kind (mem.layout)


class SourceStat:
    """A source as it stands: its real path and the stat data that says whether it changed."""

    __slots__ = ("spec", "real", "size", "mtime_ns", "inode", "ctime_ns")

    def __init__(
        self, spec: SourceSpec, real: str, size: int, mtime_ns: int, inode: int, ctime_ns: int
    ) -> None:
        self.spec = spec
        self.real = real
        self.size = size
        self.mtime_ns = mtime_ns
        self.inode = inode
        self.ctime_ns = ctime_ns

    def same_stat(self, other: SourceStat) -> bool:
        """The same real file at the same stat data (whichever spec named it)."""
        return (self.real, self.size, self.mtime_ns, self.inode, self.ctime_ns) == (
            other.real,
            other.size,
            other.mtime_ns,
            other.inode,
            other.ctime_ns,
        )


def stat_sources(root: str, specs: list[SourceSpec]) -> list[SourceStat]:
    """The sources present under root, each real file once (first in candidate order wins)."""
    found: list[SourceStat] = []
    seen: set[str] = set()
    # Every recall checks every source: resolving each folder once and the file with one
    # lstat gives what stat and realpath would (a link anywhere takes the long way).
    folders: dict[str, str | None] = {}
    for spec in specs:
        folder, _, name = spec.relative.rpartition("/")
        real_folder = _real_folder(root, folder, folders)
        source = None if real_folder is None else _plain_file(spec, real_folder + "/" + name)
        if source is None:
            source = _resolved(root, spec)
        if source is False:
            continue
        if source.real in seen:
            continue
        seen.add(source.real)
        found.append(source)
    return found


def _real_folder(root: str, folder: str, folders: dict[str, str | None]) -> str | None:
    """realpath(root/folder) when no part of folder is a link; None otherwise (or unsure)."""
    if folder in folders:
        return folders[folder]
    real: str | None
    if not folder:
        real = os.path.realpath(root)
    else:
        parent, _, name = folder.rpartition("/")
        real = _real_folder(root, parent, folders)
        if real is not None:
            real = real.rstrip("/") + "/" + name
            try:
                info = os.lstat(real)
            except OSError:
                real = None
            else:
                if name in (".", "..") or not stat.S_ISDIR(info.st_mode):
                    real = None
    folders[folder] = real
    return real


def _plain_file(spec: SourceSpec, real: str) -> SourceStat | Literal[False] | None:
    """The source at a real path: False when absent, None when not a plain file's path."""
    try:
        info = os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return None
    return SourceStat(spec, real, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def _resolved(root: str, spec: SourceSpec) -> SourceStat | Literal[False]:
    """The source through stat and realpath: links followed, errors as they are."""
    path = os.path.join(root, spec.relative)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None
    real = os.path.realpath(path)
    return SourceStat(spec, real, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


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


def watch_paths(root: str, files: list[str], listed: list[str], settled_ns: int) -> list[str]:
    """What tells, by its stat data alone, that a root's sources are as they were.

    Each file that is there (a link counts, even a dangling one); each listed folder (where
    sources are found by name) or its deepest existing parent; and, for each file that is
    not there, the deepest existing folder above it, so that its appearing changes that
    folder. "." is the root itself.

    A file that is there keeps its folder watched too unless it is plain: a regular file
    with one name, unchanged since `settled_ns`, in a folder the root reaches without a
    link. Then only its own stat data can change what its path gives: an edit moves its
    mtime and ctime, a file renamed over it or put in its place after a delete is another
    inode or a later ctime, a delete leaves nothing to stat. The folder would add one
    `stat` a check, for nothing. (A folder moved, and a link to it left in its place, gives
    the same files under other real paths: the index keeps the old ones until the root
    syncs again, and as no file has a second name, what is read from which path, and so
    every answer, is the same.)
    """
    folders: dict[str, int] = {}
    watched: dict[str, None] = {}
    for relative in files:
        folder = relative.rpartition("/")[0]
        try:
            info = os.lstat(os.path.join(root, relative))
        except OSError:
            info = None
        if info is not None:
            watched[relative] = None
            if (
                stat.S_ISREG(info.st_mode)
                and info.st_nlink == 1
                and max(info.st_mtime_ns, info.st_ctime_ns) < settled_ns
                and _folder_state(root, folder, folders) == _PLAIN
            ):
                continue
        _watch_deepest_folder(root, folder, folders, watched)
    for relative in listed:
        _watch_deepest_folder(root, relative, folders, watched)
    return sorted(watched)


_ABSENT, _LINKED, _PLAIN = 0, 1, 2  # a folder: none there, reached through a link, plain


def _folder_state(root: str, folder: str, folders: dict[str, int]) -> int:
    """Whether root/folder is a folder, and whether the root reaches it without links."""
    if folder in folders:
        return folders[folder]
    parent, _, name = folder.rpartition("/")
    path = os.path.join(root, folder) if folder else root
    try:
        info = os.lstat(path)
    except OSError:
        state = _ABSENT
    else:
        if stat.S_ISDIR(info.st_mode):
            plain = not folder or (
                name not in ("", ".", "..") and _folder_state(root, parent, folders) == _PLAIN
            )
            state = _PLAIN if plain else _LINKED
        else:
            state = _LINKED if stat.S_ISLNK(info.st_mode) and is_folder(path) else _ABSENT
    folders[folder] = state
    return state


def _watch_deepest_folder(
    root: str, folder: str, folders: dict[str, int], watched: dict[str, None]
) -> None:
    """Watch folder, or else the deepest folder above it that is there."""
    while True:
        if _folder_state(root, folder, folders) != _ABSENT:
            watched[folder or "."] = None
            return
        if not folder:
            return
        folder = folder.rpartition("/")[0]


# A watched path's stat data is its size, mtime, ctime, inode and device, in that order; a
# path that cannot be stat'ed (gone, or a dangling link) gives -1 for each.
_UNREADABLE = (-1, -1, -1, -1, -1)
SIGNATURE_BYTES = 8 * len(_UNREADABLE)  # per watched path, when every number fits in 64 bits
_STAT_FIELDS = operator.attrgetter("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev")


def watched_files(root: str, watched: list[str]) -> list[str]:
    """The watched paths as stat calls take them: joined to the root, nothing resolved."""
    prefix = root.rstrip(os.sep) + os.sep
    return [prefix + relative for relative in watched]


def watch_signature(root: str, watched: list[str]) -> bytes:
    """The exact stat data of the watched paths, packed: one `stat` each, no path resolution."""
    import struct  # portfolio syncs only

    paths = watched_files(root, watched)
    pack = struct.Struct(f"{len(_UNREADABLE)}q").pack
    try:
        # While every path can be stat'ed, each path's numbers are packed without a Python step.
        return b"".join(itertools.starmap(pack, map(_STAT_FIELDS, map(os.stat, paths))))
    except (OSError, struct.error):  # a watched path went away, or a number does not fit
        return _spelled(_stat_values(paths))


def watch_signature_and_newest(root: str, watched: list[str]) -> tuple[bytes, int]:
    """watch_signature and the newest mtime among the paths, from the same `stat` calls."""
    values = _stat_values(watched_files(root, watched))
    step = len(_UNREADABLE)
    mtimes = [values[i + 1] for i in range(0, len(values), step) if values[i] >= 0]
    return _spelled(values), max(mtimes, default=0)


def _stat_values(paths: list[str]) -> list[int]:
    status = os.stat
    values: list[int] = []
    for path in paths:
        try:
            info = status(path)
        except OSError:
            values += _UNREADABLE
            continue
        values += _STAT_FIELDS(info)
    return values


def _packed(values: list[int]) -> bytes | None:
    """Eight bytes a number, so that roots' signatures concatenate; None when one does not fit."""
    import struct  # portfolio syncs only; for 50,000 numbers it packs faster than array

    try:
        return struct.pack(f"{len(values)}q", *values)
    except struct.error:
        return None


def _spelled(values: list[int]) -> bytes:
    packed = _packed(values)
    # An inode number above 2**63: the numbers are spelled out instead.
    return repr(values).encode() if packed is None else packed


def is_folder(path: str | bytes) -> bool:
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
