#!/usr/bin/env python3
"""Amendments on real notes: whether mem's readers put the newer of an amended decision
first, and whether `mem check amendments` finds the pairs, over bench/amendments/ (eleven
projects of real architecture decision records, in which their authors marked 26 pairs: the
later record superseding or amending the earlier; see bench/amendments/SOURCES.md). Both records of
each pair are active notes, among their collection's other records; the marks themselves
were removed from the texts.

    python bench/amendments.py [--mem PATH] [--list]

(a) Readers: for each pair, the queries that match both (the older's heading words, and the
hand-written queries of bench/quality/queries.json that point at either record) go to
`mem recall --ranking bm25 --limit 5`, the prompt hook (`mem hook prompt`) and the session
brief (`mem hook session-start` on a git branch named with the query's words). A case
counts where the older is shown: newer above it is right. "as ranked" is the share the
scores alone would give (recall: its results in score order).
(b) `mem check amendments --json` per project: the share of marked pairs it lists (older,
newer), the share of listed pairs that are marked pairs, and how many marked pairs the 10, 30
and 100 likeliest listed pairs hold (over every project). --list prints every listed pair
with whether it is marked, for a person to judge the rest. Stdlib only; a report: exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SET_DIR = HERE / "amendments"
DECISIONS = ".agents/memory/decisions.md"
LIMIT = 5
# The projects rules are chosen on; the others are held out (bench/README.md).
DEV = frozenset({"brighter", "dotcom-rendering", "forms", "manage-get-gov", "nats"})
FUNCTION_WORDS = frozenset(
    """a an and are as at be by can do does for from how in into is it of on or our the
    to we what when where which who why with use using""".split()
)


def memory_id(heading: str) -> str:
    digest = hashlib.sha256(f"{DECISIONS}\0{heading}".encode()).hexdigest()
    return "mem_" + digest[:20]


def words(text: str) -> list[str]:
    found = re.findall(r"[^\W_]+", text.casefold())
    return [word for word in dict.fromkeys(found) if word not in FUNCTION_WORDS]


def find_mem(explicit: str | None) -> str | None:
    if explicit:
        return str(Path(explicit).resolve()) if os.sep in explicit else explicit
    beside = Path(sys.executable).parent / "mem"
    return str(beside) if beside.exists() else shutil.which("mem")


def run(argv: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> str:
    done = subprocess.run(
        argv, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, check=False
    )
    return done.stdout


def recall(mem: str, env: dict[str, str], project: Path, query: str) -> tuple[list, list]:
    """(ids in the order shown, ids in score order) of the notes of a bm25 recall."""
    argv = [
        mem,
        "recall",
        "--json",
        "--ranking",
        "bm25",
        "--limit",
        str(LIMIT),
        "--",
        *query.split(),
    ]
    results = json.loads(run(argv, env, project) or '{"results": []}')["results"]
    notes = [entry for entry in results if entry["kind"] == "note"]
    shown = [memory_id(entry["ref"]) for entry in notes]
    ranked = [memory_id(entry["ref"]) for entry in sorted(notes, key=lambda e: -e["score"])]
    return shown, ranked


def hook_ids(output: str) -> list[str]:
    if not output.strip():
        return []
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    return re.findall(r"^- \w+ (mem_[0-9a-f]{20})", context, re.MULTILINE)


def prompt_hook(mem: str, env: dict[str, str], project: Path, query: str, n: int) -> list[str]:
    event = {"prompt": query, "session_id": f"bench-{n}", "cwd": str(project)}
    event["hook_event_name"] = "UserPromptSubmit"
    return hook_ids(
        run([mem, "hook", "prompt", "--host", "claude-code"], env, project, json.dumps(event))
    )


def session_brief(mem: str, env: dict[str, str], project: Path, query: str, n: int) -> list[str]:
    branch = "-".join(words(query))[:80].strip("-") or "work"
    run(["git", "checkout", "-q", "-B", branch], env, project)
    event = {"session_id": f"bench-start-{n}", "cwd": str(project), "source": "startup"}
    event["hook_event_name"] = "SessionStart"
    argv = [mem, "hook", "session-start", "--host", "claude-code"]
    return hook_ids(run(argv, env, project, json.dumps(event)))


def verdict(shown: list[str], older: str, newer: str) -> bool | None:
    """None when the older is not shown; else whether the newer is shown above it."""
    if older not in shown:
        return None
    return newer in shown and shown.index(newer) < shown.index(older)


def share(found: list[bool | None]) -> str:
    counted = [value for value in found if value is not None]
    if not counted:
        return "n/a"
    return f"{sum(counted) / len(counted):.3f} ({sum(counted)}/{len(counted)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mem", help="the mem executable (default: beside this python, then PATH)")
    parser.add_argument("--list", action="store_true", help="print every pair check lists")
    args = parser.parse_args()
    mem = find_mem(args.mem)
    if mem is None:
        print("bench/amendments.py: no mem executable (--mem PATH)", file=sys.stderr)
        return
    pairs = json.loads((SET_DIR / "pairs.json").read_text(encoding="utf-8"))
    quality = json.loads((HERE / "quality" / "queries.json").read_text(encoding="utf-8"))
    readers: dict[str, list[bool | None]] = {
        "recall": [],
        "recall as ranked": [],
        "prompt hook": [],
        "session brief": [],
    }
    listed_total, marked_listed, notes_total = 0, 0, 0
    found_pairs = 0
    parts: dict[str, list[bool | None]] = {}  # "reader dev" / "reader held out" -> verdicts
    part_checks = {"dev": [0, 0, 0], "held out": [0, 0, 0]}  # marked found, marked, listed
    listing: list[str] = []
    scored: list[tuple[float, bool]] = []  # every listed pair: (score, whether marked)
    misses: list[str] = []  # the cases where a reader shows the older above the newer
    with tempfile.TemporaryDirectory(prefix="mem-bench-amendments-") as scratch:
        env = {**os.environ, "MEM_CACHE_DIR": str(Path(scratch) / "cache"), "HOME": scratch}
        env.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@example.invalid")
        env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.invalid")
        env.pop("MEM_RANKING", None)
        n = 0
        for slug in sorted(
            {pair["project"] for pair in pairs} | {p.name for p in SET_DIR.iterdir() if p.is_dir()}
        ):
            project = Path(scratch) / slug
            shutil.copytree(SET_DIR / slug, project)
            run(["git", "init", "-q"], env, project)
            run(["git", "add", "-A"], env, project)
            run(["git", "commit", "-q", "-m", "notes"], env, project)
            marked = {(p["older"], p["newer"]) for p in pairs if p["project"] == slug}
            report = json.loads(run([mem, "check", "amendments", "--json"], env, project))
            notes_total += report["notes"]
            listed = {(p["older"]["heading"], p["newer"]["heading"]) for p in report["pairs"]}
            listed_total += len(listed)
            marked_listed += len(listed & marked)
            found_pairs += len(marked & listed)
            part = "dev" if slug in DEV else "held out"
            for i, count in enumerate((len(marked & listed), len(marked), len(listed))):
                part_checks[part][i] += count
            for p in report["pairs"]:
                key = (p["older"]["heading"], p["newer"]["heading"])
                flag = "marked" if key in marked else "      "
                scored.append((p["score"], key in marked))
                listing.append(f"{flag} {p['score']:.3f} {slug}: {key[0]!r} -> {key[1]!r}")
            for older, newer in sorted(marked):
                queries = [" ".join(words(older))]
                queries += [q["query"] for q in quality if {older, newer} & set(q["relevant"])]
                for query in queries:
                    n += 1
                    old_id, new_id = memory_id(older), memory_id(newer)
                    shown, ranked = recall(mem, env, project, query)
                    seen = {
                        "recall": shown,
                        "recall as ranked": ranked,
                        "prompt hook": prompt_hook(mem, env, project, query, n),
                        "session brief": session_brief(mem, env, project, query, n),
                    }
                    for name, ids in seen.items():
                        readers[name].append(verdict(ids, old_id, new_id))
                        parts.setdefault(f"{name} {part}", []).append(readers[name][-1])
                        if readers[name][-1] is False and name != "recall as ranked":
                            misses.append(f"{name}: {query!r} ({slug}: {older!r} -> {newer!r})")
    print(f"Amendments on real notes: {len(pairs)} marked pairs, {notes_total} active notes, {mem}")
    print("(a) newer above older where the older is shown:")
    for name, found in readers.items():
        split = ", ".join(
            f"{where} {share(parts.get(f'{name} {where}', []))}" for where in part_checks
        )
        print(f"  {name:<17} {share(found)}: {split}")
    precision = marked_listed / listed_total if listed_total else 0.0
    print(
        f"(b) check amendments: marked pairs found {found_pairs / len(pairs):.3f}"
        f" ({found_pairs}/{len(pairs)}),"
        f" listed {listed_total}, of which marked {precision:.3f}"
    )
    print(
        "    "
        + ", ".join(
            f"{where} {found}/{marked} among {listed}"
            for where, (found, marked, listed) in part_checks.items()
        )
    )
    scored.sort(key=lambda pair: -pair[0])  # likeliest first over every project (stable)
    lengths = [n for n in (10, 30, 100) if n < len(scored)]
    print(
        "    marked among the likeliest listed: "
        + ", ".join(f"{sum(m for _, m in scored[:n])} of the first {n}" for n in lengths)
    )
    if args.list:
        print("\n".join(["readers' misses:", *misses, "pairs listed by check:", *listing]))


if __name__ == "__main__":
    main()
