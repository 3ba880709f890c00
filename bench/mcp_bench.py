#!/usr/bin/env python3
"""Benchmark for `mem mcp`: recall round trips through a real MCP client over stdio.

Run with the project venv's python (it needs the `mcp` SDK, from the `mcp` or `test` extra):
    python bench/mcp_bench.py [--sizes 10000] [--calls 500] [--mem PATH]

For each size it generates the same deterministic project as bench/run.py, starts
`mem mcp -d <project>` through the SDK's stdio client and times its cold start to the first
answer (the server builds the index before it serves), makes 30 warm-up calls, then
`--calls` recall calls cycling through run.py's queries, each timed from the client's
send to its parsed result. It reports
p50/p95/p99 and the server's resident memory (VmRSS now, VmHWM peak) read from /proc, and
the same recall in-process (the tool's own function, no protocol) for comparison.
Floors beside them: a trivial call made between every two recalls (a recall without its
query, refused by the argument check before any file is read: the SDK client's and
server's own round trip), and the CPU time each side spends per recall round trip (the
client's own, from this process; the server's, from /proc over all the calls).
Stdlib and the SDK only; `mem`'s API only through mem_api.py. A report, not a test: it
exits 0. `make bench-compare` (compare.py) sets the round trip against another commit's.
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
from run import (  # noqa: E402
    MEM_NOW,
    OUT_DIR,
    build_vocab,
    find_mem,
    generate,
    pick_queries,
    python_floor,
)


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def server_pid(parent: int) -> int | None:
    """This process's `mem mcp` child."""
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
            return int(entry)
    return None


def server_memory(pid: int | None) -> dict[str, float]:
    """VmRSS and VmHWM (MiB) of the server, from /proc."""
    if pid is None:
        return {}
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return {key: int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM") if key in fields}


def server_cpu(pid: int | None) -> float:
    """User plus system CPU seconds the server has used, from /proc (0 when unknown)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server(mem: str, root: Path, env: dict[str, str]) -> StdioServerParameters:
    """`mem mcp` on the project under root, for the SDK's stdio client."""
    return StdioServerParameters(command=mem, args=["mcp", "-d", str(root)], env=env)


async def recall_ms(client: Client, query: str) -> float:
    """Wall ms of one recall round trip, from the client's send to its parsed result."""
    started = time.perf_counter()
    result = await client.call_tool("recall", {"query": query})
    elapsed = (time.perf_counter() - started) * 1000
    assert not result.is_error and result.structured_content is not None, result.content
    return elapsed


async def trivial_ms(client: Client) -> float:
    """Wall ms of the floor: a recall without its query, refused by the argument check before
    any file is read (what the SDK client and server cost by themselves)."""
    started = time.perf_counter()
    refused = await client.call_tool("recall", {})
    elapsed = (time.perf_counter() - started) * 1000
    assert refused.is_error
    return elapsed


async def round_trips(mem: str, root: Path, calls: int, queries: list[str]) -> dict:
    started = time.perf_counter()
    async with Client(server(mem, root, dict(os.environ))) as client:
        first = await client.call_tool("recall", {"query": queries[0]})
        cold_ms = (time.perf_counter() - started) * 1000
        assert not first.is_error, first.content
        for position in range(30):
            await client.call_tool("recall", {"query": queries[position % len(queries)]})
        pid = server_pid(os.getpid())
        samples, trivial, client_cpu = [], [], []
        by_query: dict[str, list[float]] = {query: [] for query in queries}
        server_before = server_cpu(pid)
        for position in range(calls):
            query = queries[position % len(queries)]
            cpu = time.process_time()
            samples.append(await recall_ms(client, query))
            client_cpu.append((time.process_time() - cpu) * 1000)
            by_query[query].append(samples[-1])
            trivial.append(await trivial_ms(client))
        # Both kinds of call are in the server's time; the trivial ones' share is small.
        server_ms = (server_cpu(pid) - server_before) * 1000 / calls
        memory = server_memory(pid)
    return {
        "floor_p50_ms": round(quantile(trivial, 0.50), 2),
        "floor_p95_ms": round(quantile(trivial, 0.95), 2),
        "client_cpu_ms": round(statistics.fmean(client_cpu), 2),
        "server_cpu_ms": round(server_ms, 2),
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
    import mem_api

    run = mem_api.mcp_recall()
    for query in queries:
        run(str(root), {"query": query})
    samples = []
    by_query: dict[str, list[float]] = {query: [] for query in queries}
    for position in range(calls):
        query = queries[position % len(queries)]
        started = time.perf_counter()
        run(str(root), {"query": query})
        samples.append((time.perf_counter() - started) * 1000)
        by_query[query].append(samples[-1])
    return {
        "per_query_p50_ms": {q: round(quantile(found, 0.5), 2) for q, found in by_query.items()},
        "p50_ms": round(quantile(samples, 0.50), 2),
        "p95_ms": round(quantile(samples, 0.95), 2),
        "mean_ms": round(statistics.fmean(samples), 2),
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
    load_before = os.getloadavg()
    floor = python_floor(5)
    if floor is not None:
        print(f"python -c pass: {floor['median']:.1f} ms (median of 5)")
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
                f"  floor, trivial call:   p50 {figures['floor_p50_ms']} ms,"
                f" p95 {figures['floor_p95_ms']} ms (SDK client and server, no file read)\n"
                f"  CPU per recall call:   client {figures['client_cpu_ms']} ms,"
                f" server {figures['server_cpu_ms']} ms"
                f" (in-process recall alone: mean {figures['in_process']['mean_ms']} ms)\n"
                f"  server memory:         {figures['rss_mib']} MiB resident"
                f" (peak {figures['peak_rss_mib']} MiB)"
            )
            for query, over_mcp in figures["per_query_p50_ms"].items():
                alone = figures["in_process"]["per_query_p50_ms"][query]
                print(f"    {query!r:<26} p50 {over_mcp} ms over MCP, {alone} ms in-process")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()
    load = (
        f"{os.cpu_count()} cores, 1-minute load average {load_before[0]:.1f} before"
        f" and {load_after[0]:.1f} after"
    )
    print(load)
    out = OUT_DIR / "mcp.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = {"calls": args.calls, "load": load, "python_floor": floor, "sizes": results}
    out.write_text(json.dumps(raw, indent=2) + "\n")
    print(f"\nraw numbers: {out}")


if __name__ == "__main__":
    main()
