#!/usr/bin/env python3
"""The prompt hook's gate on labelled prompts (issue 33): does `mem hook prompt` inject the
note that governs a prompt, and stay quiet when the project holds nothing on it?

    python bench/hook_quality.py [--thresholds 0.2,0.25,0.3]

The set is bench/hooks/ (see bench/hooks/SOURCES.md) and bench/quality/:
- long: 68 issue texts of ripgrep, fzf and gopls (golang/tools), retold in the reporter's
  words (30-120 words), each asked in a project whose notes are that repository's 2,104,
  3,316 or 2,962 commit messages; counted when a commit that fixed the issue is injected.
  Also reported apart: the reports whose fixing commit carries a decision (a body of at
  least DECISION_WORDS words once the lines naming issues are gone: what was decided and
  why, not "Fix #668"); the answerable ones, all but those whose every fixing commit
  carries no decision and holds at most BARE_TERMS_HELD of the report's terms (a bare
  "Fix panic caused by invalid cursor index": no lexical method can single it out); and
  those whose fixing commit the hook's bm25 ranking puts first (the gate's part). The
  misses are then counted by why: unanswerable, or where the hook's ranking puts the
  fixing commit (first, 2-5, 6-10, below 10);
- unrelated: 53 issue texts of other projects (Django, PyTorch, React, Docker, pandas),
  asked in every commit project; counted when anything is injected;
- unrelated, same domain: 31 issue texts of tools of the project's own kind that it holds
  nothing on (fd and the silver searcher in ripgrep's project, rust-analyzer and pyright in
  gopls'); counted when anything is injected;
- short: bench/quality's 117 one-line questions, asked in a project holding only their own
  repository's ADRs (counted when a relevant note is injected) and in the next
  repository's project (counted when anything is injected).
The dev part (ripgrep; the first five ADR repositories) is what the gate was designed on;
the held-out part (fzf, gopls; the other five) is reported beside it.

The gates: mem's own (`brief.prompt_matches`, the code path of `mem hook prompt`) at each
threshold given; the gate before issue 33 (the first 24 terms of the prompt; a note
injected above 0.2 of the weight of the terms some note holds) and the first pass's (the
weight capped at 8 rarest terms, no count of terms held), worked out from the same index.
The ceiling is how often the hook's bm25 ranking (brief.prompt_relevance) puts the
governing note first.

Stdlib only, `mem` only through mem_api.py, in a temporary MEM_CACHE_DIR. A report, not a
test: it exits 0. The table also goes to bench/out/hook_quality.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOOKS = HERE / "hooks"
QUALITY = HERE / "quality"
OUT_DIR = HERE / "out"
COMMIT_PROJECTS = {"ripgrep": "dev", "fzf": "held-out", "gotools": "held-out"}
# A commit carries a decision when its body, less the lines naming issues and the trailers,
# holds at least this many words: it says what was decided and why, not only "Fix #668".
DECISION_WORDS = 25
ISSUE_LINE = re.compile(
    r"(?im)^.*\b(fix(es|ed)?|close[sd]?|resolve[sd]?|updates?|refs?|see)\b[^\n]*#\d+.*$"
)
# A fixing commit that carries no decision and holds at most this many of the report's terms
# (mem's bm25 terms of the prompt) says too little to be found: the pair is unanswerable.
BARE_TERMS_HELD = 2
DEV_ADR_REPOSITORIES = 5  # the first five of bench/quality/SOURCES.md's "Files taken"
BEFORE = (24, 0.2)  # the gate before issue 33: the prompt's first 24 terms, a 0.2 share
# The first pass's gate (issue 33): the weight capped at 8 rarest terms, no terms held asked.
FIRST_PASS = (64, 0.25, 8)
AT_MOST = 8  # memories one prompt can bring (mem.commands.hook.PROMPT_AT_MOST)
KINDS = ("long", "decision", "answerable", "first", "unrelated", "near", "short", "other")
HEADERS = {
    "long": "long: governing injected",
    "decision": "long, a decision: governing injected",
    "answerable": "long, answerable: governing injected",
    "first": "long, bm25 ranks it first: injected",
    "unrelated": "unrelated: anything injected",
    "near": "unrelated, same domain: anything injected",
    "short": "short, own project: relevant injected",
    "other": "short, other project: anything injected",
}


def carries_decision(body: str) -> bool:
    return len(ISSUE_LINE.sub("", body).split()) >= DECISION_WORDS


def commit_notes(name: str) -> list[tuple[str, str, list[int]]]:
    """(heading, body, issues fixed) of each commit, a repeated subject numbered (2), (3)..."""
    seen: dict[str, int] = {}
    notes = []
    with gzip.open(HOOKS / f"{name}.ndjson.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            heading = " ".join(row["subject"].split())
            seen[heading] = seen.get(heading, 0) + 1
            if seen[heading] > 1:
                heading = f"{heading} ({seen[heading]})"
            body = re.sub(r"(?m)^#", r"\\#", row["body"].strip())  # no heading of its own
            notes.append((heading, body, row["fixes"]))
    return notes


def write_project(root: Path, sections: list[str]) -> None:
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("# Decisions\n\n" + "\n".join(sections), "utf-8")


def adr_projects() -> dict[str, list[str]]:
    """bench/quality's notes by repository, in SOURCES.md's order (that of the notes file)."""
    taken = (QUALITY / "SOURCES.md").read_text(encoding="utf-8").split("## Files taken")[1]
    counts: list[tuple[str, int]] = []
    for line in taken.splitlines():
        if line.startswith("### "):
            counts.append((line[4:].strip(), 0))
        elif line.startswith("- `"):
            counts[-1] = (counts[-1][0], counts[-1][1] + 1)
    notes = (QUALITY / "notes/.agents/memory/decisions.md").read_text(encoding="utf-8")
    sections = re.split(r"(?m)^(?=### )", notes)[1:]
    projects, start = {}, 0
    for repository, count in counts:
        projects[repository] = sections[start : start + count]
        start += count
    assert start == len(sections), "bench/quality/SOURCES.md no longer lists every note"
    return projects


class Case:
    __slots__ = (
        "kind",
        "part",
        "root",
        "prompt",
        "relevant",
        "decision",
        "answerable",
        "first",
        "rank",
    )

    def __init__(self, kind: str, part: str, root: Path, prompt: str, relevant: set[str]):
        self.kind, self.part, self.root, self.prompt = kind, part, root, prompt
        self.relevant = relevant  # the headings that answer it; none for a false injection
        self.decision = False  # long: a governing commit carries a decision
        self.answerable = False  # long: a governing commit carries a decision or enough terms
        self.first = False  # long: the hook's bm25 ranking puts a governing note first
        self.rank: int | None = None  # long: its best place in that ranking's 10 (None: below)

    def kinds(self) -> list[str]:
        """The columns this case counts in."""
        marks = (
            ("decision", self.decision),
            ("answerable", self.answerable),
            ("first", self.first),
        )
        extra = [k for k, on in marks if on]
        return [self.kind, *extra]


def cases(workdir: Path, held: Callable[[str, str], int]) -> list[Case]:
    """Every case; `held(prompt, text)`: how many of the prompt's terms a note's text holds."""
    prompts = json.loads((HOOKS / "prompts.json").read_text(encoding="utf-8"))
    found = []
    for name, part in COMMIT_PROJECTS.items():
        notes = commit_notes(name)
        root = workdir / name
        write_project(root, [f"### {h}\n\n{b}\n" if b else f"### {h}\n" for h, b, _ in notes])
        for case in prompts["long"]:
            if case["project"] == name:
                fixing = [
                    (heading, body) for heading, body, fixes in notes if case["issue"] in fixes
                ]
                assert fixing, f"no commit of {name} fixes #{case['issue']}"
                found.append(Case("long", part, root, case["prompt"], {h for h, _ in fixing}))
                found[-1].decision = any(carries_decision(body) for _, body in fixing)
                found[-1].answerable = any(
                    carries_decision(body)
                    or held(case["prompt"], f"{heading}\n\n{body}") > BARE_TERMS_HELD
                    for heading, body in fixing
                )
        for case in prompts["unrelated"]:
            found.append(Case("unrelated", part, root, case["prompt"], set()))
        for case in prompts["near"]:
            if case["project"] == name:
                found.append(Case("near", part, root, case["prompt"], set()))
    projects = adr_projects()
    roots = {}
    for number, (repository, sections) in enumerate(projects.items()):
        roots[repository] = workdir / f"adr-{number}"
        write_project(roots[repository], sections)
    owner = {
        re.match(r"### (.*)", section).group(1).strip(): repository  # type: ignore[union-attr]
        for repository, sections in projects.items()
        for section in sections
    }
    names = list(projects)
    for query in json.loads((QUALITY / "queries.json").read_text(encoding="utf-8")):
        own = owner[query["relevant"][0]]
        part = "dev" if names.index(own) < DEV_ADR_REPOSITORIES else "held-out"
        other = names[(names.index(own) + 1) % len(names)]
        found.append(Case("short", part, roots[own], query["query"], set(query["relevant"])))
        found.append(Case("other", part, roots[other], query["query"], set()))
    return found


def scored(case: Case, injected: list[str]) -> bool:
    """A hit (long, short) or a false injection (unrelated, other)."""
    if case.relevant:
        return any(heading in case.relevant for heading in injected)
    return bool(injected)


def measure(answers: dict[str, list[list[str]]], found: list[Case]):
    """gate -> part -> kind -> the share of its cases scored; `answers`: gate -> what it
    injected for each case of `found`."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for name, injected in answers.items():
        counts: dict[tuple[str, str], list[bool]] = {}
        for case, answer in zip(found, injected, strict=True):
            hit = scored(case, answer)
            for kind in case.kinds():
                counts.setdefault((case.part, kind), []).append(hit)
                counts.setdefault(("all", kind), []).append(hit)
        table[name] = {
            part: {kind: sum(v) / len(v) for (p, kind), v in counts.items() if p == part}
            for part in ("dev", "held-out", "all")
        }
    return table


