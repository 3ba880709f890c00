"""Commits as memories (docs/history.md): what reading a project's git history costs.

At the sizes of issue 34: a real repository of about 2k commits (BurntSushi/ripgrep,
Unlicense/MIT: a clone of --real PATH or $MEM_BENCH_HISTORY_REPO, by default the local
mirror at /work/.mirror/BurntSushi+ripgrep/repo), a real one of about 100k (git/git,
GPL-2.0, 81,966 commits: --large PATH or $MEM_BENCH_HISTORY_LARGE, by default the mirror
/work/.mirror/git+git/repo; no larger real history could be fetched here), generated ones
of 100k and 1M commits (`git fast-import`, seeded: messages of a 100-word vocabulary, the
adversarial case), and 1M commits whose messages are the large real one's, resampled
(seeded, whole messages: a real vocabulary at 1M). Nothing of the real ones is copied
here: clones and generated repositories are kept in the user's cache under mem-bench/ and
reused. Every repository holds one untracked note, so a recall without history ranks it.
It prints:

- first indexing (mem.index.history.sync into an empty index) against the floor: `git log`
  printing the same fields, each pair run back to back (goal: at most 2x), wall and CPU;
- a `recall --ranking bm25 --include-history` after one new commit against a warm one
  (goal: at most 1.2x);
- a warm recall with history on, HEAD unchanged, against one with it off (goal: 1.1x),
  for the bench's query and for words most of that history's commits hold;
- the commit tables' size per 100k commits.

Every ratio is the median of the ratios of runs made in turns, so the load of the shared
machine weighs on both sides alike. `--sizes 2k,100k,large` picks sizes (1m, 1m-real:
minutes, and about a gigabyte of repository and index the first time).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mem.core.rules import commits as commit_records  # noqa: E402
from mem.index import history, location  # noqa: E402

MEM = str(Path(sys.executable).parent / "mem")
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
WORDS = (
    "retry backoff limiter pool cache index parser token session hook brief prompt commit "
    "branch merge rebase schema migration worker queue timeout socket buffer encoder decoder "
    "client server request response header cookie auth token secret config setting default "
    "logging metrics trace span error warning deprecate remove add fix perf refactor docs test "
    "ci release version bump pin upgrade downgrade lock thread async await future promise"
).split()


# 1,024 files in 32 folders: trees of a real project's width (a flat folder of 1,000 files
# makes git's own diff of every commit 20x slower than a real history's).
AUTHOR = "Bench <bench@example.com>"
PATHS = [f"src/d{folder:02d}/f{name:02d}.py" for folder in range(32) for name in range(32)]


def cache_dir() -> Path:
    """Where generated and cloned repositories are kept between runs: the user's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    path = Path(base) / "mem-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def generated(count: int) -> Path:
    """A repository of `count` commits, each touching one of 1,024 files, with a subject and
    a body of a few lines drawn from a fixed vocabulary (seeded: the same every run)."""

    def message(rng: random.Random) -> bytes:
        subject = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
        lines = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12)))
            for _ in range(rng.randint(0, 4))
        ]
        return (subject + ("\n\n" + "\n".join(lines) if lines else "") + "\n").encode()

    return _imported(cache_dir() / f"history-{count}", count, message)


def resampled(count: int, source: Path) -> Path:
    """A repository of `count` commits whose messages are drawn (seeded) from the real
    history at source, whole, so that its terms are a real project's; each commit touches
    one of 1,024 files, as generated's do. Kept in the cache and reused."""
    path = cache_dir() / f"history-{count}-{source.name}"
    if (path / ".git" / "mem-bench-done").exists():
        return path
    listed = subprocess.run(
        ["git", "-C", str(source), "log", "-z", "--format=%B", "HEAD"],
        stdout=subprocess.PIPE,
        check=True,
    ).stdout
    messages = [message.strip() + b"\n" for message in listed.split(b"\0") if message.strip()]
    return _imported(path, count, lambda rng: messages[rng.randrange(len(messages))])


