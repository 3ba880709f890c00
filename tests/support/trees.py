"""Trees of files in a test: what is there (to show a command wrote nothing), and aged files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

PAST_NS = 1_700_000_000 * 10**9


def tree(*roots: Path) -> dict[str, bytes | str | None]:
    """Every path under the roots: a file's bytes, a link's target (as text), None for a folder."""
    found: dict[str, bytes | str | None] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_symlink():
                found[str(path)] = os.readlink(path)
            elif path.is_file():
                found[str(path)] = path.read_bytes()
            else:
                found[str(path)] = None
    return found


def stat_tree(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path below root (root included): its mode, bytes or link target, mtime_ns and
    size, for a command that must not even touch a file."""
    found: dict[str, tuple[object, ...]] = {}
    for directory, names, file_names in os.walk(root):
        for name in ["", *names, *file_names]:
            path = os.path.join(directory, name) if name else directory
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                content: object = os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                content = Path(path).read_bytes()
            else:
                content = None
            found[os.path.relpath(path, root)] = (
                info.st_mode,
                content,
                info.st_mtime_ns,
                info.st_size,
            )
    return found


def age(path: Path, offset_s: int = 0) -> None:
    """Pretend the file was last written long ago, so its stat can be trusted."""
    stamp = PAST_NS + offset_s * 10**9
    os.utime(path, ns=(stamp, stamp))


def write(path: Path, text: str, offset_s: int = 0) -> None:
    """Write text (folders made as needed), aged."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    age(path, offset_s)


def age_tree(base: Path) -> None:
    """Age every folder below base too: a folder written just now cannot be trusted yet."""
    for directory, _, _ in os.walk(base):
        age(Path(directory))
