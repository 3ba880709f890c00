#!/usr/bin/env python3
"""`make bench-compare BASE=<commit>`: the bench classes for BASE and for the working tree,
interleaved in one run, and the ratio of each class beside its limit and the run's floors.

Run with the working tree's venv python (its `mem` is the tree's side):
    python bench/compare.py --base COMMIT [--sizes 10000,200000] [--repeat 21] [--rounds 60]
        [--only sync,recall,write,portfolio,mcp] [--quick]

BASE gets its own copy of the code (`git worktree add --detach` under the temp directory,
with its own venv installed from that tree; both are reused while the commit is the same).
Both trees are byte-compiled. The two sides take turns (BASE, tree, then tree, BASE, ...),
each with its own MEM_CACHE_DIR, over the same generated projects (kept in the temp
directory and reused, as run.py's and portfolio.py's generators keep them). Whole-process
classes run each side's `mem` console script; in-process classes run a child of each
side's venv python that calls `mem` through mem_api.py (the one place to follow a move).

A class's ratio is the median, over its turns, of tree / BASE of the two samples taken one
after the other: the load they ran under cancels in it.
The guard (issue 22): every whole-process class within 10 % of BASE (ratio <= 1.10) and
every in-process class within 25 % (<= 1.25). A report, not a test: it exits 0, and its last
line says whether the guard holds. Progress goes to stderr; the table to stdout and to
bench/out/compare.md, every sample to bench/out/compare.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import portfolio  # noqa: E402
import run  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LIMITS = {"process": 1.10, "in process": 1.25}
GROUPS = ("sync", "recall", "write", "portfolio", "mcp")
QUICK = {"sizes": "10000", "repeat": 9, "rounds": 30, "calls": 100, "projects": 100}


class Side(NamedTuple):
    name: str  # BASE or tree
    commit: str  # what its checkout is at (the tree's may have uncommitted changes too)
    source: Path  # the checkout its venv runs
    python: str
    mem: str
    caches: Path  # one MEM_CACHE_DIR per project under it

    def cache(self, project: str) -> Path:
        return self.caches / project


class Row(NamedTuple):
    label: str
    kind: str  # "process", "in process" or "info" (figures without a limit)
    taken: Taken
    floor: str = ""


started = time.perf_counter()
python_floor: list[float] = []  # `python -c pass`, one a round of every whole-process class


def progress(text: str) -> None:
    print(f"[{time.perf_counter() - started:5.0f} s] {text}", file=sys.stderr, flush=True)


def turns(sides: tuple[Side, Side], round_: int) -> tuple[Side, Side]:
    """BASE first in even rounds, the tree first in odd ones: neither always goes first."""
    return sides if round_ % 2 == 0 else (sides[1], sides[0])


# ---------------------------------------------------------------- the two sides


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def base_side(commit: str, caches: Path) -> Side:
    """BASE's worktree and venv under the temp directory, made once per commit."""
    sha = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    source = Path(tempfile.gettempdir()) / f"mem-bench-base-{sha[:12]}"
    if not (source / ".git").exists():
        progress(f"BASE {sha[:12]}: git worktree add --detach {source}")
        git("worktree", "prune")
        git("worktree", "add", "--detach", str(source), sha)
    if git("rev-parse", "HEAD", cwd=source) != sha:
        sys.exit(f"{source} is not at {sha}: remove it (git worktree remove --force {source})")
    venv, marker = source / ".venv", source / ".venv" / ".installed"
    if not marker.exists():
        progress(f"BASE {sha[:12]}: installing its venv (about a minute)")
        # The interpreter the tree's venv was made from, so the two sides differ in mem only.
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        subprocess.run([Path(sys.base_prefix) / "bin" / version, "-m", "venv", venv], check=True)
        # The extras `make` gives the tree's venv: with fewer packages in site-packages, BASE's
        # warm recall ran 0.4 % fewer instructions (callgrind) with the same mem.
        pip = [str(venv / "bin" / "pip"), "install", "--quiet"]
        installed = subprocess.run(
            [*pip, "-e", ".[test]", "--config-settings", "editable_mode=compat"],
            cwd=source,
            capture_output=True,
            text=True,
        )
        if installed.returncode != 0:
            sys.exit(f"BASE's venv: pip install failed:\n{installed.stdout}{installed.stderr}")
        marker.touch()
    python = str(venv / "bin" / "python")
    return Side("BASE", sha, source, python, str(venv / "bin" / "mem"), caches / "base")


