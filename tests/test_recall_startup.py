"""A warm recall stays light: no sqlite_utils, no filelock, no typing, no re."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from portfolio_support import age_tree, audited_portfolio

HEAVY = ("sqlite_utils", "filelock")
# Code only some recalls need: a plain recall does not load it.
ON_DEMAND = ("mem.core.explain", "mem.core.secrets", "mem.mcp")
# Standard modules a plain recall does without, each costing it from 0.3 to 5 ms to import:
# typing (annotations are strings; NamedTuples come from mem.tuples), datetime (the sqlite3
# package's adapters; mem.index imports _sqlite3), re and the enum it imports (patterns
# are compiled where a command needs them; js.parse_date reads "now" without one),
# contextlib (the index opens through plain context managers), array (postings groups are
# read through memoryview) and heapq.py (topk takes _heapq's functions).
UNUSED_STDLIB = ("typing", "datetime", "sqlite3", "re", "enum", "contextlib", "array", "heapq")
# What the console script runs (pip's wrapper imports nothing more since pip 25); `-m mem`
# would go through runpy, which imports contextlib itself.
CONSOLE_SCRIPT = "import sys; from mem.cli.main import main; sys.argv[0] = 'mem'; main()"


def _imported_by_recall(project: Path, *words: str, env: dict[str, str] | None = None) -> set[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            CONSOLE_SCRIPT,
            "recall",
            *(words or ["postgres"]),
        ]
        + ["-d", str(project)],
        capture_output=True,
        text=True,
        check=True,
        cwd=project,
        env=env,
    )
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize("files_are_old", [True, False], ids=["stat-trusted", "racily-clean"])
def test_warm_recall_imports_nothing_heavy(project: Path, files_are_old: bool) -> None:
    if files_are_old:
        for path in project.rglob("*"):
            os.utime(path, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    _imported_by_recall(project)  # builds the index: writers may import what they need
    modules = _imported_by_recall(project)
    assert "mem.commands.recall" in modules
    assert not [name for name in modules if name.split(".")[0] in HEAVY]
    assert not [name for name in modules if name.startswith(ON_DEMAND)]
    assert not [name for name in modules if name in UNUSED_STDLIB]


# "now" as tests pin it (to the millisecond and to the second) and, unset, the clock's own.
NOWS = ["2026-10-18T09:30:00.000Z", "2026-10-18T09:30:00Z", None]


@pytest.mark.parametrize("now", NOWS, ids=["pinned-ms", "pinned-s", "clock"])
@pytest.mark.parametrize(
    "words",
    [
        ("postgres",),
        ("connection", "pooling"),
        ("the",),
        ("the", "postgres", "cache", "pool", "zz"),
        ("postgres", "--json"),  # an event among the results, as JSON
    ],
    ids=["one-word", "two-words", "common-word", "five-words", "json"],
)
def test_plain_recall_imports_no_unused_stdlib(
    project: Path, now: str | None, words: tuple[str, ...]
) -> None:
    env = {key: value for key, value in os.environ.items() if key != "MEM_NOW"}
    if now is not None:
        env["MEM_NOW"] = now
    _imported_by_recall(project, *words, env=env)  # builds the index
    modules = _imported_by_recall(project, *words, env=env)
    assert "mem.index.topk" in modules
    assert sorted(name for name in modules if name in UNUSED_STDLIB) == []


def test_warm_recall_across_the_portfolio_imports_no_unused_stdlib(tmp_path: Path) -> None:
    _, roots = audited_portfolio(tmp_path)
    age_tree(tmp_path)  # settled files: the check's stat batch decides, no root is read
    words = ("pgbouncer", "--scope", "all")
    _imported_by_recall(roots[0], *words)  # builds the portfolio index
    modules = _imported_by_recall(roots[0], *words)
    assert "mem.index.portfolio" in modules
    assert not [name for name in modules if name.split(".")[0] in HEAVY]
    assert sorted(name for name in modules if name in UNUSED_STDLIB) == []
