"""Commits as memories (docs/history.md): what reading a project's git history costs.

For a real repository of about 2k commits (python-attrs/attrs, MIT; a local clone of it,
given with --real PATH or found at $MEM_BENCH_ATTRS) and a generated one of 100k commits
(`git fast-import`, kept in the temp directory and reused), it prints:

- first indexing (mem.index.history.sync into an empty index) against the floor: `git log`
  printing the same fields (goal: at most 2x);
- a `recall --ranking bm25 --include-history` after one new commit against a warm one
  (goal: at most 1.2x);
- a warm recall with history on, HEAD unchanged, against one with it off (goal: 1.1x);
- the commit tables' size per 100k commits.

`--commits N` changes the generated repository's size (1,000,000: `--commits 1000000`).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mem.core import commits as commit_records  # noqa: E402
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
    path = cache_dir() / f"history-{count}"
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
        subject = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
        lines = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12)))
            for _ in range(rng.randint(0, 4))
        ]
        message = (subject + ("\n\n" + "\n".join(lines) if lines else "") + "\n").encode()
        content = f"{number}\n".encode()
        when = start + number * 60
        parent = f"from :{number - 1}\n" if number > 1 else ""
        write(
            b"commit refs/heads/main\n"
            + f"mark :{number}\ncommitter Bench <bench@example.com> {when} +0000\n".encode()
            + f"data {len(message)}\n".encode()
            + message
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
    (path / ".agents/memory").mkdir(parents=True)
    (path / ".agents/memory/decisions.md").write_text(
        "# Decisions\n\n### Retry with backoff\nThe limiter bans linear retries.\n",
        encoding="utf-8",
    )
    (path / ".git" / "mem-bench-done").write_text("", encoding="utf-8")
    return path


def best_of(runs: int, action: object) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - began)
    return min(times)


def floor(repo: Path) -> float:
    """`git log` printing the same fields to a pipe that is read whole."""
    return best_of(
        3,
        lambda: subprocess.run(
            ["git", "-C", str(repo), *commit_records.LOG_ARGS, "HEAD", "--"],
            stdout=subprocess.PIPE,
            check=True,
        ),
    )


def first_indexing(repo: Path, scratch: Path) -> tuple[float, int, int]:
    """Seconds to index the history into an empty index; its commits and their bytes."""
    best = float("inf")
    size = commits = 0
    for run in range(3):
        path = scratch / f"first-{run}.db"
        conn = sqlite3.connect(path, isolation_level=None)
        conn.executescript(location.schema())
        began = time.perf_counter()
        problem = history.sync(conn, str(repo))
        best = min(best, time.perf_counter() - began)
        assert problem is None, problem
        commits = conn.execute("SELECT commits FROM history").fetchone()[0]
        conn.execute("VACUUM")
        size = sum(
            row[0]
            for row in conn.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name IN ('history', 'commits',"
                " 'commit_paths', 'commit_paths_by_commit', 'commit_postings')"
                " OR name LIKE 'sqlite_autoindex_commit%'"
            )
        )
        conn.close()
    return best, commits, size


def recall_seconds(repo: Path, env: dict[str, str], *extra: str) -> float:
    began = time.perf_counter()
    subprocess.run(
        [MEM, "recall", "retry limiter", "--ranking", "bm25", "-d", str(repo), *extra],
        stdout=subprocess.DEVNULL,
        check=True,
        env=env,
    )
    return time.perf_counter() - began


def recalls(repo: Path, scratch: Path) -> dict[str, float]:
    env = {**GIT_ENV, "MEM_CACHE_DIR": str(scratch / "cache")}
    recall_seconds(repo, env, "--include-history")  # the first indexing, and bm25's
    off = []
    on = []
    for _ in range(9):  # interleaved, so both see the same machine
        off.append(recall_seconds(repo, env))
        on.append(recall_seconds(repo, env, "--include-history"))
    after = []
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        for number in range(5):
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
            after.append(recall_seconds(repo, env, "--include-history"))
    finally:
        subprocess.run(["git", "-C", str(repo), "reset", "-q", "--soft", base], check=True)
    return {
        "off": statistics.median(off),
        "on": statistics.median(on),
        "after": statistics.median(after),
    }


def report(name: str, repo: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="mem-bench-history-") as scratch_name:
        scratch = Path(scratch_name)
        floor_s = floor(repo)
        first_s, commits, size = first_indexing(repo, scratch)
        times = recalls(repo, scratch)
    per_100k = size * 100_000 / max(commits, 1) / 2**20
    print(f"{name}: {commits:,} commits")
    print(
        f"  first indexing {first_s * 1000:,.0f} ms, floor `git log` {floor_s * 1000:,.0f} ms:"
        f" {first_s / floor_s:.2f}x (goal <= 2x)"
    )
    print(
        f"  recall after one new commit {times['after'] * 1000:.0f} ms, warm"
        f" {times['on'] * 1000:.0f} ms: {times['after'] / times['on']:.2f}x (goal <= 1.2x)"
    )
    print(
        f"  warm recall with history {times['on'] * 1000:.0f} ms, without"
        f" {times['off'] * 1000:.0f} ms: {times['on'] / times['off']:.2f}x (goal <= 1.1x)"
    )
    print(f"  commit tables {size / 2**20:.1f} MiB: {per_100k:.1f} MiB per 100k commits")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--real", default=os.environ.get("MEM_BENCH_ATTRS"))
    parser.add_argument("--commits", type=int, default=100_000)
    options = parser.parse_args()
    if options.real and Path(options.real, ".git").exists():
        report(f"real ({options.real})", Path(options.real))
    else:
        print("real repository: skipped (give --real PATH to a clone of python-attrs/attrs)")
    report(f"generated ({options.commits:,} commits)", generated(options.commits))


if __name__ == "__main__":
    main()
