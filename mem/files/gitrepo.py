"""What `mem` asks git: a work tree's top level, its provable identity, its recent commits.

`git` itself is run (never a reimplementation of its config or object formats), read-only,
through mem.files.worktree: no optional locks, no prompts, and none of the caller's
GIT_DIR-style variables, which would silently point the question at another repository.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from mem.files.worktree import git as _git

DEFAULT_PORTS = {
    "ssh": "22",
    "git+ssh": "22",
    "ssh+git": "22",
    "git": "9418",
    "http": "80",
    "https": "443",
    "ftp": "21",
    "ftps": "990",
}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", re.DOTALL)
# scp form: [user@]host:path, where the host holds no '/' (else it is a local path).
_SCP = re.compile(r"(?:[^@/]*@)?([^@/:]+):(.*)", re.DOTALL)
NOT_PROVABLE = (
    "Repository identity is not provable: configure exactly one remote or an origin remote."
)


class Identity(NamedTuple):
    """A checkout's canonical remote identity, or why it cannot be proven."""

    repo: str | None
    problem: str | None


class Commit(NamedTuple):
    hash: str
    subject: str


def toplevel(directory: str) -> str | None:
    """The real path of the work tree containing directory, or None outside any work tree."""
    done = _git(directory, "rev-parse", "--show-toplevel")
    if done is None or done.returncode != 0:
        return None
    text = done.stdout.decode("utf-8", errors="surrogateescape").rstrip("\n")
    return os.path.realpath(text) if text else None


def is_toplevel(directory: str) -> bool:
    top = toplevel(directory)
    return top is not None and top == os.path.realpath(directory)


def identity(root: str) -> Identity:
    """The canonical identity of the work tree at root (which must be its top level)."""
    if not os.path.isdir(root):
        return Identity(None, f"--root {root} is not a directory.")
    if not is_toplevel(root):
        return Identity(None, f"--root {root} is not the top level of a git work tree.")
    listed = _git(root, "remote")
    if listed is None or listed.returncode != 0:
        return Identity(None, NOT_PROVABLE)
    remotes = {}
    for name in listed.stdout.decode("utf-8", errors="replace").split():
        urls = _git(root, "remote", "get-url", "--all", name)
        text = (
            "" if urls is None or urls.returncode != 0 else urls.stdout.decode("utf-8", "replace")
        )
        remotes[name] = [line for line in text.split("\n") if line.strip()]
    url = chosen_url(remotes)
    if url is None:
        return Identity(None, NOT_PROVABLE)
    canonical = canonical_url(url)
    if canonical is None:
        return Identity(
            None, f"Repository identity is not provable: remote URL {url} names no host."
        )
    return Identity(canonical, None)


def chosen_url(remotes: dict[str, list[str]]) -> str | None:
    """The URL of the only remote, else of `origin`; None unless that gives exactly one URL."""
    if len(remotes) == 1:
        urls = next(iter(remotes.values()))
    elif "origin" in remotes:
        urls = remotes["origin"]
    else:
        return None
    return urls[0].strip() if len(urls) == 1 else None


def canonical_url(url: str) -> str | None:
    """`host/path`: no scheme, user info, default port, trailing `/` or `.git`; host lower-cased.

    None for a URL without a host (a local path or file:// URL identifies no repository
    beyond this machine).
    """
    text = url.strip()
    scheme_match = _SCHEME.fullmatch(text)
    port = ""
    if scheme_match:
        scheme = scheme_match.group(1).lower()
        authority, _, path = scheme_match.group(2).partition("/")
        path = re.split(r"[?#]", path, maxsplit=1)[0]
        host_port = authority.rpartition("@")[2]
        if host_port.startswith("["):
            host, _, rest = host_port[1:].partition("]")
            host = f"[{host}]"
            port = rest[1:] if rest.startswith(":") else ""
        else:
            host, _, port = host_port.partition(":")
        if port == DEFAULT_PORTS.get(scheme):
            port = ""
    else:
        scp_match = _SCP.fullmatch(text)
        if not scp_match or len(scp_match.group(1)) == 1:  # `C:\\repo` is a drive, not a host
            return None
        host, path = scp_match.group(1), scp_match.group(2)
    host = host.lower()
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    if not host or not path:
        return None
    return f"{host}:{port}/{path}" if port else f"{host}/{path}"


def recent_commits(directory: str, count: int = 10) -> list[Commit] | None:
    """The newest commits of the work tree holding directory; None when it is not in one."""
    if toplevel(directory) is None:
        return None
    head = _git(directory, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is None or head.returncode != 0:
        return []  # a work tree without commits yet
    done = _git(directory, "log", f"-n{count}", "--no-color", "--format=%H%x1f%s%x1e")
    if done is None or done.returncode != 0:
        return None
    commits = []
    for entry in done.stdout.decode("utf-8", errors="replace").split("\x1e"):
        entry = entry.strip("\n")
        if entry:
            hash_, _, subject = entry.partition("\x1f")
            commits.append(Commit(hash_, subject))
    return commits


def merge_branches(root: str) -> list[str] | None:
    """The local and remote-tracking branches but the checked-out one (and `*/HEAD`);
    None when root is in no git work tree."""
    listed = _git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes")
    if listed is None or listed.returncode != 0:
        return None
    current = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    here = "" if current is None else current.stdout.decode("utf-8", "replace").strip()
    names = listed.stdout.decode("utf-8", "replace").split("\n")
    return [n for n in names if n and n != here and not n.endswith("/HEAD") and "/" != n[-1:]]


class MergeTree(NamedTuple):
    """What `git merge-tree` found: the conflicting paths, or (None) git's own reason."""

    conflicts: list[str] | None
    reason: str  # git's lines on stderr, joined ("" when it said nothing)


def merge_conflicts(root: str, theirs: str) -> MergeTree:
    """The paths `git merge-tree --write-tree` finds conflicting when theirs is merged into
    HEAD (the worktree and index untouched); no paths when git cannot tell (no such branch,
    unrelated histories, a git older than 2.38, objects it cannot write), with git's reason."""
    done = _git(root, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", theirs)
    if done is None:
        return MergeTree(None, "git cannot be run here")
    said = "; ".join(
        line.strip() for line in done.stderr.decode("utf-8", "replace").split("\n") if line.strip()
    )
    if done.returncode not in (0, 1) or not done.stdout.strip():
        return MergeTree(None, said)  # (a branch git cannot find also exits 1, stdout empty)
    lines = done.stdout.decode("utf-8", "replace").split("\n")[1:]
    return MergeTree(sorted({line for line in lines if line}), said)
