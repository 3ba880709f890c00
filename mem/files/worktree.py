"""Running git read-only, and what a work tree is busy with (its branch, its changed paths).

`git` itself is run, never a reimplementation of its formats: no optional locks, no
prompts, and none of the caller's GIT_DIR-style variables, which would silently point the
question at another repository. mem.files.gitrepo asks its questions through `git` too.
This module imports no more than that, since a session-start hook asks it every time.
"""

from __future__ import annotations

import os
from typing import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import IO

# Variables that redirect git away from the directory it is asked about.
_REDIRECTING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
)


def git(directory: str, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    """`git -C directory args...`, read-only; None when git cannot be run there at all."""
    import subprocess  # not for git_stream's readers: see Stream

    try:
        return subprocess.run(
            ["git", "-C", directory, *args], env=_env(), capture_output=True, check=False
        )
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None


def git_stream(directory: str, *args: str) -> Stream | None:
    """`git -C directory args...` as git() runs it, its stdout a pipe read while git writes
    (a long `git log` is parsed as it comes), its stderr discarded; None when git cannot be
    run there at all. The caller waits for it (`with`)."""
    argv = ["git", "-C", directory, *args]
    if not hasattr(os, "posix_spawnp"):  # Windows
        import subprocess

        try:
            process = subprocess.Popen(
                argv, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return None
        assert process.stdout is not None
        return Stream(process.stdout, process)
    read, write = os.pipe()  # neither end is inherited but as git's stdout
    try:
        pid = os.posix_spawnp(
            "git",
            argv,
            _env(),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        os.close(read)
        return None
    finally:
        os.close(write)
    return Stream(open(read, "rb"), pid)


class Stream:
    """A git process that git_stream started: its output, read as it comes; its exit
    status once waited for. Where the OS can, it is spawned without the subprocess module:
    a recall after a commit runs one `git log`, and loading subprocess would cost that
    recall more than the process does."""

    __slots__ = ("stdout", "process", "returncode")

    def __init__(self, stdout: IO[bytes], process: int | subprocess.Popen[bytes]) -> None:
        self.stdout = stdout
        self.process = process  # a pid, or the Popen of a system without posix_spawn
        self.returncode: int | None = None

    def kill(self) -> None:
        if isinstance(self.process, int):
            import signal

            os.kill(self.process, signal.SIGKILL)
        else:
            self.process.kill()

    def wait(self) -> int:
        if self.returncode is None:
            if isinstance(self.process, int):
                _, status = os.waitpid(self.process, 0)
                self.returncode = os.waitstatus_to_exitcode(status)
            else:
                self.returncode = self.process.wait()
        return self.returncode

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stdout.close()
        self.wait()


def _env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _REDIRECTING}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


class WorkInProgress(NamedTuple):
    """What the work tree is busy with: its branch and the paths it touched lately."""

    branch: str | None
    changed: tuple[str, ...]  # working tree first (git's order), then the last commits'


def work_in_progress(directory: str, commits: int = 5) -> WorkInProgress | None:
    """The branch, the changed paths of the work tree and of the last commits; None outside git.

    Two git processes: `status` (branch and working-tree changes in one answer) and `log`
    (the paths of the last commits).
    """
    status = git(directory, "status", "--porcelain=v1", "-z", "--branch", "--untracked-files=all")
    if status is None or status.returncode != 0:
        return None
    branch = None
    changed: list[str] = []
    skip_next = False
    for field in status.stdout.decode("utf-8", errors="replace").split("\0"):
        if skip_next:  # the source path of a rename or copy
            skip_next = False
        elif field.startswith("## "):
            name = field[3:].split("...", 1)[0]
            if name.startswith("No commits yet on "):
                branch = name[len("No commits yet on ") :]
            elif not name.startswith("HEAD (no branch)"):
                branch = name
        elif len(field) > 3:
            changed.append(field[3:])
            skip_next = field[0] in "RC"
    log = git(directory, "log", f"-n{commits}", "--no-color", "--name-only", "--format=")
    if log is not None and log.returncode == 0:
        text = log.stdout.decode("utf-8", errors="replace")
        changed += [line for line in text.split("\n") if line]
    return WorkInProgress(branch, tuple(dict.fromkeys(changed)))


def files_named(directory: str, name: str) -> int | None:
    """How many files git tracks under `directory` with this file name, in any folder; None
    outside git."""
    escaped = "".join(f"\\{c}" if c in "*?[]\\" else c for c in name)
    done = git(directory, "ls-files", "-z", "--", f":(glob)**/{escaped}")
    if done is None or done.returncode != 0:
        return None
    return done.stdout.count(b"\0")
