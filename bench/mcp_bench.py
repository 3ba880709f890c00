#!/usr/bin/env python3
"""Benchmark for `mem mcp`: recall round trips through a real MCP client over stdio.

Run with the project venv's python (it needs the `mcp` SDK, from the `mcp` or `test` extra):
    python bench/mcp_bench.py [--sizes 10000] [--calls 500] [--mem PATH]

For each size it generates the same deterministic project as bench/run.py, starts
`mem mcp -d <project>` through the SDK's stdio client and times its cold start to the first
answer (the server builds the index before it serves), makes 30 warm-up calls, then
`--calls` recall calls cycling through run.py's five queries, each timed from the client's
send to its parsed result. It reports
p50/p95/p99 and the server's resident memory (VmRSS now, VmHWM peak) read from /proc, and
the same recall in-process (the tool's own function, no protocol) for comparison.
Targets: p50 <= 3 ms and p95 <= 10 ms at 10k notes; resident memory <= 80 MiB at 10k.
Exits 0 even when targets are missed: this is a report, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import MEM_NOW, OUT_DIR, build_vocab, find_mem, generate, pick_queries  # noqa: E402

TARGETS = {"p50_ms": 3.0, "p95_ms": 10.0, "rss_mib": 80.0}
TARGET_SIZE = 10_000


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def server_memory(parent: int) -> dict[str, float]:
    """VmRSS and VmHWM (MiB) of this process's `mem mcp` child, from /proc."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"mcp" in cmdline:
            fields = dict(
                line.split(":", 1)
                for line in Path(f"/proc/{entry}/status").read_text().splitlines()
            )
            return {
                key: int(fields[key].split()[0]) / 1024
                for key in ("VmRSS", "VmHWM")
                if key in fields
            }
    return {}


async def round_trips(mem: str, root: Path, calls: int, queries: list[str]) -> dict:
    params = StdioServerParameters(command=mem, args=["mcp", "-d", str(root)], env=dict(os.environ))
    started = time.perf_counter()
    async with Client(params) as client:
        first = await client.call_tool("recall", {"query": queries[0]})
        cold_ms = (time.perf_counter() - started) * 1000
        assert not first.is_error, first.content
        for position in range(30):
            await client.call_tool("recall", {"query": queries[position % len(queries)]})
        samples = []
        by_query: dict[str, list[float]] = {query: [] for query in queries}
        for position in range(calls):
            query = queries[position % len(queries)]
            started = time.perf_counter()
            result = await client.call_tool("recall", {"query": query})
            samples.append((time.perf_counter() - started) * 1000)
            by_query[query].append(samples[-1])
            assert not result.is_error and result.structured_content is not None
        memory = server_memory(os.getpid())
    return {
        "per_query_p50_ms": {q: round(quantile(found, 0.5), 2) for q, found in by_query.items()},
        "cold_ms": round(cold_ms, 1),
        "p50_ms": round(quantile(samples, 0.50), 2),
        "p95_ms": round(quantile(samples, 0.95), 2),
        "p99_ms": round(quantile(samples, 0.99), 2),
        "mean_ms": round(statistics.fmean(samples), 2),
        "rss_mib": round(memory.get("VmRSS", float("nan")), 1),
        "peak_rss_mib": round(memory.get("VmHWM", float("nan")), 1),
    }


def in_process(root: Path, calls: int, queries: list[str]) -> dict:
    from mem.index import sync
    from mem.mcp import tools

    sync.keep_open(8)
    tool = tools.BY_NAME["recall"]
    for query in queries:
        tool.run(str(root), {"query": query})
    samples = []
    by_query: dict[str, list[float]] = {query: [] for query in queries}
    for position in range(calls):
        query = queries[position % len(queries)]
        started = time.perf_counter()
        tool.run(str(root), {"query": query})
        samples.append((time.perf_counter() - started) * 1000)
        by_query[query].append(samples[-1])
    return {
        "per_query_p50_ms": {q: round(quantile(found, 0.5), 2) for q, found in by_query.items()},
        "p50_ms": round(quantile(samples, 0.50), 2),
        "p95_ms": round(quantile(samples, 0.95), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--mem", help="mem executable (default: next to sys.executable)")
    args = parser.parse_args()
    mem = find_mem(args.mem)
    if mem is None:
        sys.exit("mcp_bench: no mem executable found")
    queries = pick_queries(build_vocab(random.Random(42)))
    workdir = Path(tempfile.mkdtemp(prefix="mem-mcp-bench-"))
    os.environ["MEM_CACHE_DIR"] = str(workdir / "cache")
    os.environ["MEM_NOW"] = MEM_NOW
    results = {}
    try:
        for size in [int(part) for part in args.sizes.split(",") if part.strip()]:
            root = workdir / f"project-{size}"
            print(f"size {size}: generating and timing ...", flush=True)
            generate(root, size)
            figures = anyio.run(round_trips, mem, root, args.calls, queries)
            figures["in_process"] = in_process(root, args.calls, queries)
            results[size] = figures
            print(
                f"  MCP recall round trip: p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms,"
                f" p99 {figures['p99_ms']} ms\n"
                f"  cold start to first answer (index build included): {figures['cold_ms']} ms\n"
                f"  in-process recall:     p50 {figures['in_process']['p50_ms']} ms,"
                f" p95 {figures['in_process']['p95_ms']} ms\n"
                f"  server memory:         {figures['rss_mib']} MiB resident"
                f" (peak {figures['peak_rss_mib']} MiB)"
            )
            for query, over_mcp in figures["per_query_p50_ms"].items():
                alone = figures["in_process"]["per_query_p50_ms"][query]
                print(f"    {query!r:<26} p50 {over_mcp} ms over MCP, {alone} ms in-process")
            if size == TARGET_SIZE:
                for key, limit in TARGETS.items():
                    verdict = "PASS" if figures[key] <= limit else "MISS"
                    print(f"  target {key} <= {limit}: {verdict} ({figures[key]})")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    out = OUT_DIR / "mcp.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"calls": args.calls, "sizes": results}, indent=2) + "\n")
    print(f"\nraw numbers: {out}")


if __name__ == "__main__":
    main()
