#!/usr/bin/env python3
"""Benchmark for the portfolio: `recall --scope all` over 1,000 projects x 1,000 entries.

Run with the venv's python (the in-process figure imports mem from the same interpreter):
    python bench/portfolio.py [--projects 1000] [--entries 1000] [--repeat 9] [--keep DIR]
    python bench/portfolio.py --generate-only DIR [--projects 20 --entries 100]
    python bench/portfolio.py --keep DIR --cache CACHE   # CACHE already synced: no first sync
Generating 1M entries takes a while, so the portfolio is kept (by default in the temp
directory, keyed by its size) and reused by the next run; the cache is fresh unless
--cache names one (then the first sync is not measured, and the cache is kept).
Stdlib only; `mem`'s API only through mem_api.py. A report, not a test: it exits 0.
`make bench-compare` (compare.py) sets the figures against another commit's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import pty
import random
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

MEM_NOW = "2026-10-18T09:30:00.000Z"
OUT_DIR = Path(__file__).resolve().parent / "out"
NOTE_FILES = [
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".bmad/memory/patterns.md",
    ".agents/memory/decisions.md",
    ".agents/memory/lessons.md",
    ".agents/memory/patterns.md",
]
JOURNAL = ".bmad/memory/journal.ndjson"
NOTE_SHARE = 0.7  # of each project's entries; the rest are journal events
FUNCTION_WORDS = "the to for in on with when and of is not from by after".split()
TECH_WORDS = """postgres cache api test build deploy config docker migration schema index query
auth token session retry timeout logging error service client server connection pooling pipeline
release branch merge review lint worker queue kafka redis nginx kubernetes helm terraform backup
restore replica shard transaction lock deadlock router middleware controller template component
state store bundle webpack typescript python rust golang node fixture mock snapshot coverage
benchmark trace metric alert incident rollback canary feature flag rollout sqlite tokenizer
ranking search recall journal markdown heading parser pgbouncer""".split()
AGENTS = ["forge", "scout", "atlas", "quill", "sentinel", "architect", "dev"]


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words = FUNCTION_WORDS + TECH_WORDS
    seen = set(words)
    onsets = "b c d f g k l m n p r s t v z br kr st tr pl gl".split()
    while len(words) < size:
        word = "".join(
            rng.choice(onsets) + rng.choice("aeiou") + rng.choice(["", "n", "r", "x", "l"])
            for _ in range(rng.randint(2, 3))
        )
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_weights(n: int, s: float = 1.07) -> list[float]:
    total, cum = 0.0, []
    for rank in range(1, n + 1):
        total += 1 / rank**s
        cum.append(total)
    return cum


def generate(root: Path, projects: int, entries: int) -> list[str]:
    """Projects p0000... under root, a brain registering them; returns the query classes."""
    rng = random.Random(42)
    vocab = vocabulary(rng)
    cum = zipf_weights(len(vocab))
    notes = int(entries * NOTE_SHARE)
    events = entries - notes
    brain = root / "_brain"
    (brain / "projects").mkdir(parents=True, exist_ok=True)
    (brain / "lessons.md").write_text(
        "# Lessons\n\n### Pool postgres connections\nUse pgbouncer in front of postgres.\n"
    )
    for number in range(projects):
        project = root / f"p{number:04d}"
        local = random.Random(number)
        per_file = [notes // len(NOTE_FILES)] * len(NOTE_FILES)
        per_file[0] += notes - sum(per_file)
        for relative, count in zip(NOTE_FILES, per_file, strict=True):
            out = ["# Notes\n"]
            for section in range(count):
                words = local.choices(vocab, cum_weights=cum, k=local.randint(8, 40))
                out.append(f"\n### {' '.join(words[:4])} {number}-{section}\n")
                out.append(" ".join(words[4:]) + ".\n")
            path = project / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(out), encoding="utf-8")
        lines = []
        for event in range(events):
            ts = f"2026-10-{1 + event * 16 // max(events, 1):02d}T08:{event % 60:02d}:00.000Z"
            agent = local.choice(AGENTS)
            task = " ".join(local.choices(vocab, cum_weights=cum, k=local.randint(3, 9)))
            ident = hashlib.sha256(f"{ts}\0{agent}\0{task}".encode()).hexdigest()[:12]
            record = {
                "ts": ts,
                "agent": agent,
                "task": task,
                "outcome": "success",
                "signals": {},
                "id": ident,
            }
            lines.append(json.dumps(record, separators=(",", ":")) + "\n")
        (project / JOURNAL).write_text("".join(lines), encoding="utf-8")
        entry = f'path: "{project.resolve()}"\nname: "p{number:04d}"'
        (brain / "projects" / f"{number:08x}.yaml").write_text(entry, encoding="utf-8")
    # The tail of the vocabulary is rare; the middle is mid-frequency.
    return [
        f"{vocab[len(vocab) - 7]}",  # rare id
        f"{vocab[300]} {vocab[420]}",  # 2-3 mid-frequency words
        "the",
        f"the postgres {vocab[250]} {vocab[900]} {vocab[4000]}",  # 5-word mix
    ]


CPU: list[float] = []  # user + system ms of every timed process, in order


def ms_of(cmd: list[str], env: dict[str, str]) -> float:
    """Wall ms of a whole process (its CPU ms go to CPU: the machine may be shared)."""
    start = time.perf_counter()
    child = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    CPU.append((usage.ru_utime + usage.ru_stime) * 1000)
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{child.stderr.read() if child.stderr else ''}")
    return elapsed


def timed(cmd: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of `repeat` runs."""
    walls = [ms_of(cmd, env) for _ in range(repeat)]
    return median(walls), median(CPU[-repeat:])


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def first_sync(mem: str, project: Path, env: dict[str, str]) -> dict[str, float | int]:
    """`mem index path --portfolio` on an empty cache, stderr on a terminal: time, RSS, progress."""
    controller, terminal = pty.openpty()
    start = time.perf_counter()
    child = subprocess.Popen(
        [mem, "index", "path", "--portfolio", "-d", str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            shown += chunk
        elif child.poll() is not None:
            break
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    os.close(controller)
    if status != 0:
        sys.exit(f"first sync failed: {shown.decode(errors='replace')}")
    updates = shown.count(b"\r")
    return {
        "seconds": elapsed,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "rss_mib": usage.ru_maxrss / 1024,
        "progress_updates": updates,
    }


class Freshness(NamedTuple):
    """Medians of the in-process check and of its floor (ms; CPU of this process only)."""

    check: float
    check_cpu: float
    floor: float  # as many bare `stat` calls, in one process
    floor_cpu: float
    stats: int


def freshness_samples(
    check: Callable[[], None], paths: list[str], rounds: int
) -> dict[str, list[tuple[float, float]]]:
    """(wall ms, CPU ms) of `rounds` checks (mem_api.portfolio_check's) and as many floors,
    a bare `stat` of every path the check watches; they take turns, so load hits both alike."""

    def floor() -> None:
        for path in paths:
            os.stat(path)

    samples: dict[str, list[tuple[float, float]]] = {"check": [], "floor": []}
    for _ in range(rounds):
        for name, step in (("check", check), ("floor", floor)):
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            samples[name].append(
                ((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)
            )
    return samples


def freshness_child(brain: str, rounds: int) -> None:
    import mem_api

    check, paths = mem_api.portfolio_check(brain), mem_api.watched_paths(brain)
    print(json.dumps([freshness_samples(check, paths, rounds), len(paths)]))


def freshness(brain: Path, env: dict[str, str], rounds: int = 30) -> Freshness:
    """In-process, in a child: open the portfolio index and check every project, nothing
    changed; beside the check's floor."""
    done = subprocess.run(
        [sys.executable, __file__, "--freshness-child", str(brain), str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"freshness check failed:\n{done.stderr}")
    samples, count = json.loads(done.stdout)
    check, floor = samples["check"], samples["floor"]
    return Freshness(
        median([wall for wall, _ in check]),
        median([cpu for _, cpu in check]),
        median([wall for wall, _ in floor]),
        median([cpu for _, cpu in floor]),
        count,
    )


KEEP_DIR = Path(tempfile.gettempdir())


def kept_portfolio(projects: int, entries: int, keep: str | None = None) -> tuple[Path, list[str]]:
    """The portfolio generated once (under `keep`, else in the temp directory keyed by its
    size) and reused by later runs, and its query classes."""
    size = f"{projects}x{entries}"
    root = Path(keep or KEEP_DIR / f"mem-bench-portfolio-{size}")
    marker = root / "queries.json"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        start = time.perf_counter()
        queries = generate(root, projects, entries)
        marker.write_text(json.dumps(queries))
        print(f"generated {size} in {time.perf_counter() - start:.0f} s under {root}")
    return root, json.loads(marker.read_text())


def portfolio_env(root: Path, cache: Path) -> dict[str, str]:
    """The environment of a run over the portfolio under root, with its cache."""
    return {
        **os.environ,
        "MEM_CACHE_DIR": str(cache),
        "MEM_NOW": MEM_NOW,
        "TZ": "UTC",
        "BMAD_PLUS_BRAIN": str(root / "_brain"),
        "HOME": str(cache / "home"),
    }


def write_cmd(mem: str, root: Path, round_: int, projects: int, writer: str = "") -> list[str]:
    """The `mem write` of a round, in a different project each round (a writer's own task)."""
    project = root / f"p{(round_ * 37) % projects:04d}"
    task = f"bench write {round_} {writer}".rstrip()
    return [mem, "write", "-d", str(project), "--agent", "bench", "--task", task]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--keep", help="where the generated portfolio is kept and reused")
    parser.add_argument("--generate-only", metavar="DIR")
    parser.add_argument("--cache", help="an already synced cache directory to reuse (and keep)")
    parser.add_argument("--mem", default=str(Path(sys.executable).with_name("mem")))
    parser.add_argument("--freshness-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.freshness_child:
        brain, rounds = args.freshness_child
        return freshness_child(brain, int(rounds))
    if args.generate_only:
        queries = generate(Path(args.generate_only), args.projects, args.entries)
        (Path(args.generate_only) / "queries.json").write_text(json.dumps(queries))
        print(json.dumps(queries))
        return
    size = f"{args.projects}x{args.entries}"
    root, queries = kept_portfolio(args.projects, args.entries, args.keep)
    brain, project = root / "_brain", root / "p0000"
    cache = Path(args.cache or tempfile.mkdtemp(prefix="mem-bench-cache-"))
    env = portfolio_env(root, cache)
    try:
        floor, floor_cpu = timed([sys.executable, "-c", "pass"], env, args.repeat)
        synced = None if args.cache else first_sync(args.mem, project, env)
        recall = [args.mem, "recall", "--scope", "all", "-d", str(project)]
        ms_of([*recall, queries[0]], env)
        warm = {query: timed([*recall, query], env, args.repeat) for query in queries}
        fresh = freshness(brain, env)
        after, after_cpu = [], []
        for round_ in range(args.repeat):
            ms_of(write_cmd(args.mem, root, round_, args.projects), env)
            after.append(ms_of([*recall, queries[1]], env))
            after_cpu.append(CPU[-1])
    finally:
        if not args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    after_ms, warm_mid = median(after), warm[queries[1]][0]
    rows = [
        ("python -c pass (floor)", f"{floor:.0f} ms", f"{floor_cpu:.0f} ms"),
        *[
            (f'warm recall --scope all "{query[:30]}"', f"{wall:.0f} ms", f"{cpu:.0f} ms")
            for query, (wall, cpu) in warm.items()
        ],
        (
            "freshness check, nothing changed (in-process)",
            f"{fresh.check:.1f} ms",
            f"{fresh.check_cpu:.1f} ms",
        ),
        (
            f"  floor: {fresh.stats:,} bare stat calls (in-process)",
            f"{fresh.floor:.1f} ms",
            f"{fresh.floor_cpu:.1f} ms",
        ),
        (
            f"next recall after one project's mem write (warm {warm_mid:.0f} ms)",
            f"{after_ms:.0f} ms",
            f"{median(after_cpu):.0f} ms",
        ),
    ]
    if synced is not None:
        rows += [
            ("first portfolio sync", f"{synced['seconds']:.1f} s", f"{synced['cpu_s']:.1f} s"),
            ("first sync peak RSS", f"{synced['rss_mib']:.0f} MiB", ""),
            ("first sync progress updates on a terminal", str(synced["progress_updates"]), ""),
        ]
    print(
        f"\nportfolio {size} ({args.projects * args.entries:,} entries),"
        f" python {platform.python_version()}, medians of {args.repeat},"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    width = max(len(row[0]) for row in rows)
    print(f"  {'':<{width}}  {'wall':>9}  {'CPU':>9}")
    for label, value, cpu in rows:
        print(f"  {label:<{width}}  {value:>9}  {cpu:>9}")
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / "portfolio.json").write_text(
        json.dumps(
            {
                "size": size,
                "floor_ms": floor,
                "warm_ms": warm,
                "fresh_ms": fresh.check,
                "fresh_cpu_ms": fresh.check_cpu,
                "stat_floor_ms": fresh.floor,
                "stat_floor_cpu_ms": fresh.floor_cpu,
                "stat_calls": fresh.stats,
                "after_write_ms": after,
                "first_sync": synced,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