def tree_side(caches: Path) -> Side:
    python, mem = sys.executable, str(Path(sys.executable).with_name("mem"))
    return Side("tree", git("rev-parse", "HEAD"), REPO, python, mem, caches / "tree")


def ready(side: Side) -> None:
    """Byte-compile the side's tree (as pip does on a real install) and check that its venv
    imports `mem` from that tree."""
    subprocess.run([side.python, "-m", "compileall", "-q", "mem"], cwd=side.source, check=True)
    where = subprocess.run(
        [side.python, "-c", "import mem; print(mem.__file__)"],
        cwd=tempfile.gettempdir(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(where).resolve().is_relative_to(side.source.resolve()):
        sys.exit(f"{side.name}: {side.python} imports mem from {where}, not {side.source}")
    if not os.path.exists(side.mem):
        sys.exit(f"{side.name}: no mem executable at {side.mem}")


def describe(side: Side) -> str:
    head = git("log", "-1", "--format=%h %s", cwd=side.source)
    head = head if len(head) <= 72 else head[:71] + "…"
    dirty = git(
        "status", "--porcelain", "--", "mem", "migrations", "pyproject.toml", cwd=side.source
    )
    return f"{side.source} at {head}" + (" + uncommitted changes to mem" if dirty else "")


# ---------------------------------------------------------------- measuring


class Taken:
    """The samples of one class: wall and CPU ms by side, in the order they were taken."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {"BASE": [], "tree": []}
        self.cpu: dict[str, list[float]] = {"BASE": [], "tree": []}

    def add(self, side: Side, wall: float, cpu: float | None = None) -> None:
        self.wall[side.name].append(wall)
        if cpu is not None:
            self.cpu[side.name].append(cpu)

    def process(self, side: Side, label: str, cmd: list[str], env: dict[str, str]) -> None:
        self.add(side, *process_ms(label, cmd, env))


def process_ms(label: str, cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU ms of one whole process (run.py's run_measured); a failure stops the run."""
    ms, _ = run.run_measured(label, cmd, env)
    if ms is None:
        sys.exit(f"{label} failed: {' '.join(cmd)}")
    return ms, run._last_cpu_ms[0]


class Child:
    """A side's venv python answering measurement requests, one JSON line each way."""

    def __init__(self, side: Side, kind: str, target: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [side.python, str(Path(__file__).resolve()), "--child", kind, target],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.name = side.name

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            sys.exit(f"{self.name}'s in-process child failed (exit {self.proc.wait()})")
        return json.loads(answer)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def child_main(kind: str, target: str) -> None:
    """The in-process side of a measurement: `mem` only through mem_api's adapters."""
    import mem_api

    measure: Callable[[dict[str, Any]], Any]
    if kind == "recall":
        recall = mem_api.open_recall()

        def measure(request: dict[str, Any]) -> Any:
            return run.recall_samples(recall, target, request["query"], request["rounds"])

    else:
        check, paths = mem_api.portfolio_check(target), mem_api.watched_paths(target)

        def measure(request: dict[str, Any]) -> Any:
            samples = portfolio.freshness_samples(check, paths, request["rounds"])
            return samples | {"paths": len(paths)}

    for line in sys.stdin:
        print(json.dumps(measure(json.loads(line))), flush=True)


def floor_sample() -> None:
    python_floor.append(process_ms("python -c pass", [sys.executable, "-c", "pass"], {})[0])


def env_for(side: Side, project: str) -> dict[str, str]:
    return {**os.environ, "MEM_CACHE_DIR": str(side.cache(project)), "MEM_NOW": run.MEM_NOW}


def catch_up(
    sides: tuple[Side, Side], cmd: Callable[[Side], list[str]], envs: dict[str, dict[str, str]]
) -> None:
    """An unmeasured call per side, so that the next one finds its index current (the other
    side's writes, or an empty cache)."""
    for side in sides:
        process_ms("catch-up", cmd(side), envs[side.name])


def median_text(taken: dict[str, list[float]], sides: tuple[Side, Side], digits: int = 1) -> str:
    return " / ".join(f"{statistics.median(taken[side.name]):.{digits}f}" for side in sides)


# ---------------------------------------------------------------- the classes


def project_classes(
    sides: tuple[Side, Side], n: int, groups: set[str], args: argparse.Namespace
) -> Iterator[Row]:
    root, queries = run.kept_project(n)
    project, size = f"project-{n}", f"{n // 1000}k"
    envs = {side.name: env_for(side, project) for side in sides}

    def recall(*words: str) -> Callable[[Side], list[str]]:
        return lambda side: [side.mem, "recall", *words, "-d", str(root)]

    if "sync" in groups:
        rounds = args.sync_repeat or (3 if n <= 10_000 else 1)
        synced = Taken()
        for round_ in range(rounds):
            progress(f"{size}: first sync {round_ + 1}/{rounds}")
            floor_sample()
            for side in turns(sides, round_):
                shutil.rmtree(side.cache(project), ignore_errors=True)
                synced.process(side, "first sync", recall(queries[0])(side), envs[side.name])
        yield Row(f"{size} first sync (empty cache)", "process", synced)

    if "recall" in groups:
        catch_up(sides, recall(queries[0]), envs)
        warm = {query: Taken() for query in queries}
        for round_ in range(args.repeat):
            progress(f"{size}: warm recall, round {round_ + 1}/{args.repeat}")
            floor_sample()
            for query in queries:
                for side in turns(sides, round_):
                    cmd = recall(*query.split())(side)
                    warm[query].process(side, "warm recall", cmd, envs[side.name])
        for query_class, query in zip(run.QUERY_CLASSES, queries, strict=True):
            yield Row(f"{size} warm recall, {query_class}", "process", warm[query])

        progress(f"{size}: in-process recall ({args.rounds} calls a class and side)")
        children = {side.name: Child(side, "recall", str(root), envs[side.name]) for side in sides}
        for child in children.values():
            for query in queries:
                child.ask({"query": query, "rounds": 3})  # open and warm up
        inproc = {query: Taken() for query in queries}
        for round_ in range(args.rounds):
            for query in queries:
                for side in turns(sides, round_):
                    request = {"query": query, "rounds": 1}
                    for wall, cpu in children[side.name].ask(request):
                        inproc[query].add(side, wall, cpu)
        for child in children.values():
            child.close()
        for query_class, query in zip(run.QUERY_CLASSES, queries, strict=True):
            yield Row(f"{size} in-process recall, {query_class}", "in process", inproc[query])

    if "write" in groups:
        # Both sides recall, then both write, then both recall: each side's next recall finds
        # the same two events appended since its last one, and no side waits on a catch-up.
        catch_up(sides, recall(queries[0]), envs)
        after, before = Taken(), Taken()
        for round_ in range(args.repeat):
            progress(f"{size}: recall after a write, round {round_ + 1}/{args.repeat}")
            floor_sample()
            order = turns(sides, round_)
            for side in order:
                cmd = recall(queries[0])(side)
                before.process(side, "warm recall before mem write", cmd, envs[side.name])
            for side in order:
                task = f"bench event {round_} {side.name}"
                write = [side.mem, "write", "--agent", "bench", "--task", task, "-d", str(root)]
                process_ms("mem write", write, envs[side.name])
            for side in order:
                after.process(
                    side, "recall after mem write", recall(queries[0])(side), envs[side.name]
                )
        beside = f"warm just before: {median_text(before.wall, sides)} ms"
        yield Row(f"{size} recall after one `mem write`", "process", after, beside)


def portfolio_classes(
    sides: tuple[Side, Side], args: argparse.Namespace, keep: str | None
) -> Iterator[Row]:
    progress(f"portfolio {args.projects}x{args.entries}: generating unless kept")
    root, queries = portfolio.kept_portfolio(args.projects, args.entries, keep)
    brain, first = root / "_brain", root / "p0000"
    envs = {side.name: portfolio.portfolio_env(root, side.cache("portfolio")) for side in sides}
    name = f"portfolio {args.projects}x{args.entries}"

    def recall(query: str) -> Callable[[Side], list[str]]:
        return lambda side: [side.mem, "recall", "--scope", "all", query, "-d", str(first)]

    synced = Taken()
    for side in sides:
        progress(f"{name}: first sync, {side.name}")
        shutil.rmtree(side.cache("portfolio"), ignore_errors=True)
        cmd = [side.mem, "index", "path", "--portfolio", "-d", str(first)]
        synced.process(side, "first portfolio sync", cmd, envs[side.name])
    yield Row(f"{name} first sync (once a side, no limit)", "info", synced)

    catch_up(sides, recall(queries[0]), envs)
    warm = {query: Taken() for query in queries}
    for round_ in range(args.repeat):
        progress(f"{name}: warm recall --scope all, round {round_ + 1}/{args.repeat}")
        floor_sample()
        for query in queries:
            for side in turns(sides, round_):
                warm[query].process(
                    side, "recall --scope all", recall(query)(side), envs[side.name]
                )
    for query_class, query in zip(run.QUERY_CLASSES, queries, strict=True):
        yield Row(f"{name} warm recall --scope all, {query_class}", "process", warm[query])

    progress(f"{name}: freshness check ({args.rounds} a side)")
    children = {side.name: Child(side, "freshness", str(brain), envs[side.name]) for side in sides}
    check, floor, paths = Taken(), Taken(), 0
    for child in children.values():
        child.ask({"rounds": 3})  # open and warm up
    for round_ in range(args.rounds):
        for side in turns(sides, round_):
            answer = children[side.name].ask({"rounds": 1})
            for wall, cpu in answer["check"]:
                check.add(side, wall, cpu)
            for wall, cpu in answer["floor"]:
                floor.add(side, wall, cpu)
            paths = answer["paths"]
    for child in children.values():
        child.close()
    stat = f"{paths:,} bare `stat` calls {median_text(floor.wall, sides)} ms"
    yield Row(f"{name} freshness check (nothing changed)", "in process", check, stat)

    # As for a project's write: both sides write (to the same project), then both recall.
    after = Taken()
    for round_ in range(args.repeat):
        progress(f"{name}: recall after one project's write, round {round_ + 1}/{args.repeat}")
        floor_sample()
        order = turns(sides, round_)
        for side in order:
            write = portfolio.write_cmd(side.mem, root, round_, args.projects, side.name)
            process_ms("mem write", write, envs[side.name])
        for side in order:
            cmd = recall(queries[1])(side)
            after.process(side, "recall --scope all after mem write", cmd, envs[side.name])
    yield Row(f"{name} recall --scope all after one project's write", "process", after)


def mcp_classes(sides: tuple[Side, Side], n: int, calls: int) -> Iterator[Row]:
    import anyio
    import mcp_bench
    from mcp import Client

    root, queries = run.kept_project(n)
    project, size = f"project-{n}", f"{n // 1000}k"
    progress(f"{size}: MCP round trips ({calls} a side), through the SDK's stdio client")
    cold, recall, floor = Taken(), Taken(), Taken()

    async def measure() -> None:
        a, b = sides
        began = time.perf_counter()
        async with Client(mcp_bench.server(a.mem, root, env_for(a, project))) as first:
            await mcp_bench.recall_ms(first, queries[0])
            cold.add(a, (time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            async with Client(mcp_bench.server(b.mem, root, env_for(b, project))) as second:
                await mcp_bench.recall_ms(second, queries[0])
                cold.add(b, (time.perf_counter() - began) * 1000)
                clients = {a.name: first, b.name: second}
                for position in range(30):  # warm up, as mcp_bench.py does
                    for client in clients.values():
                        await mcp_bench.recall_ms(client, queries[position % len(queries)])
                for position in range(calls):
                    query = queries[position % len(queries)]
                    for side in turns(sides, position):
                        recall.add(side, await mcp_bench.recall_ms(clients[side.name], query))
                        floor.add(side, await mcp_bench.trivial_ms(clients[side.name]))

    anyio.run(measure)
    sdk = f"SDK floor (trivial call) p50 {median_text(floor.wall, sides, 2)} ms"
    yield Row(f"{size} MCP recall round trip, p50", "in process", recall, sdk)
    yield Row(f"{size} MCP cold start to first answer (no limit)", "info", cold)


# ---------------------------------------------------------------- the report


def figure(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 10_000 else f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms"


def paired(base: list[float], tree: list[float]) -> list[float]:
    """The tree / BASE ratios of the samples taken in the same turn, sorted."""
    return sorted(t / b for b, t in zip(base, tree, strict=True) if b > 0)


def quartiles(ratios: list[float]) -> str:
    if len(ratios) < 4:
        return "—"
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return f"{q1:.2f}–{q3:.2f}"


def table(rows: list[Row]) -> tuple[list[str], list[str], int]:
    """The Markdown table, the classes over their limit (with their ratios), and how many of
    those are within it in CPU time.

    A class's ratio is the median of its turns' ratios: the two samples of a turn are taken
    one after the other, under the same load, so the load cancels in their ratio, and the
    median of those ratios is steadier than the ratio of the two medians.
    """
    lines = [
        "| class | BASE | tree | ratio | limit | | turns p25–p75 | CPU ratio | floors (same run) |",
        "|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    over, within_in_cpu = [], 0
    floor = f"`python -c pass` {statistics.median(python_floor):.1f} ms" if python_floor else ""
    for row in rows:
        wall, cpu = row.taken.wall, row.taken.cpu
        ratios = paired(wall["BASE"], wall["tree"])
        ratio, limit = statistics.median(ratios), LIMITS.get(row.kind)
        mark = "" if limit is None else "✓" if ratio <= limit else "✗"
        cpu_ratios = paired(cpu["BASE"], cpu["tree"])
        cpu_ratio = f"{statistics.median(cpu_ratios):.2f}" if cpu_ratios else "—"
        if mark == "✗":
            over.append(f"{row.label} ({ratio:.2f}, CPU {cpu_ratio})")
            within_in_cpu += bool(cpu_ratios) and statistics.median(cpu_ratios) <= limit
        floors = "; ".join(
            part for part in (floor if row.kind == "process" else "", row.floor) if part
        )
        lines.append(
            f"| {row.label} | {figure(statistics.median(wall['BASE']))}"
            f" | {figure(statistics.median(wall['tree']))} | {ratio:.2f}"
            f" | {'—' if limit is None else f'≤ {limit:.2f}'} | {mark}"
            f" | {quartiles(ratios)} | {cpu_ratio} | {floors} |"
        )
    return lines, over, within_in_cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", help="the commit to compare with (required but for --child)")
    parser.add_argument("--sizes", default="10000,200000", help="notes per generated project")
    parser.add_argument("--repeat", type=int, default=21, help="whole-process runs a class, side")
    parser.add_argument("--rounds", type=int, default=60, help="in-process calls a class, side")
    parser.add_argument("--sync-repeat", type=int, help="first syncs a side (3 at 10k, else 1)")
    parser.add_argument("--calls", type=int, default=300, help="MCP recall calls a side")
    parser.add_argument("--projects", type=int, default=1000, help="portfolio size")
    parser.add_argument("--entries", type=int, default=1000, help="entries a portfolio project")
    parser.add_argument("--keep-portfolio", help="where the portfolio is kept (portfolio.py's)")
    parser.add_argument("--only", help=f"some of {','.join(GROUPS)} (default: all)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="for iterating: 10k notes, fewer repeats, a 100-project portfolio",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child_main(*args.child)
    if not args.base:
        parser.error("--base COMMIT is required")
    if args.quick:
        for key, value in QUICK.items():
            if parser.get_default(key) == getattr(args, key):
                setattr(args, key, value)
    groups = set(args.only.split(",")) if args.only else set(GROUPS)
    if groups - set(GROUPS):
        parser.error(f"--only takes {','.join(GROUPS)}")
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]

    workdir = Path(tempfile.mkdtemp(prefix="mem-bench-compare-"))
    home = os.getcwd()
    try:
        sides = (base_side(args.base, workdir), tree_side(workdir))
        for side in sides:
            ready(side)
        # A neutral cwd, as run.py's: nothing is picked up from a checkout by accident.
        os.chdir(workdir)
        load_before = os.getloadavg()[0]
        rows: list[Row] = []
        for n in sizes:
            rows += project_classes(sides, n, groups, args)
        if "portfolio" in groups:
            rows += portfolio_classes(sides, args, args.keep_portfolio)
        if "mcp" in groups:
            rows += mcp_classes(sides, min(sizes), args.calls)
        load_after = os.getloadavg()[0]
    finally:
        os.chdir(home)
        shutil.rmtree(workdir, ignore_errors=True)

    lines, over, within_in_cpu = table(rows)
    limited = sum(row.kind in LIMITS for row in rows)
    full = groups == set(GROUPS) and not args.quick and sizes == [10_000, 200_000]
    scope = "" if full else " (a partial run: the guard is decided by the full run)"
    if over:
        verdict = (
            f"GUARD DOES NOT HOLD{scope}: {len(over)} of {limited} classes over their limit"
            f" against BASE {sides[0].commit[:7]}: " + "; ".join(over)
        )
        if within_in_cpu:
            verdict += (
                f". {within_in_cpu} of them within the limit in CPU time: if the load was high"
                " (above), run again before looking for a cause"
            )
    else:
        verdict = (
            f"GUARD HOLDS{scope}: all {limited} classes within their limits against BASE"
            f" {sides[0].commit[:7]} (whole process"
            f" ≤ {LIMITS['process']:.2f}, in process ≤ {LIMITS['in process']:.2f})"
        )
    header = [
        f"BASE: {describe(sides[0])}",
        f"tree: {describe(sides[1])}",
        f"{os.cpu_count()} cores, 1-minute load average {load_before:.1f} before and"
        f" {load_after:.1f} after; {time.perf_counter() - started:.0f} s in all."
        f" Medians of {args.repeat} whole processes and {args.rounds} in-process calls a class"
        f" and side (MCP: {args.calls} calls), the sides taking turns; ratio: the median over the"
        " turns of tree / BASE.",
        "",
    ]
    text = "\n".join([*header, *lines, "", verdict])
    print(text)
    run.OUT_DIR.mkdir(parents=True, exist_ok=True)
    (run.OUT_DIR / "compare.md").write_text(text + "\n")
    raw = {
        "base": describe(sides[0]),
        "tree": describe(sides[1]),
        "args": vars(args),
        "rows": [
            {"label": row.label, "kind": row.kind, "wall": row.taken.wall, "cpu": row.taken.cpu}
            for row in rows
        ],
    }
    (run.OUT_DIR / "compare.json").write_text(json.dumps(raw, indent=1) + "\n")


if __name__ == "__main__":
    main()