MISSES = ("unanswerable", "ranked 1st, gated out", "ranked 2-5", "ranked 6-10", "below 10")


def why_missed(case: Case) -> str:
    """Why a long report's governing note was not injected."""
    if not case.answerable:
        return MISSES[0]
    if case.rank is None:
        return MISSES[4]
    return MISSES[1] if case.rank == 1 else MISSES[2] if case.rank <= 5 else MISSES[3]


def misses(answers: dict[str, list[list[str]]], found: list[Case]) -> list[str]:
    """Per mem gate and part, the long reports missed, counted by why_missed."""
    lines = ["| gate | part | missed | " + " | ".join(MISSES) + " |", "|---|---|" + "---:|" * 6]
    for name, injected in answers.items():
        if not name.startswith("mem,"):
            continue
        for part in ("dev", "held-out"):
            why = [
                why_missed(case)
                for case, answer in zip(found, injected, strict=True)
                if case.kind == "long" and case.part == part and not scored(case, answer)
            ]
            cells = [str(len(why)), *(str(why.count(reason)) for reason in MISSES)]
            lines.append(f"| {name} | {part} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thresholds", default="0.2,0.25,0.3", help="mem's gate at these")
    args = parser.parse_args()
    thresholds = [float(value) for value in args.thresholds.split(",")]
    with tempfile.TemporaryDirectory(prefix="mem-hook-quality-") as tmp:
        os.environ["MEM_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["MEM_STATE_DIR"] = str(Path(tmp) / "state")
        sys.path.insert(0, str(HERE))
        import mem_api

        found = cases(Path(tmp), mem_api.prompt_terms_held())
        matches, ranking = mem_api.prompt_matches(), mem_api.prompt_ranking()
        hook_ranking = mem_api.hook_ranking()

        def before(case: Case) -> list[str]:
            terms, share = BEFORE
            top, weights, _ = ranking(str(case.root), case.prompt, terms)
            return [h for h, score in top[:AT_MOST] if score > share * sum(weights)]

        def first_pass(case: Case) -> list[str]:
            terms, share, cap = FIRST_PASS
            top, weights, rarest = ranking(str(case.root), case.prompt, terms)
            weight = min(math.fsum(w or rarest for w in weights), cap * rarest)
            return [h for h, score in top[:AT_MOST] if score > share * weight]

        def ceiling(case: Case) -> list[str]:
            return sorted(case.relevant)[:1] if case.rank == 1 else []

        for case in found:
            if case.relevant:
                top = hook_ranking(str(case.root), case.prompt)
                places = [place for place, heading in enumerate(top, 1) if heading in case.relevant]
                case.rank = places[0] if places else None
                case.first = case.kind == "long" and case.rank == 1

        gates: dict[str, Callable[[Case], list[str]]] = {
            f"before issue 33 (first {BEFORE[0]} terms, {BEFORE[1]} share)": before,
            "first pass (weight capped at 8 rarest, 0.25)": first_pass,
        }
        for threshold in thresholds:
            gates[f"mem, --threshold {threshold}"] = lambda case, threshold=threshold: matches(
                str(case.root), case.prompt, threshold
            )
        answers = {name: [gate(case) for case in found] for name, gate in gates.items()}
        table = measure(answers, found)
        ranked = [case for case in found if case.relevant]
        ceilings = measure({"ceiling": [ceiling(case) for case in ranked]}, ranked)["ceiling"]
    counts = {
        kind: " / ".join(
            str(sum(1 for c in found if c.part == part and kind in c.kinds()))
            for part in ("dev", "held-out")
        )
        for kind in KINDS
    }
    lines = [
        "| gate | part | " + " | ".join(f"{HEADERS[k]} (n={counts[k]})" for k in KINDS) + " |",
        "|---|---|" + "---:|" * len(KINDS),
    ]
    for name, parts in [*table.items(), ("ceiling: the hook's bm25 ranks it first", ceilings)]:
        for part, rates in parts.items():
            cells = [f"{rates[k]:.2f}" if k in rates else "" for k in KINDS]
            lines.append(f"| {name} | {part} | " + " | ".join(cells) + " |")
    lines += ["", "Long reports missed, by why (the hook's ranking: its 10 best):", ""]
    lines += misses(answers, found)
    report = "\n".join(lines)
    print(report)
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / "hook_quality.md").write_text(report + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
