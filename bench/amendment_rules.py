#!/usr/bin/env python3
"""Recall's amendment rule against what it costs: for each rule below, how often a bm25
recall shows the newer of bench/amendments/' marked pairs above the older (amendments.py's
cases), and bm25's recall@1 / MRR@5 on bench/quality/ (labels as corrected on the sources'
marks, and as they were), on the dev and held-out parts (bench/README.md, Amendments).

    python bench/amendment_rules.py

Every recall of both sets is made once, in process (mem_api.recall_pairs: the notes shown
in score order, their scores, the pairs mem finds among them); each rule then says which
pairs move the newer above the older, through mem's own newer_first. Today's rule must give
the figures of `mem recall` itself (amendments.py, quality.py). A report: exits 0.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import amendments as bench  # noqa: E402
import mem_api  # noqa: E402

QUALITY = HERE / "quality"
# bench/quality/ labels before 2026-12-07, when five were corrected (quality/SOURCES.md).
AS_THEY_WERE = {
    "ip address ranges for each environment": ["Networking Outline", "Networking Outline (2)"],
    "duns number or uei": [
        "Capture only Universal Entity Identifier (UEI)",
        "Proposed UEI handling change",
    ],
    "checking entity identifiers against sam.gov": [
        "Use the SAM.gov API for UEI validation",
        "SAM.gov integration for MVP",
    ],
    "oscal trestle": ["How to document compliance work", "How to document compliance work (2)"],
    "extending django's user model": ["Use custom User model with separate UserProfile"],
}
# bench/quality/'s questions whose answer is a record of these repositories are the dev part.
DEV_REPOSITORIES = frozenset(
    {
        "BrighterCommand/Brighter",
        "cisagov/manage.get.gov",
        "nats-io/nats-architecture-and-design",
        "Green-Software-Foundation/carbon-aware-sdk",
        "adr/madr",
    }
)
REFERS_BACK = re.compile(
    r"\b(previous(ly)?|prior|original(ly)?|revisit\w*|no longer|instead)\b", re.IGNORECASE
)


def notes(project: Path) -> dict[str, str]:
    """Heading -> text, in file order."""
    found: dict[str, str] = {}
    heading = None
    for line in (project / bench.DECISIONS).read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
            found[heading] = ""
        elif heading is not None:
            found[heading] += line + "\n"
    return found


def repositories() -> dict[str, str]:
    """bench/quality/'s heading -> its repository (SOURCES.md lists the files in note order)."""
    repository, files = "", []
    for line in (QUALITY / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("### ") and "/" in line:
            repository = line[4:].strip()
        elif line.startswith("- `") and repository:
            files.append(repository)
    return dict(zip(notes(QUALITY / "notes"), files, strict=True))


class Project:
    """A project's notes as the rules read them: place in the file, terms, document counts."""

    def __init__(self, root: Path) -> None:
        self.texts = notes(root)
        self.place = {heading: n for n, heading in enumerate(self.texts)}
        terms = mem_api.note_terms()
        self.terms = {heading: terms(heading, text) for heading, text in self.texts.items()}
        self.df: dict[str, int] = {}
        for held in self.terms.values():
            for term in held:
                self.df[term] = self.df.get(term, 0) + 1

    def idf(self, term: str) -> float:
        held, n = self.df.get(term, 0), len(self.texts)
        return math.log(1 + (n - held + 0.5) / (held + 0.5))

    def held_share(self, query: list[str], older: str, newer: str) -> float:
        """Of the query's idf that the older holds, the share the newer holds too."""
        by_older = [term for term in query if term in self.terms[older]]
        both = [term for term in by_older if term in self.terms[newer]]
        whole = sum(map(self.idf, by_older))
        return sum(map(self.idf, both)) / whole if whole else 1.0

    def headings_holding(self, older: str, newer: str) -> int:
        """How many headings hold every word the two headings share (a sibling set's size)."""
        words = set(re.findall(r"\w+", older.casefold())) & set(
            re.findall(r"\w+", newer.casefold())
        )
        words -= bench.FUNCTION_WORDS
        if not words:
            return 0
        return sum(words <= set(re.findall(r"\w+", h.casefold())) for h in self.texts)


Rule = Callable[[dict[str, Any], dict[str, Any], Project], bool]


def rule(
    share: float = 0.65,
    same: float = 0.6,
    apart: int = 0,
    held: float = 0.0,
    headings: int | None = None,
    refers_back: bool = False,
) -> Rule:
    """Move the newer above the older when the two are one decision taken again (likeness >=
    `same`), or when the query matches the newer at least `share` as well as the older and
    every other condition given holds."""

    def moves(pair: dict[str, Any], case: dict[str, Any], project: Project) -> bool:
        older, newer = pair["older"], pair["newer"]
        if pair["likeness"] >= same:
            return True
        scores = dict(zip(case["shown"], case["scores"], strict=True))
        if scores[newer] < share * scores[older]:
            return False
        if project.place[newer] - project.place[older] < apart:
            return False
        if held and project.held_share(case["terms"], older, newer) < held:
            return False
        if headings is not None and project.headings_holding(older, newer) > headings:
            return False
        return not refers_back or bool(REFERS_BACK.search(project.texts[newer]))

    return moves


RULES: list[tuple[str, Rule]] = [
    ("no amendments", rule(share=math.inf, same=math.inf)),
    ("shown notes only, no query share", rule(share=0.0)),
    ("query share 0.5", rule(share=0.5)),
    ("query share 0.5, notes at least 2 sections apart", rule(share=0.5, apart=2)),
    (
        "query share 0.5, the newer holds 0.4 of the query's idf that the older holds",
        rule(share=0.5, held=0.4),
    ),
    ("query share 0.6", rule(share=0.6)),
    ("**query share 0.65, or likeness >= 0.6 (kept)**", rule()),
    (
        "query share 0.65, the newer holds 0.5 of the query's idf that the older holds",
        rule(held=0.5),
    ),
    ("query share 0.65, the words both headings hold in at most 6 headings", rule(headings=6)),
    (
        "query share 0.55, the words both headings hold in at most 6 headings",
        rule(share=0.55, headings=6),
    ),
    (
        "query share 0.5, the words both headings hold in at most 6 headings",
        rule(share=0.5, headings=6),
    ),
    (
        "query share 0.55, the words both headings hold in at most 6 headings,"
        " notes at least 2 sections apart",
        rule(share=0.55, headings=6, apart=2),
    ),
    (
        "query share 0.65, the newer says prior, previous(ly), original(ly), revisit,"
        " no longer or instead",
        rule(refers_back=True),
    ),
    ("query share 0.7", rule(share=0.7)),
]


def shown(case: dict[str, Any], moves: Rule, project: Project) -> list[str]:
    amended: dict[str, list[tuple[str, float]]] = {}
    for pair in case["pairs"]:  # likeliest first for each older note, as mem orders them
        if moves(pair, case, project):
            amended.setdefault(pair["older"], []).append((pair["newer"], pair["likeness"]))
    return mem_api.newer_first(case["shown"], amended)


def first_rank(order: list[str], relevant: list[str]) -> int | None:
    return next((n for n, ref in enumerate(order[: bench.LIMIT], 1) if ref in relevant), None)


def quality_scores(cases: list[dict[str, Any]], labels: str, moves: Rule, project: Project) -> str:
    ranks = [first_rank(shown(case, moves, project), case[labels]) for case in cases]
    at_1 = sum(rank == 1 for rank in ranks) / len(ranks)
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    return f"{at_1:.3f} / {mrr:.3f}"


def newer_first_share(cases: list[dict[str, Any]], moves: Rule, projects: dict) -> str:
    right = counted = 0
    for case in cases:
        order = shown(case, moves, projects[case["project"]])
        if case["older"] in order:
            counted += 1
            newer = case["newer"]
            right += newer in order and order.index(newer) < order.index(case["older"])
    return f"{right}/{counted}"


def cases() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Project]]:
    """bench/quality/'s recalls, bench/amendments/' recalls, and the projects they ask."""
    pairs = json.loads((bench.SET_DIR / "pairs.json").read_text(encoding="utf-8"))
    questions = json.loads((QUALITY / "queries.json").read_text(encoding="utf-8"))
    repository = repositories()
    with tempfile.TemporaryDirectory(prefix="mem-bench-amendment-rules-") as scratch:
        os.environ["MEM_CACHE_DIR"] = str(Path(scratch) / "cache")
        os.environ.pop("MEM_RANKING", None)
        recall, query_terms = mem_api.recall_pairs(), mem_api.query_terms()
        projects: dict[str, Project] = {}
        quality: list[dict[str, Any]] = []
        root = Path(scratch) / "quality"
        shutil.copytree(QUALITY / "notes", root)
        projects["quality"] = Project(root)
        for question in questions:
            case = recall(str(root), question["query"])
            case["terms"] = query_terms(question["query"])
            case["relevant"] = question["relevant"]
            case["as they were"] = AS_THEY_WERE.get(question["query"], question["relevant"])
            case["dev"] = repository[question["relevant"][0]] in DEV_REPOSITORIES
            case["project"] = "quality"
            quality.append(case)
        amended: list[dict[str, Any]] = []
        for slug in sorted(p.name for p in bench.SET_DIR.iterdir() if p.is_dir()):
            root = Path(scratch) / slug
            shutil.copytree(bench.SET_DIR / slug, root)
            projects[slug] = Project(root)
            for pair in (p for p in pairs if p["project"] == slug):
                queries = [" ".join(bench.words(pair["older"]))]
                queries += [
                    q["query"]
                    for q in questions
                    if {pair["older"], pair["newer"]} & set(q["relevant"])
                ]
                for query in queries:
                    case = recall(str(root), query)
                    case.update(project=slug, older=pair["older"], newer=pair["newer"])
                    case.update(terms=query_terms(query), dev=slug in bench.DEV)
                    amended.append(case)
    return quality, amended, projects


