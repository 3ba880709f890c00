"""The team layout's shards (deviation D13).

Without `layout = "team"` in the project's settings (mem.files.settings) every read and
write is the reference's; with it each append to a store goes to a shard no
other clone or branch writes, `<store>.d/<YYYY-MM>/<writer>-<branch>.ndjson`, and every
reader takes the classic file and the shards as one store: the classic file first, then
the shards' lines by their `ts`, then by their text (a total order that no merge can
change, since merges only add files; the index orders the journal's shards by month and
name for ties). The writer id is made once per clone (and per worktree) and kept in
`.bmad/memory/.local/`, which ignores itself.
"""

from __future__ import annotations

import os

from mem import layout
from mem.files import settings

WRITER_FILE = f"{layout.LOCAL_DIR}/writer"
LOCAL_IGNORE = f"{layout.LOCAL_DIR}/.gitignore"  # `*`: the folder is never committed
SHARD_SUFFIX = ".ndjson"
# store path (classic) -> its shard folder
SHARD_FOLDERS = {relative: layout.SHARD_DIRS[name] for name, relative in layout.ARCHIVABLE.items()}
SHARD_FOLDERS[layout.REINFORCEMENTS] = layout.SHARD_DIRS["reinforcements"]


def is_team(root: str) -> bool:
    return settings.project(root)["layout"] == "team"


def shards(root: str, relative: str) -> list[str]:
    """The shards of the store at `relative`, relative to root: by month, then writer id."""
    folder = SHARD_FOLDERS.get(relative)
    if folder is None:
        return []
    base = os.path.join(root, folder)
    found = []
    for month in _names(base):
        for name in _names(os.path.join(base, month)):
            if name.endswith(SHARD_SUFFIX):
                found.append(f"{folder}/{month}/{name}")
    return found


def months(root: str, folder: str) -> list[str]:
    """The month folders of a shard folder."""
    return _names(os.path.join(root, folder))


def team_shards(root: str, relative: str) -> list[str]:
    """shards() in a team project; [] in a classic one (which reads only the classic files)."""
    if relative not in SHARD_FOLDERS or not is_team(root):
        return []
    return shards(root, relative)


def _names(path: str) -> list[str]:
    try:
        return sorted(name for name in os.listdir(path) if not name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []


def note_files(root: str) -> list[str]:
    """A team project's note files: decisions, lessons, patterns, each folder by name."""
    found = []
    for name in layout.NOTE_NAMES:
        folder = layout.NOTE_DIRS[name]
        found += [
            f"{folder}/{file}"
            for file in _names(os.path.join(root, folder))
            if file.endswith(".md")
        ]
    return found


def team_note_files(root: str) -> list[str]:
    return note_files(root) if is_team(root) else []


def note_file_name(kind_file: str, date: str, title: str, writer: str) -> str:
    """Pure: where a team layout keeps a new note of the classic file `kind_file`:
    `<folder>/<date>-<slug>-<writer>.md` (the slug: the title's letters and digits)."""
    return f"{layout.NOTE_DIRS[kind_file]}/{date}-{_slug(title, 48) or 'note'}-{writer}.md"


def _slug(text: str, length: int) -> str:
    """Pure: a file-name part of a text: its ASCII letters and digits, lower-cased, runs of
    anything else as one `-`, at most `length` characters."""
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in text.lower())
    return "-".join(part for part in slug.split("-") if part)[:length].strip("-")


def is_sharded(root: str, relative: str) -> bool:
    """Whether appends to the store at `relative` go to shards: a store, in team layout."""
    return relative in SHARD_FOLDERS and is_team(root)


def shard_for(root: str, relative: str, month: str, writer: str) -> str:
    """Where this clone (`writer`, its id) appends to the store at `relative` in a month
    (`YYYY-MM`): its writer id and, in a git work tree, the branch it is on, since two
    branches of one clone that each add the same new file would conflict when merged."""
    name = writer
    branch = current_branch(root)
    if branch:
        name += "-" + branch_tag(branch)
    return f"{SHARD_FOLDERS[relative]}/{month}/{name}{SHARD_SUFFIX}"


def current_branch(root: str) -> str:
    """The branch checked out at root; "" outside git or on a detached HEAD."""
    from mem.files import worktree  # writers in team layout only: it loads subprocess

    done = worktree.git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    if done is None or done.returncode != 0:
        return ""
    return done.stdout.decode("utf-8", "replace").strip()


def branch_tag(branch: str) -> str:
    """Pure: a file-name part for a branch: its name's letters and digits (at most 24) and
    6 hex digits of its hash, so that `feature/x` and `feature-x` stay apart."""
    import hashlib

    slug = _slug(branch, 24)
    digest = hashlib.sha256(branch.encode("utf-8")).hexdigest()[:6]
    return f"{slug}-{digest}" if slug else digest


def month_of(line: str) -> str:
    """The `YYYY-MM` of a record line's `ts` (every store's records have one); else "undated"."""
    from mem.core.javascript import js

    try:
        record = js.parse_json(line)
    except ValueError:
        record = None
    ts = record.get("ts") if isinstance(record, dict) else None
    if isinstance(ts, str) and len(ts) >= 7 and ts[:4].isdigit() and ts[4] == "-":
        if ts[5:7].isdigit():
            return ts[:7]
    return "undated"
