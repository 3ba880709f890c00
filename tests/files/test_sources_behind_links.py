"""Recall finds each source as the real file behind any link, whatever the links are.

Every recall stats every source first; it resolves each folder once and each file with one
`lstat`. Whatever a project's tree holds (links to files, to folders, chains of links,
dangling ones, a root reached through a link, two sources that are one file), the sources it
finds are exactly those `os.stat` and `os.path.realpath` find, and a link that cannot be
followed is refused in the same words.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mem.errors import MemError
from mem.files import index_sources
from mem.files.index_sources import SourceStat
from mem.index import freshness

SOURCES = freshness.PROJECT_SOURCES
# Each folder above a source, parents first.
FOLDERS = sorted(
    {
        "/".join(parts[:depth])
        for parts in (spec.relative.split("/") for spec in SOURCES)
        for depth in range(1, len(parts))
    }
)
FILES = [spec.relative for spec in SOURCES]
# What can stand at a folder's or a file's place.
folder_kind = st.sampled_from(["folder", "folder", "missing", "link to other", "file"])
file_kind = st.sampled_from(
    ["file", "file", "missing", "link to file", "link to source", "dangling link", "folder"]
)


def _expected(root: str) -> list[SourceStat]:
    """The definition: stat through links, realpath, first in candidate order wins."""
    found: list[SourceStat] = []
    seen: set[str] = set()
    for spec in SOURCES:
        path = os.path.join(root, spec.relative)
        try:
            info = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        found.append(
            SourceStat(spec, real, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        )
    return found


def _fields(sources: list[SourceStat]) -> list[tuple[object, ...]]:
    return [
        (source.spec.relative, source.real, source.size, source.mtime_ns, source.inode)
        + (source.ctime_ns,)
        for source in sources
    ]


def _build(base: Path, folders: list[str], files: list[str], linked_root: bool) -> str:
    real_root = base / "project"
    other = base / "other"
    other.mkdir()
    (other / "memory").mkdir()
    for name in ("decisions.md", "lessons.md", "journal.ndjson", "notes.md"):
        (other / name).write_text(f"# {name}\n")
        (other / "memory" / name).write_text(f"# {name} inside\n")
    real_root.mkdir()
    for folder, kind in zip(FOLDERS, folders, strict=True):
        path = real_root / folder
        if not path.parent.is_dir() or os.path.lexists(path):
            continue  # its parent is not a folder, or it is inside a linked one
        if kind == "folder":
            path.mkdir()
        elif kind == "link to other":
            path.symlink_to(other / "memory")
        elif kind == "file":
            path.write_text("not a folder\n")
    for position, (relative, kind) in enumerate(zip(FILES, files, strict=True)):
        path = real_root / relative
        if not path.parent.is_dir() or os.path.lexists(path):
            continue
        if kind == "file":
            path.write_text(f"### note {position}\nthe words\n")
        elif kind == "link to file":
            path.symlink_to(other / "decisions.md")
        elif kind == "link to source":
            path.symlink_to(real_root / FILES[0])
        elif kind == "dangling link":
            path.symlink_to(base / "nowhere")
        elif kind == "folder":
            path.mkdir()
    if linked_root:
        (base / "link").symlink_to(real_root)
        return str(base / "link")
    return str(real_root)


@settings(max_examples=60, deadline=None)
@given(
    folders=st.lists(folder_kind, min_size=len(FOLDERS), max_size=len(FOLDERS)),
    files=st.lists(file_kind, min_size=len(FILES), max_size=len(FILES)),
    linked_root=st.booleans(),
)
@example(  # the journal linked to itself
    folders=["folder"] * len(FOLDERS),
    files=["link to source"] + ["file"] * (len(FILES) - 1),
    linked_root=False,
)
def test_sources_are_the_real_files_stat_and_realpath_find(
    folders: list[str], files: list[str], linked_root: bool
) -> None:
    base = Path(tempfile.mkdtemp(prefix="mem-links-"))
    try:
        root = _build(base, folders, files, linked_root)
        try:
            expected = _expected(root)
        except OSError as error:  # a link to itself: both ways refuse it with the OS's words
            with pytest.raises(MemError, match=re.escape(str(error.strerror))):
                index_sources.stat_sources(root, SOURCES)
            return
        assert _fields(index_sources.stat_sources(root, SOURCES)) == _fields(expected)
    finally:
        shutil.rmtree(base)