def row(
    name: str,
    moves: Rule,
    quality: list[dict[str, Any]],
    amended: list[dict[str, Any]],
    projects: dict[str, Project],
) -> str:
    parts = [[case for case in amended if case["dev"] == dev] for dev in (True, False)]
    asked = [[case for case in quality if case["dev"] == dev] for dev in (True, False)]
    asking = projects["quality"]
    return (
        f"| {name} | {newer_first_share(parts[0], moves, projects)} /"
        f" {newer_first_share(parts[1], moves, projects)}"
        f" | {newer_first_share(amended, moves, projects)}"
        f" | {quality_scores(asked[0], 'relevant', moves, asking)} /"
        f" {quality_scores(asked[1], 'relevant', moves, asking)}"
        f" | {quality_scores(quality, 'as they were', moves, asking)}"
        f" | {quality_scores(quality, 'relevant', moves, asking)} |"
    )


def main() -> None:
    quality, amended, projects = cases()
    print(
        "| recall rule | newer first: dev / held out | all | quality recall@1 / MRR@5,"
        " corrected: dev / held out | all, labels as they were | all, corrected |"
    )
    print("|---|---|---|---|---|---|")
    for name, moves in RULES:
        print(row(name, moves, quality, amended, projects))


if __name__ == "__main__":
    main()
