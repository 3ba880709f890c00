#!/usr/bin/env python3
"""Ranking quality on real notes: recall@1, recall@5 and MRR@5 of `mem recall` over
bench/quality/ (240 architecture decision records from public repositories, see
bench/quality/SOURCES.md, and the hand-written paraphrased queries of queries.json).

    python bench/quality.py [--mem PATH] [--rankings lexical,bm25] [--misses]

Each query runs as `mem recall --json --limit 5 --ranking R <query words>` in the set's
project, in a temporary MEM_CACHE_DIR. A ranking the installed `mem` does not name in
`mem recall --help` is reported as n/a. A query counts as found at rank k when the k-th result
is a note whose heading is one of its relevant headings. The table has a row for all queries
and one for the queries that share no word with any of their relevant headings (words:
letters and digits, case and accents folded, the function words below left out). Stdlib only.
A report, not a test: it exits 0. The table also goes to bench/out/quality.md, every query's
rank to bench/out/quality.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SET_DIR = HERE / "quality"
OUT_DIR = HERE / "out"
LIMIT = 5
RANKINGS = ("lexical", "bm25")

# Left out when deciding whether a query shares a word with a heading.
FUNCTION_WORDS = frozenset(
    """a an and are as at be by can do does for from how in into is it of on or our the
    to we what when where which who why with""".split()
)


def words(text: str) -> set[str]:
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c)
    )
    return {w for w in re.findall(r"[^\W_]+", folded) if w not in FUNCTION_WORDS}


def find_mem(explicit: str | None) -> str | None:
    if explicit:
        return str(Path(explicit).resolve()) if os.sep in explicit else explicit
    beside = Path(sys.executable).parent / "mem"
    return str(beside) if beside.exists() else shutil.which("mem")


def accepted_rankings(mem: str, env: dict[str, str]) -> set[str]:
    """The ranking names `mem recall --help` mentions (lexical on every version)."""
    text = subprocess.run(
        [mem, "recall", "--help"], env=env, capture_output=True, text=True, check=False
    ).stdout
    return {"lexical"} | {name for name in RANKINGS if re.search(rf"\b{name}\b", text)}


def recall(mem: str, env: dict[str, str], project: Path, ranking: str, query: str):
    """(headings of the results in order, milliseconds, error message or None)."""
    argv = [mem, "recall", "--json", "--limit", str(LIMIT), "--ranking", ranking]
    argv += ["-d", str(project), "--", *query.split()]
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        return [], ms, (done.stderr.strip() or f"exit {done.returncode}")
    results = json.loads(done.stdout)["results"]
    return [r["ref"] for r in results if r.get("kind") == "note"], ms, None


def first_rank(refs: list[str], relevant: list[str]) -> int | None:
    return next((i for i, ref in enumerate(refs[:LIMIT], 1) if ref in relevant), None)


def scores(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks)
    return {
        "recall@1": sum(r == 1 for r in ranks) / n,
        "recall@5": sum(r is not None for r in ranks) / n,
        "MRR@5": sum(1 / r for r in ranks if r is not None) / n,
    }


def table(report: dict) -> str:
    lines = [
        "| ranking | queries | n | recall@1 | recall@5 | MRR@5 | median ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for ranking, side in report["rankings"].items():
        for cls, label in (("all", "all"), ("no_shared_word", "no word shared with the heading")):
            n = report["classes"][cls]
            if side is None:
                lines.append(f"| {ranking} | {label} | {n} | n/a | n/a | n/a | n/a |")
                continue
            s = side[cls]
            lines.append(
                f"| {ranking} | {label} | {n} | {s['recall@1']:.3f} | {s['recall@5']:.3f}"
                f" | {s['MRR@5']:.3f} | {s['median_ms']:.0f} |"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mem", help="the mem executable (default: beside this python, then PATH)")
    ap.add_argument("--rankings", default=",".join(RANKINGS), help="comma-separated (lexical,bm25)")
    ap.add_argument("--misses", action="store_true", help="list the queries not found first")
    args = ap.parse_args()
    mem = find_mem(args.mem)
    if mem is None or (os.sep in mem and not Path(mem).exists()):
        where = mem or "PATH"
        print(f"bench/quality.py: no mem executable at {where} (--mem PATH)", file=sys.stderr)
        return
    project = SET_DIR / "notes"
    queries = json.loads((SET_DIR / "queries.json").read_text(encoding="utf-8"))
    notes = (project / ".agents/memory/decisions.md").read_text(encoding="utf-8")
    headings = {line[4:].strip() for line in notes.split("\n") if line.startswith("### ")}
    for q in queries:
        unknown = [h for h in q["relevant"] if h not in headings]
        if unknown:
            print(f"bench/quality.py: {q['query']!r}: no note {unknown}", file=sys.stderr)
    no_shared = [
        i
        for i, q in enumerate(queries)
        if not any(words(q["query"]) & words(h) for h in q["relevant"])
    ]
    report: dict = {
        "mem": mem,
        "notes": len(headings),
        "classes": {"all": len(queries), "no_shared_word": len(no_shared)},
        "rankings": {},
        "queries": [dict(q, no_shared_word=i in no_shared) for i, q in enumerate(queries)],
    }
    with tempfile.TemporaryDirectory(prefix="mem-bench-quality-") as cache:
        env = {**os.environ, "MEM_CACHE_DIR": cache}
        accepted = accepted_rankings(mem, env)
        for ranking in args.rankings.split(","):
            if ranking not in accepted:
                print(f"{ranking}: not accepted by {mem} (n/a)", file=sys.stderr)
                report["rankings"][ranking] = None
                continue
            recall(mem, env, project, ranking, "warm up the index")
            ranks, times, errors = [], [], 0
            for i, q in enumerate(queries):
                refs, ms, error = recall(mem, env, project, ranking, q["query"])
                errors += error is not None
                if error:
                    print(f"{ranking}: {q['query']!r}: {error}", file=sys.stderr)
                rank = first_rank(refs, q["relevant"])
                ranks.append(rank)
                times.append(ms)
                report["queries"][i][ranking] = {"rank": rank, "top": refs[:LIMIT]}
            side = {}
            for cls, idx in (("all", range(len(queries))), ("no_shared_word", no_shared)):
                side[cls] = scores([ranks[i] for i in idx]) | {
                    "median_ms": statistics.median(times[i] for i in idx)
                }
            side["errors"] = errors
            report["rankings"][ranking] = side
    text = table(report)
    head = (
        f"Ranking quality on real notes: {len(headings)} notes, {len(queries)} queries"
        f" ({len(no_shared)} sharing no word with the heading), top {LIMIT}, {mem}"
    )
    print(head + "\n\n" + text)
    if args.misses:
        for ranking, side in report["rankings"].items():
            if side is None:
                continue
            print(f"\n{ranking}: queries whose relevant note is not first")
            for q in report["queries"]:
                got = q[ranking]
                if got["rank"] != 1:
                    first = got["top"][0] if got["top"] else "-"
                    print(f"  {got['rank'] or '-'}  {q['query']!r} -> {first!r}")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "quality.md").write_text(head + "\n\n" + text + "\n")
    (OUT_DIR / "quality.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