def _imported(path: Path, count: int, message: Callable[[random.Random], bytes]) -> Path:
    """The repository at `path` (kept in the cache and reused) of `count` commits written
    by git fast-import, each with `message(rng)` and one of the 1,024 files (seeded)."""
    if (path / ".git" / "mem-bench-done").exists():
        return path
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=GIT_ENV)
    rng = random.Random(34)
    importer = subprocess.Popen(
        ["git", "-C", str(path), "fast-import", "--quiet"], stdin=subprocess.PIPE, env=GIT_ENV
    )
    assert importer.stdin is not None
    write = importer.stdin.write
    start = 1_500_000_000
    for number in range(1, count + 1):
        text = message(rng)
        content = f"{number}\n".encode()
        parent = f"from :{number - 1}\n" if number > 1 else ""
        write(
            b"commit refs/heads/main\n"
            + f"mark :{number}\ncommitter {AUTHOR} {start + number * 60} +0000\n".encode()
            + f"data {len(text)}\n".encode()
            + text
            + parent.encode()
            + f"M 100644 inline {PATHS[rng.randrange(len(PATHS))]}\n".encode()
            + f"data {len(content)}\n".encode()
            + content
            + b"\n"
        )
    importer.stdin.close()
    if importer.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-f", "main"], check=True)
    _note(path)
    (path / ".git" / "mem-bench-done").write_text("", encoding="utf-8")
    return path


def _note(path: Path) -> None:
    """The one decision every benchmark repository holds, so that a recall without history
    still ranks a note by bm25 (untracked: it is no commit)."""
    (path / ".agents/memory").mkdir(parents=True, exist_ok=True)
    (path / ".agents/memory/decisions.md").write_text(
        "# Decisions\n\n### Retry with backoff\nThe limiter bans linear retries.\n",
        encoding="utf-8",
    )


def real(source: str) -> Path:
    """A work tree of the real repository: a clone of `source` (a bare mirror has none),
    made once in the cache."""
    given = Path(source.rstrip("/"))
    name = given.parent.name if given.name in ("repo", ".git") else given.name
    path = cache_dir() / name.removesuffix(".git").replace("+", "-")
    if not (path / ".git").exists():
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run(
            ["git", "clone", "-q", "--no-hardlinks", source, str(path)], check=True, env=GIT_ENV
        )
    return path


def cpu_seconds() -> float:
    """CPU time of this process and its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Timed:
    """A measured action: wall and CPU seconds (this process's and its children's)."""

    def __init__(self, action: object) -> None:
        cpu = cpu_seconds()
        began = time.perf_counter()
        action()  # type: ignore[operator]
        self.wall = time.perf_counter() - began
        self.cpu = cpu_seconds() - cpu


def floor(repo: Path) -> Timed:
    """`git log` printing the same fields to a pipe that is read whole."""
    return Timed(
        lambda: subprocess.run(
            ["git", "-C", str(repo), *commit_records.LOG_ARGS, "HEAD", "--"],
            stdout=subprocess.PIPE,
            check=True,
        )
    )


def first_indexing(repo: Path, path: Path) -> Timed:
    """History.sync into an empty index at path."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")  # as mem.index.connection opens an index
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(location.schema())
    problems: list[str | None] = []
    timed = Timed(lambda: problems.append(history.sync(conn, str(repo))))
    assert problems == [None], problems
    conn.close()
    return timed


def table_bytes(path: Path) -> tuple[int, int]:
    """The commits held and the bytes of their tables (dbstat after VACUUM)."""
    conn = sqlite3.connect(path, isolation_level=None)
    commits = conn.execute("SELECT commits FROM history").fetchone()[0]
    conn.execute("VACUUM")
    size = conn.execute(
        "SELECT sum(pgsize) FROM dbstat WHERE name IN ('history', 'commits', 'commit_paths',"
        " 'commit_paths_by_commit', 'commit_terms', 'commit_postings')"
        " OR name LIKE 'sqlite_autoindex_commit%'"
    ).fetchone()[0]
    conn.close()
    return commits, size


def recall_seconds(repo: Path, env: dict[str, str], query: str, *extra: str) -> float:
    began = time.perf_counter()
    subprocess.run(
        [MEM, "recall", query, "--ranking", "bm25", "-d", str(repo), *extra],
        stdout=subprocess.DEVNULL,
        check=True,
        env=env,
    )
    return time.perf_counter() - began


