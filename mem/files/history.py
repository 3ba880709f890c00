"""What mem reads of a project's git history (docs/history.md), read-only.

HEAD is read from the repository's own files (`.git/HEAD`, the ref it names, `packed-refs`,
a worktree's or submodule's `gitdir:` file and its `commondir`), so a read that finds HEAD
where the index left it runs no git process. Commits are read through the user's `git`
(mem.files.worktree.git, imported only when HEAD moved), never by parsing objects.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

    from mem.core.rules.commits import Commit
    from mem.files.worktree import Stream

_HEX = frozenset("0123456789abcdef")
NO_GIT = "git is not on PATH"
NOT_A_CHECKOUT = "not in a git work tree"
# Why a read that does not index finds no commits to rank: HEAD is not where the index left
# it (a hook leaves the indexing to a process of its own, mem.index.background).
STALE = "the commits are not indexed at HEAD yet"


class Head:
    """Where HEAD points: its commit's sha, "" in a repository without commits, None when
    only git can tell (a ref format mem does not read); or why there is no history.

    A plain class, not a NamedTuple: `typing` (and the `re` it imports) would cost a warm
    recall with history on a few milliseconds that one with it off does not pay."""

    __slots__ = ("sha", "problem")

    def __init__(self, sha: str | None, problem: str | None = None) -> None:
        self.sha = sha
        self.problem = problem


def git_dir(root: str) -> str | None:
    """The git directory of the work tree holding root: `.git`, or where a `.git` file
    (a worktree's, a submodule's) points; None outside any work tree."""
    directory = os.path.realpath(root)
    while True:
        candidate = os.path.join(directory, ".git")
        if os.path.isdir(candidate):
            return candidate
        if os.path.isfile(candidate):
            text = _read(candidate)
            if text is None or not text.startswith("gitdir:"):
                return None
            return os.path.normpath(os.path.join(directory, text[len("gitdir:") :].strip()))
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def work_tree_top(root: str) -> str | None:
    """The folder whose `.git` (a directory or a file) git_dir finds for root: the top of
    its work tree, which the paths of commits are relative to; None outside any."""
    directory = os.path.realpath(root)
    while not os.path.exists(os.path.join(directory, ".git")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return directory


def head(root: str) -> Head:
    """HEAD's commit, read from the repository's files."""
    gitdir = git_dir(root)
    if gitdir is None:
        return Head(None, NOT_A_CHECKOUT)
    text = _read(os.path.join(gitdir, "HEAD"))
    if text is None:
        return Head(None, NOT_A_CHECKOUT)
    text = text.strip()
    if _is_sha(text):
        return Head(text)  # detached
    if not text.startswith("ref:"):
        return Head(None)
    ref = text[len("ref:") :].strip()
    common = _common_dir(gitdir)
    for directory in dict.fromkeys((gitdir, common)):
        found = _read(os.path.join(directory, *ref.split("/")))
        if found is not None:
            found = found.strip()
            return Head(found if _is_sha(found) else None)
    packed = _read(os.path.join(common, "packed-refs"))
    for line in (packed or "").split("\n"):
        sha, _, name = line.partition(" ")
        if name.strip() == ref and _is_sha(sha):
            return Head(sha)
    if os.path.exists(os.path.join(common, "reftable")):
        return Head(None)  # only git reads reftables
    return Head("")  # the branch has no commit yet


def head_by_git(root: str) -> Head:
    """HEAD's commit as `git rev-parse` says it: when the files could not tell."""
    from mem.files.worktree import git  # subprocess: only when HEAD must be asked of git

    done = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if done is None:
        return Head(None, NO_GIT)
    if done.returncode != 0:
        inside = git(root, "rev-parse", "--git-dir")
        if inside is None or inside.returncode != 0:
            return Head(None, NOT_A_CHECKOUT)
        return Head("")
    return Head(done.stdout.decode("ascii", "replace").strip())


