"""A store's archives as readers see them: what `mem archive` took out of it (deviation D14).

`mem archive <store>` moves a store whole to `archive/<store>-<first>--<last>.ndjson` and
starts an empty one. An archive is the record of the lines it took: a line of the live
store that also stands in one of the store's archives counts there, not in the live store
(deviation D11's "a line seen above is the same record", with the archives above). So when
git merges an archive made on one branch with appends made on another and the archived
lines come back into the live store, nothing counts twice, whatever order the merge left.

The move links the store to its archive name, then unlinks the store (a link, unlike a
rename, never replaces a file). A crash in between leaves the store and its archive one
file: every line of it stands in the archive, so readers count each once (there); `mem
status` and `mem index check` report the link, and the next writer of the store (or `mem
archive` run again) finishes the move first (mem.files.writing.finish_interrupted_archive).
"""

from __future__ import annotations

import os
import stat

from mem import layout
from mem.core.javascript import js
from mem.files import index_sources, safe_paths

ARCHIVE_DIR = layout.ARCHIVE_DIR
# store path -> the store's name, as `mem archive` takes it
STORE_NAMES = {relative: name for name, relative in layout.ARCHIVABLE.items()}


def archive_paths(root: str, store: str) -> list[str]:
    """The archives of a store (by its name), relative to the root, oldest name first."""
    return [
        f"{ARCHIVE_DIR}/{name}"
        for name in index_sources.listing(os.path.join(root, ARCHIVE_DIR))
        if layout.archived_store(name) == store
    ]


def trimmed_lines(data: bytes) -> set[str]:
    """The non-blank lines of a store's bytes, trimmed as every reader compares them."""
    found = {js.trim(line) for line in data.decode("utf-8", errors="replace").split("\n")}
    found.discard("")
    return found


def archived_lines(root: str, relative: str) -> frozenset[str]:
    """The trimmed lines of every archive of the store at `relative`, which that store does
    not count again; empty when it has none (one listing of a folder that is usually absent)."""
    found: set[str] = set()
    for archive in archive_paths(root, STORE_NAMES[relative]):
        data = safe_paths.read_plain(root, archive)
        if data:
            found |= trimmed_lines(data)
    return frozenset(found)


def linked_archive(root: str, relative: str) -> str | None:
    """The archive that is the very file of the store at `relative` (same device and inode):
    a `mem archive` stopped between its link and its unlink. None for a plain store."""
    store = STORE_NAMES.get(relative)
    if store is None:
        return None
    try:
        info = os.lstat(os.path.join(root, relative))
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return None
    for archive in archive_paths(root, store):
        try:
            other = os.lstat(os.path.join(root, archive))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return archive
    return None
