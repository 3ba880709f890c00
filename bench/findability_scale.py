#!/usr/bin/env python3
"""Whether `mem check findability` costs the same per note at every size (issue 35).

Generates projects with bench/run.py's generator (cached under --workdir), checks a sample
of each one's notes (every size/sample-th note, the queries and rankings of the real check)
and prints CPU time per note, with what the pruned top-k loop (mem.index.topk) did per
search: groups read, postings in them, records scored from their known frequencies and
from their text. CPU time, not wall time: the figures are meant for a shared machine; say
the load beside them.

    .venv/bin/python bench/findability_scale.py [--sizes 10000,40000,90000] [--sample 600]

Each size's CPU per note is also given as a ratio to the first size's, in the same run.

A report, not a test: it exits 0. It replaces two private functions of
mem.commands.findability (the note list, to sample it; the report, to time it) and wraps
the loop's methods to count: a change to those names breaks it loudly.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,40000,90000")
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--workdir", default=str(Path.home() / ".cache/mem-bench/findability"))
    args = parser.parse_args()
    workdir = Path(args.workdir)
    # The index goes beside the projects, not into the user's cache.
    os.environ["XDG_CACHE_HOME"] = str(workdir / "cache")

    import run as generator

    from mem.commands import findability
    from mem.index import topk

    counts: collections.Counter[str] = collections.Counter()
    _count(topk, counts)
    all_notes = findability._notes
    full_report = findability._report
    measured: dict[str, Any] = {}
    first: float | None = None  # the first size's CPU per note

    for size in [int(size) for size in args.sizes.split(",")]:
        root = workdir / f"project-{size}"
        if not root.exists():
            root.mkdir(parents=True)
            generator.generate(root, size)

        def sampled(*given: Any, **named: Any) -> list[Any]:
            notes = all_notes(*given, **named)
            return notes[:: max(1, len(notes) // args.sample)][: args.sample]

        def timed(notes: list[Any], top: Any, progress: Any) -> dict[str, Any]:
            counts.clear()
            start = time.process_time()
            result = full_report(notes, top, progress)
            measured["cpu"] = time.process_time() - start
            measured["notes"] = len(notes)
            return result

        findability._notes = sampled  # type: ignore[assignment]
        findability._report = timed  # type: ignore[assignment]
        result = findability.findability_report(str(root))
        cpu, notes = measured["cpu"], measured["notes"]
        per_note = cpu / notes
        first = per_note if first is None else first
        shares = "".join(
            f" {name} {figures['notesTop5']}" for name, figures in result["rankings"].items()
        )
        print(
            f"{size} notes: {notes} checked, {1000 * per_note:.2f} ms CPU per note"
            f" ({per_note / first:.2f} x the first size's)"
            f" (load {os.getloadavg()[0]:.1f}), top-5 share{shares}"
        )
        for ranking in ("lexical", "bm25"):
            searches = counts[f"{ranking}.searches"] or 1
            print(
                f"  {ranking:8} per search: "
                + ", ".join(
                    f"{what} {counts[f'{ranking}.{what}'] / searches:.1f}"
                    for what in ("reads", "postings", "known", "texts")
                )
            )


def _count(topk: Any, counts: collections.Counter[str]) -> None:
    """Count, by ranking, what each search of the loop reads and scores."""
    searcher = topk._Searcher

    def ranking(self: Any) -> str:
        return str(self.scorer.__class__.__module__).rsplit(".", 1)[-1]

    read, take, exact = searcher._read, searcher._take, searcher.exact

    def counted_read(self: Any, state: Any, term: Any) -> None:
        counts[f"{ranking(self)}.reads"] += 1
        counts[f"{ranking(self)}.postings"] += term.groups[term.position][1]
        read(self, state, term)

    def counted_take(self: Any, waiting: Any, kind: list[Any]) -> None:
        how = "texts" if kind is self.texts else "known"
        counts[f"{ranking(self)}.{how}"] += len(waiting.ids)
        take(self, waiting, kind)

    def counted_exact(self: Any) -> Any:
        counts[f"{ranking(self)}.searches"] += 1
        return exact(self)

    searcher._read, searcher._take, searcher.exact = counted_read, counted_take, counted_exact


if __name__ == "__main__":
    main()