class Log:
    """The commits of `git log revisions` (a sha, or `old..new`), oldest first, in batches
    parsed while git writes the rest. Once the batches are read, `problem` says why git
    could not list them all (None: it did); the caller then drops what it took of them.

    A whole history's output is drained from the pipe by a thread of its own, so git
    never waits for mem to parse and index what it wrote (both run at once, on two cores):
    the listing takes about as long as git alone, or as mem alone, whichever is longer.
    """

    BATCH_BYTES = 1 << 20
    # Chunks read ahead of the parser: past them (the whole output of a long history,
    # when mem is the slower), git waits, and mem's memory stays bounded.
    AHEAD = 64

    def __init__(self, root: str, revisions: str) -> None:
        self.root = root
        self.revisions = revisions
        self.problem: str | None = None

    def batches(self) -> Iterator[list[Commit]]:
        from mem.core.rules import commits
        from mem.files.worktree import git_stream

        process = git_stream(self.root, *commits.LOG_ARGS, self.revisions, "--")
        if process is None:
            self.problem = NO_GIT
            return
        with process:
            if ".." in self.revisions:  # a few new commits, most often
                chunks = _chunks(process, self.BATCH_BYTES)
            else:
                chunks = _read_ahead(process, self.BATCH_BYTES, self.AHEAD)
            try:
                pending = b""
                for chunk in chunks:
                    pending += chunk
                    cut = commits.last_start(pending)
                    if cut:
                        yield commits.parse_log(pending[:cut])
                        pending = pending[cut:]
                if pending:
                    yield commits.parse_log(pending)
            finally:
                chunks.close()
        if process.wait() != 0:
            self.problem = f"git log {self.revisions} failed (exit {process.returncode})"


BLAMED_FILE_LIMIT = 4 * 1024 * 1024  # a larger file is not blamed: no code file is


def blamed(root: str, path: str, replaced: str) -> dict[str, int]:
    """sha -> how many of the lines an edit replaces in a file (relative to root, as the
    work tree holds it) each commit last changed, as `git blame` tells; {} when the text
    is not in the file or git cannot tell. Lines not committed yet count for none."""
    from mem.core.rules import edit_targets
    from mem.files.regular_files import open_regular
    from mem.files.worktree import git

    try:
        with open_regular(os.path.join(root, path)) as handle:
            data = handle.read(BLAMED_FILE_LIMIT + 1)
    except OSError:
        return {}
    if len(data) > BLAMED_FILE_LIMIT:
        return {}
    ranges = edit_targets.replaced_lines(data.decode("utf-8", "replace"), replaced)
    if not ranges:
        return {}
    lines = [f"-L{first},{last}" for first, last in ranges]
    done = git(root, "blame", "--porcelain", *lines, "--", path)
    if done is None or done.returncode != 0:
        return {}
    counts: dict[str, int] = {}
    for line in done.stdout.split(b"\n"):
        # A group's first line: its sha, its line in that commit, its line now, its size.
        parts = line.split(b" ")
        if len(parts) == 4 and parts[3].isdigit():
            sha = parts[0].decode("ascii", "replace")
            if _is_sha(sha) and sha.strip("0"):
                counts[sha] = counts.get(sha, 0) + int(parts[3])
    return counts


def _chunks(process: Stream, size: int) -> Generator[bytes, None, None]:
    pipe = process.stdout
    while chunk := pipe.read(size):
        yield chunk


def _read_ahead(process: Stream, size: int, ahead: int) -> Generator[bytes, None, None]:
    """The process's output in chunks, read by a thread up to `ahead` chunks before the
    caller takes them. A caller that stops early ends the process (git has no more to say
    to it) and the thread."""
    import queue
    import threading

    pipe = process.stdout
    chunks: queue.Queue[bytes] = queue.Queue(ahead)

    def drain() -> None:
        try:
            while chunk := pipe.read(size):
                chunks.put(chunk)
        finally:
            chunks.put(b"")

    reader = threading.Thread(target=drain, name="mem-git-log", daemon=True)
    reader.start()
    try:
        while chunk := chunks.get():
            yield chunk
    finally:
        if reader.is_alive():
            process.kill()
            while reader.is_alive():
                try:
                    chunks.get(timeout=0.1)  # frees the thread, were it waiting to put
                except queue.Empty:
                    pass
        reader.join()


def is_shallow(root: str) -> bool:
    gitdir = git_dir(root)
    return gitdir is not None and os.path.exists(os.path.join(_common_dir(gitdir), "shallow"))


def _is_sha(text: str) -> bool:
    """A full sha (SHA-1 or SHA-256), checked without `re`: the warm recall path."""
    return len(text) in (40, 64) and _HEX.issuperset(text)


def _common_dir(gitdir: str) -> str:
    text = _read(os.path.join(gitdir, "commondir"))
    return gitdir if text is None else os.path.normpath(os.path.join(gitdir, text.strip()))


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
