"""The agent hosts' memory on this machine: where each keeps it, and its files read safely.

Where (docs/import.md says which were verified against the installed host and how):
    claude-code  $CLAUDE_CONFIG_DIR (else ~/.claude)/projects/<slug of the git root>/memory/,
                 or `autoMemoryDirectory` from ~/.claude/settings.json or the project's
                 .claude/settings.local.json; and the project's CLAUDE.local.md
    codex        $CODEX_HOME (else ~/.codex)/memories/: MEMORY.md, skills/*/SKILL.md; and
                 memories_v2/extensions/ad_hoc/notes/*.md (Codex 0.171)
    gemini       ~/.gemini/tmp/<id from ~/.gemini/projects.json>/memory/ (or the older
                 <sha256 of the root>), ~/.gemini/GEMINI.md and the project's GEMINI.md
    serena       the project's .serena/memories/ and $SERENA_HOME (else ~/.serena)/memories/global/
    vscode       <VS Code user folder>/workspaceStorage/<the workspace of this folder>/
                 GitHub.copilot-chat/memory-tool/memories/repo/

A file is read only when it is a regular file inside the folder it was listed from (a link
out of it is skipped), at most FILE_LIMIT bytes, and valid UTF-8; every other file gives
one line saying why it was skipped. Nothing here writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
import urllib.parse
from typing import NamedTuple

from mem.files import gitrepo, safe_paths

FILE_LIMIT = 1024 * 1024  # a memory file larger than this is not a memory: skipped
SETTINGS_LIMIT = 1024 * 1024


class HostFile(NamedTuple):
    """One memory file's text."""

    path: str  # absolute
    shown: str  # as the user reads it, `~` for the home folder
    text: str
    date: str  # YYYY-MM-DD (UTC) it was last changed


def shown(path: str) -> str:
    home = os.path.expanduser("~").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        path = "~" + path[len(home) :]
    return safe_paths.shown_path(path)


def _inside(path: str, folder: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip("/") + "/")


def read(path: str, folder: str) -> HostFile | str:
    """The file's text, or a line saying why it is skipped."""
    name = shown(path)
    if not _inside(path, folder):
        return f"{name}: skipped, a link out of {shown(folder)}"
    try:
        with safe_paths.open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > FILE_LIMIT:
                return f"{name}: skipped, {info.st_size} bytes (a memory is at most {FILE_LIMIT})"
            data = handle.read(FILE_LIMIT + 1)
    except OSError as error:
        return f"{name}: skipped, {error.strerror or error}"
    if len(data) > FILE_LIMIT:
        return f"{name}: skipped, larger than {FILE_LIMIT} bytes"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"{name}: skipped, not UTF-8 (byte {error.start})"
    if text.startswith("\ufeff"):
        text = text[1:]
    date = time.strftime("%Y-%m-%d", time.gmtime(info.st_mtime))
    return HostFile(path, name, text.replace("\r\n", "\n"), date)


def markdown_files(folder: str, recursive: bool = False) -> list[str]:
    """The `*.md` files of a folder (of its subfolders too when recursive), sorted; a
    subfolder that is a link is not entered."""
    found: list[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return found
    for entry in entries:
        if entry.name.endswith(".md"):
            found.append(entry.path)
        elif recursive and entry.is_dir(follow_symlinks=False):
            found.extend(markdown_files(entry.path, recursive=True))
    return found


def subfolders(folder: str) -> list[str]:
    """The folders in a folder (not links to folders), sorted."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    return [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]


def is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) or os.path.islink(path)
    except OSError:
        return False


def _json_object(path: str) -> dict[str, object]:
    try:
        with safe_paths.open_regular(path) as handle:
            data = handle.read(SETTINGS_LIMIT + 1)
    except OSError:
        return {}
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _home_path(value: str) -> str:
    return os.path.join(os.path.expanduser("~"), value[2:]) if value.startswith("~/") else value


def claude_config_dir() -> str:
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def claude_memory_folder(root: str, slug: str) -> str:
    """Claude Code's auto memory folder for this project (its `gm()`): the
    `autoMemoryDirectory` of the project's local settings or the user's (never the checked-in
    project settings, which Claude Code ignores for this key), else projects/<slug>/memory."""
    for settings in (
        os.path.join(root, ".claude", "settings.local.json"),
        os.path.join(claude_config_dir(), "settings.json"),
    ):
        chosen = _json_object(settings).get("autoMemoryDirectory")
        if isinstance(chosen, str) and chosen.strip():
            return _home_path(chosen.strip()).rstrip("/")
    return os.path.join(claude_config_dir(), "projects", slug, "memory")


def git_root(root: str) -> str:
    """The folder Claude Code names a project by: its git root, else the folder itself."""
    return gitrepo.toplevel(root) or root


def _codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def codex_memories() -> str:
    return os.path.join(_codex_home(), "memories")


def codex_ad_hoc_notes() -> str:
    """Where Codex 0.171 (`[features] memories = true`) puts what the user asked it to
    remember, before its consolidation folds it into memory_summary.md."""
    return os.path.join(_codex_home(), "memories_v2", "extensions", "ad_hoc", "notes")


def gemini_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".gemini")


def gemini_memory_folders(root: str) -> list[str]:
    """Gemini CLI's private project memory: tmp/<short id>/memory, the id from its
    projects.json registry; the older tmp/<sha256 of the root>/memory too."""
    folders: list[str] = []
    projects = _json_object(os.path.join(gemini_dir(), "projects.json")).get("projects")
    if isinstance(projects, dict):
        short = projects.get(root)
        if isinstance(short, str) and short and "/" not in short and short not in (".", ".."):
            folders.append(os.path.join(gemini_dir(), "tmp", short, "memory"))
    digest = hashlib.sha256(root.encode("utf-8")).hexdigest()
    folders.append(os.path.join(gemini_dir(), "tmp", digest, "memory"))
    return folders


def serena_folders(root: str) -> list[str]:
    home = os.environ.get("SERENA_HOME", "").strip() or os.path.join(
        os.path.expanduser("~"), ".serena"
    )
    return [os.path.join(root, ".serena", "memories"), os.path.join(home, "memories", "global")]


def vscode_user_dir() -> str:
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "Code", "User")


def vscode_repo_memory_folders(root: str) -> list[str]:
    """The repository memory folder of each VS Code workspace opened on this folder."""
    storage = os.path.join(vscode_user_dir(), "workspaceStorage")
    wanted = "file://" + urllib.parse.quote(root)
    folders: list[str] = []
    try:
        names = sorted(os.listdir(storage))
    except OSError:
        return [
            os.path.join(storage, "*", "GitHub.copilot-chat", "memory-tool", "memories", "repo")
        ]
    for name in names:
        folder = _json_object(os.path.join(storage, name, "workspace.json")).get("folder")
        if isinstance(folder, str) and folder.rstrip("/") == wanted:
            folders.append(
                os.path.join(
                    storage, name, "GitHub.copilot-chat", "memory-tool", "memories", "repo"
                )
            )
    return folders or [
        os.path.join(storage, "*", "GitHub.copilot-chat", "memory-tool", "memories", "repo")
    ]
