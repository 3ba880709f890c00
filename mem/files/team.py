"""The project's settings file and the team layout's shards (deviation D13).

`.agents/memory/mem.toml` is committed with the project. Without it every read and write
is the reference's; with `layout = "team"` each append to a store goes to a shard no
other clone or branch writes, `<store>.d/<YYYY-MM>/<writer>-<branch>.ndjson`, and every
reader takes the classic file and the shards as one store: the classic file first, then
the shards' lines by their `ts`, then by their text (a total order that no merge can
change, since merges only add files; the index orders the journal's shards by month and
name for ties). The writer id is made once per clone (and per worktree) and kept in
`.bmad/memory/.local/`, which ignores itself.

A classic project's warm recall loads nothing more than this module, and a settings file
of plain `key = "value"` lines is read without `tomllib` (which, with `re`, costs a warm
recall 7 ms); any other file is read by `tomllib`, with the same result.
"""

from __future__ import annotations

import os

from mem import layout
from mem.errors import MemError
from mem.files.regular_files import open_regular

SETTINGS = layout.SETTINGS
BOOLEAN = ("false", "true")  # a setting TOML writes as `key = true` (or as a string)
# Each setting and the values it takes; the first is the default. Later settings join here.
CHOICES: dict[str, tuple[str, ...]] = {
    "layout": ("classic", "team"),
    "ranking": ("lexical", "bm25", "evidence"),
    "history": BOOLEAN,  # a bm25 recall ranks the project's commits (docs/history.md)
}
# A setting with no default here falls through to the user's file, then to mem's default.
DEFAULTS = {"layout": "classic"}
# The user's own settings file, for what is a person's choice rather than the project's.
USER_SETTINGS = ("mem", "config.toml")  # under $XDG_CONFIG_HOME, else ~/.config
USER_CHOICES = {"ranking": CHOICES["ranking"]}
TEAM_TEXT = '# mem settings (docs/team.md)\nlayout = "team"\n'

WRITER_FILE = f"{layout.LOCAL_DIR}/writer"
LOCAL_IGNORE = f"{layout.LOCAL_DIR}/.gitignore"  # `*`: the folder is never committed
SHARD_SUFFIX = ".ndjson"
# store path (classic) -> its shard folder
SHARD_FOLDERS = {relative: layout.SHARD_DIRS[name] for name, relative in layout.ARCHIVABLE.items()}
SHARD_FOLDERS[layout.REINFORCEMENTS] = layout.SHARD_DIRS["reinforcements"]


def settings(root: str) -> dict[str, str]:
    """The project's settings: the defaults, overridden by what mem.toml says."""
    data = _read(os.path.join(root, SETTINGS), SETTINGS)
    return DEFAULTS if data is None else parse_settings(data)


def user_settings() -> dict[str, str]:
    """The user's settings file (a ranking of their own), or {} without one."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = os.path.join(base, *USER_SETTINGS)
    data = _read(path, path)
    return {} if data is None else _checked(_table(data, path), path, USER_CHOICES)


def _read(path: str, shown: str) -> bytes | None:
    """A settings file's bytes; a FIFO or device there is refused, never waited on."""
    try:
        with open_regular(path) as handle:
            return handle.read(64 * 1024 + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise MemError(f"Cannot read {shown}: {error.strerror}.") from None


def parse_settings(data: bytes) -> dict[str, str]:
    """Pure: the settings a mem.toml's bytes give, or a MemError naming the file."""
    return {**DEFAULTS, **_checked(_table(data, SETTINGS), SETTINGS, CHOICES)}


def _table(data: bytes, shown: str) -> dict[str, object]:
    if len(data) > 64 * 1024:
        raise MemError(f"{shown} is larger than 64 KiB.")
    data = data.removeprefix(b"\xef\xbb\xbf")  # Notepad's byte order mark; TOML has none
    table = _simple_table(data)
    if table is None:
        import tomllib  # 7 ms with the `re` it loads: only for a file beyond the simple form

        try:
            table = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise MemError(f"{shown} is not valid TOML: {error}.") from None
    return table


def _checked(
    table: dict[str, object], shown: str, choices: dict[str, tuple[str, ...]]
) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, bool) and choices.get(key) == BOOLEAN:  # `history = true`
            value = "true" if value else "false"
        allowed_values = choices.get(key)
        if allowed_values is None:
            known = ", ".join(sorted(choices))
            raise MemError(f'{shown}: unknown setting "{key}" (known: {known}).')
        if value not in allowed_values:
            allowed = " or ".join(f'"{choice}"' for choice in allowed_values)
            raise MemError(f"{shown}: {key} must be {allowed}, not {_shown(value)}.")
        found[key] = str(value)
    return found


def _simple_table(data: bytes) -> dict[str, object] | None:
    """What tomllib gives for a file of only blank lines, `# comments`, `key = "value"` and
    `key = true|false` lines (a bare lowercase key, a string of letters, digits, `-` and `_`,
    each key once);
    None for any other file, which tomllib then reads."""
    table: dict[str, object] = {}
    for raw in data.split(b"\n"):
        line = raw.strip(b" \t")
        if not line or line.startswith(b"#"):
            continue
        key, equals, value = line.partition(b"=")
        key, value = key.strip(b" \t"), value.strip(b" \t")
        if not equals or not key or not all(c in _KEY for c in key) or key.decode() in table:
            return None
        if value in (b"true", b"false"):
            table[key.decode()] = value == b"true"
            continue
        if (
            len(value) < 2
            or value[:1] != b'"'
            or value[-1:] != b'"'
            or not all(c in _VALUE for c in value[1:-1])
        ):
            return None
        table[key.decode()] = value[1:-1].decode()
    return table


_KEY = frozenset(b"abcdefghijklmnopqrstuvwxyz_")
_VALUE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def _shown(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def is_team(root: str) -> bool:
    return settings(root)["layout"] == "team"


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
    from mem.core import js

    try:
        record = js.parse_json(line)
    except ValueError:
        record = None
    ts = record.get("ts") if isinstance(record, dict) else None
    if isinstance(ts, str) and len(ts) >= 7 and ts[:4].isdigit() and ts[4] == "-":
        if ts[5:7].isdigit():
            return ts[:7]
    return "undated"
