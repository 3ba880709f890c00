#!/usr/bin/env python3
"""Benchmark for `mem browse`: time to its URL, and each canned query's first page.

Run with the project venv's python (needs the `[web]` extra):
    python bench/browse.py [--sizes 1000,10000,50000] [--repeat 3]
Projects come from bench/run.py's generator. Each run starts `mem browse --port 0` with a
warm index (so the figure is the snapshot, the review and Datasette's start-up, not the
first sync), reads the URL it prints, fetches every canned query once over loopback, then
stops it with SIGTERM. A report, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mem_api  # noqa: E402
import run  # noqa: E402  (bench/run.py: the project generator)

URL = re.compile(rb"http://127\.0\.0\.1:\d+/\S+")


def start(mem: str, root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str, float]:
    began = time.perf_counter()
    process = subprocess.Popen(
        [mem, "browse", "--port", "0", "-d", str(root)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    seen = b""
    while not URL.search(seen):
        ready, _, _ = select.select([process.stdout], [], [], 120)
        chunk = os.read(process.stdout.fileno(), 4096) if ready else b""
        if not chunk:
            process.kill()
            raise SystemExit(f"mem browse printed no URL: {seen!r}")
        seen += chunk
    url = URL.search(seen).group(0).decode()  # type: ignore[union-attr]
    return process, url, time.perf_counter() - began


def fetch_ms(url: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    mem = str(Path(sys.executable).with_name("mem"))
    for size in [int(text) for text in options.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="mem-bench-browse-") as scratch:
            root = Path(scratch) / "project"
            run.generate(root, size)
            env = {
                **os.environ,
                "MEM_CACHE_DIR": str(Path(scratch) / "cache"),
                "MEM_NOW": run.MEM_NOW,
            }
            subprocess.run([mem, "index", "path", "-d", str(root)], env=env, check=True,
                           capture_output=True)  # fmt: skip
            ready: list[float] = []
            names = mem_api.canned_query_names()
            pages: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(options.repeat):
                process, url, seconds = start(mem, root, env)
                try:
                    ready.append(seconds * 1000)
                    for name in names:
                        suffix = "?q=cache+postgres" if name == "search" else ""
                        pages[name].append(fetch_ms(f"{url}/{name}{suffix}"))
                finally:
                    process.send_signal(signal.SIGTERM)
                    process.wait(timeout=60)
            line = f"{size:>6} notes: URL after {statistics.median(ready):6.0f} ms;"
            line += "".join(
                f" {name} {statistics.median(times):.0f} ms," for name, times in pages.items()
            )
            print(line.rstrip(","), flush=True)


if __name__ == "__main__":
    main()