def recalls(repo: Path, scratch: Path, rounds: int, common: str) -> dict[str, list[float]]:
    """Rounds of: a warm recall without history, one with it (the bench's query, and then
    `common`, words most of the history's commits hold), a new commit, the recall after
    it; HEAD is set back where it was at the end."""
    env = {**GIT_ENV, "MEM_CACHE_DIR": str(scratch / "cache")}
    recall_seconds(repo, env, QUERY, "--include-history")  # the first indexing, and bm25's
    times: dict[str, list[float]] = {"off": [], "on": [], "common off": [], "common on": []}
    times["after"] = []
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        for number in range(rounds):
            times["off"].append(recall_seconds(repo, env, QUERY))
            times["on"].append(recall_seconds(repo, env, QUERY, "--include-history"))
            times["common off"].append(recall_seconds(repo, env, common))
            times["common on"].append(recall_seconds(repo, env, common, "--include-history"))
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(repo),
                    "commit",
                    "-q",
                    "--allow-empty",
                    "-m",
                    f"bench retry decision {number}\n\nWhy: the limiter",
                ],
                check=True,
                env=GIT_ENV,
            )
            times["after"].append(recall_seconds(repo, env, QUERY, "--include-history"))
    finally:
        subprocess.run(["git", "-C", str(repo), "reset", "-q", "--soft", base], check=True)
    return times


def ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median of the ratios of runs made in turns."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:,.0f} ms"


def report(name: str, repo: Path, runs: int, rounds: int, common: str) -> None:
    with tempfile.TemporaryDirectory(prefix="mem-bench-history-") as scratch_name:
        scratch = Path(scratch_name)
        floors: list[Timed] = []
        firsts: list[Timed] = []
        for _ in range(runs):  # in turns: the floor, then mem's first indexing
            floors.append(floor(repo))
            firsts.append(first_indexing(repo, scratch / "first.db"))
        commits, size = table_bytes(scratch / "first.db")
        times = recalls(repo, scratch, rounds, common)
    per_100k = size * 100_000 / max(commits, 1) / 2**20
    first_wall = [timed.wall for timed in firsts]
    floor_wall = [timed.wall for timed in floors]
    print(f"{name}: {commits:,} commits kept")
    print(
        f"  first indexing {ms(first_wall)}, floor `git log` {ms(floor_wall)}:"
        f" {ratio(first_wall, floor_wall):.2f}x (goal <= 2x; CPU"
        f" {ratio([t.cpu for t in firsts], [t.cpu for t in floors]):.2f}x; median of {runs})"
    )
    print(
        f"  recall after one new commit {ms(times['after'])}, warm {ms(times['on'])}:"
        f" {ratio(times['after'], times['on']):.2f}x (goal <= 1.2x; median of {rounds})"
    )
    print(
        f"  warm recall with history {ms(times['on'])}, without {ms(times['off'])}:"
        f" {ratio(times['on'], times['off']):.2f}x (goal <= 1.1x); {common!r}"
        f" {ms(times['common on'])}, {ms(times['common off'])}:"
        f" {ratio(times['common on'], times['common off']):.2f}x"
    )
    print(f"  commit tables {size / 2**20:,.1f} MiB: {per_100k:.1f} MiB per 100k commits")


# Runs of first indexing and rounds of recalls per size: fewer where one takes minutes.
SIZES = {"2k": (7, 21), "100k": (3, 15), "1m": (1, 9), "large": (3, 15), "1m-real": (1, 9)}
DEFAULT_REAL = "/work/.mirror/BurntSushi+ripgrep/repo"
DEFAULT_LARGE = "/work/.mirror/git+git/repo"
QUERY = "retry limiter"
# Per kind of history, words most of its commits hold: a common query's worst case.
COMMON = {"2k": "fix", "large": "merge branch", "1m-real": "merge branch"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--real", default=os.environ.get("MEM_BENCH_HISTORY_REPO", DEFAULT_REAL))
    parser.add_argument("--large", default=os.environ.get("MEM_BENCH_HISTORY_LARGE", DEFAULT_LARGE))
    parser.add_argument("--sizes", default="2k,100k,1m,large,1m-real")
    options = parser.parse_args()
    for size in options.sizes.lower().split(","):
        runs, rounds = SIZES[size]
        common = COMMON.get(size, QUERY)
        if size in ("2k", "large", "1m-real"):
            source = options.real if size == "2k" else options.large
            if not Path(source).exists():
                print(f"{size}: skipped ({source} is missing; give --real or --large PATH)")
                continue
            repo = real(source)
            _note(repo)
            if size == "1m-real":
                report(
                    f"1,000,000 commits whose messages are {repo.name}'s, resampled",
                    resampled(1_000_000, repo),
                    runs,
                    rounds,
                    common,
                )
                continue
            report(f"real ({repo.name}, a clone of {source})", repo, runs, rounds, common)
        else:
            count = 100_000 if size == "100k" else 1_000_000
            report(f"generated ({count:,} commits)", generated(count), runs, rounds, common)


if __name__ == "__main__":
    main()
