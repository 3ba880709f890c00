"""Commits as memories (docs/history.md): parsing one `git log` stream, pure.

mem.files.history runs `git log` with LOG_ARGS; parse_log turns its bytes into commits, a
batch at a time as git writes them (last_start says where a batch may end).
Each commit starts with RECORD (never in a sha, and a message that holds it cannot fake a
start: a start is RECORD, then a sha, NUL and digits), then its sha, commit time, side and
parents, NUL-separated, its raw message and NUL; then, after a newline, the paths it
touched, each ending in NUL (`--name-only -z`; a merge lists none, as `git log` shows no
diff for one). The side is `<` for a commit of the left side of `git log old...new`
(reachable from old only), `>` for every other.
"""

from __future__ import annotations

from typing import NamedTuple  # a sync that read git only: not on the warm recall path

RECORD = b"\x1e"
LOG_ARGS = (
    "log",
    "--reverse",  # oldest first: the order the index writes them in
    "-z",
    "--no-color",
    "--no-renames",
    "--name-only",
    "--left-right",  # old...new: which side each commit is on
    "--format=%x1e%H%x00%ct%x00%m%x00%P%x00%B",
)
START = rb"\x1e(?=[0-9a-f]{40,64}\x00[0-9]+\x00)"  # a pattern: `re` only when parsing


class Commit(NamedTuple):
    sha: str
    time: int  # committer time, seconds since the epoch
    parents: tuple[str, ...]
    message: str  # the raw message, trailers included, without its final newline
    paths: tuple[str, ...]
    left: bool = False  # of old...new's left side: reachable from old, not from new

    @property
    def subject(self) -> str:
        return subject(self.message)


def subject(message: str) -> str:
    """The first paragraph as one line, as git's %s makes it."""
    return " ".join(message.strip().split("\n\n", 1)[0].split())


def body(message: str) -> str:
    """What follows the subject's paragraph: the body and trailers."""
    parts = message.strip().split("\n\n", 1)
    return parts[1].strip() if len(parts) > 1 else ""


def parse_log(data: bytes) -> list[Commit]:
    """The commits of a `git log` stream made with LOG_ARGS, in its order."""
    import re  # a sync that reads git only: a warm recall does not load it

    found = []
    for chunk in re.split(START, data):
        if not chunk:
            continue
        sha, time, side, parents, rest = chunk.split(b"\0", 4)
        message, _, tail = rest.partition(b"\0")
        # One decoding of them all: no path holds a NUL, so none is decoded differently.
        names = _text(tail.removeprefix(b"\n")).split("\0")
        if not names[-1]:
            names.pop()  # after the NUL that ends the last path
        paths = tuple(dict.fromkeys(names)) if len(names) > 1 else tuple(names)
        found.append(
            Commit(
                sha.decode("ascii"),
                int(time),
                tuple(parents.decode("ascii").split()),
                _text(message).rstrip("\n"),
                paths,
                side == b"<",
            )
        )
    return found


def last_start(data: bytes) -> int:
    """Where the last commit that starts in data starts (0 when only the first does, or
    none): the bytes before it hold whole commits, whatever the bytes after it."""
    import re

    start = re.compile(START)
    position = data.rfind(RECORD)
    while position > 0:
        if start.match(data, position):
            return position
        position = data.rfind(RECORD, 0, position)
    return 0


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def is_left_out(commit: Commit) -> bool:
    """A merge whose message is only its subject ("Merge branch 'x'"): it says nothing its
    parents do not, and names branches that match every query about them. A merge with a
    body (a pull request's title and description) is kept, as every other commit is."""
    return len(commit.parents) > 1 and not body(commit.message)


def record_text(commit: Commit) -> str:
    """What the bm25 ranking reads of a commit: subject, body and trailers."""
    return commit.message.strip()
