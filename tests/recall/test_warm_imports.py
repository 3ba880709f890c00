"""What a plain recall may import: its own modules, and none of the heavy standard ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.portfolios import audited_portfolio
from support.trees import age_tree

import mem

# Start-up care lives in one place: the modules a plain recall loads. They import no
# module of FORBIDDEN at run time (their record types are plain slotted classes), and a
# warm recall loads exactly WARM_PATH; one that must first apply a write adds SYNC_PATH.
WARM_PATH = {
    "mem",
    "mem.cli",
    "mem.cli.commander",
    "mem.cli.fast",
    "mem.cli.main",
    "mem.cli.options",
    "mem.clock",
    "mem.commands",
    "mem.commands.recall",
    "mem.core",
    "mem.core.ranking",
    "mem.core.text",
    "mem.core.javascript",
    "mem.core.javascript.js",
    "mem.core.javascript.jsmath",
    "mem.core.text.parse",
    "mem.core.ranking.score",
    "mem.core.text.tokens",  # the bm25 ranking's tokenizer: a module without imports of its own
    "mem.domain",
    "mem.domain.recall",
    "mem.errors",
    "mem.files",
    "mem.files.brain",
    "mem.files.index_sources",
    "mem.files.regular_files",  # open_regular, moved out of safe_paths for settings.py's use
    "mem.files.safe_paths",
    "mem.files.settings",
    "mem.files.team",
    "mem.index",
    "mem.index.connection",
    "mem.index.freshness",
    "mem.index.lexical",
    "mem.index.location",
    "mem.index.opening",
    "mem.index.postings",
    "mem.index.queries",
    "mem.index.rows",
    "mem.index.topk",
    "mem.layout",
    "mem.render",
    "mem.render.action_views",
}
SYNC_PATH = {
    "mem.index.records",
    "mem.index.resync",
    "mem.index.sync",
    "mem.index.tables",
}
# Each costs a recall from 1 to 20 ms on this project's machines: typing alone costs more
# than a warm recall's query (and brings re, enum and contextlib with it).
FORBIDDEN = {
    "typing",
    "re",
    "enum",
    "contextlib",
    "dataclasses",
    "inspect",
    "tempfile",
    "shutil",
    "logging",
    "threading",
    "click",
    "filelock",
    "detect_secrets",
    "mcp",
}


def _mem_modules(modules: set[str]) -> set[str]:
    return {name for name in modules if name == "mem" or name.startswith("mem.")}


def _forbidden(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in FORBIDDEN)


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


def test_a_warm_recall_loads_its_own_path_and_nothing_else(project: Path) -> None:
    for path in project.rglob("*"):
        os.utime(path, ns=(1_700_000_000 * 10**9, 1_700_000_000 * 10**9))
    _imported_by_recall(project)  # builds the index: writers may import what they need
    modules = _imported_by_recall(project)
    assert _mem_modules(modules) == WARM_PATH
    assert _forbidden(modules) == []


def test_a_recall_after_a_write_adds_only_the_sync(project: Path) -> None:
    """The files are racily clean (just written), and the journal grew: the recall applies
    the new lines under SQLite's own lock, without the writers' lock or a rebuild."""
    _imported_by_recall(project)
    journal = project / ".bmad/memory/journal.ndjson"
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"ts":"2026-10-18T09:00:00.000Z","agent":"a","task":"postgres"}\n')
    modules = _imported_by_recall(project)
    assert _mem_modules(modules) == WARM_PATH | SYNC_PATH
    assert _forbidden(modules) == []


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
def test_every_plain_recall_stays_on_the_recall_path(
    project: Path, now: str | None, words: tuple[str, ...]
) -> None:
    env = {key: value for key, value in os.environ.items() if key != "MEM_NOW"}
    if now is not None:
        env["MEM_NOW"] = now
    _imported_by_recall(project, *words, env=env)  # builds the index
    modules = _imported_by_recall(project, *words, env=env)
    assert _mem_modules(modules) <= WARM_PATH | SYNC_PATH
    assert _forbidden(modules) == []


def test_a_warm_recall_across_the_portfolio_imports_nothing_forbidden(tmp_path: Path) -> None:
    _, roots = audited_portfolio(tmp_path)
    age_tree(tmp_path)  # settled files: the check's stat batch decides, no root is read
    words = ("pgbouncer", "--scope", "all")
    _imported_by_recall(roots[0], *words)  # builds the portfolio index
    modules = _imported_by_recall(roots[0], *words)
    assert "mem.index.portfolio" in modules
    assert _forbidden(modules) == []


# What a warm recall with --include-history adds (HEAD unchanged: read from .git's files).
HISTORY_PATH = {"mem.domain.history", "mem.files.history", "mem.index.bm25", "mem.index.history"}


def test_a_warm_recall_with_history_adds_only_the_commits(git_project: Path) -> None:
    """typing (and the re it imports) cost a warm recall with history on a third more
    instructions than one with it off: the commits' modules add no heavy module."""
    words = ("retry", "--ranking", "bm25")
    _imported_by_recall(git_project, *words, "--include-history")  # indexes notes and commits
    without = _imported_by_recall(git_project, *words)
    modules = _imported_by_recall(git_project, *words, "--include-history")
    assert _mem_modules(modules) - _mem_modules(without) == HISTORY_PATH - without
    assert _forbidden(modules) == _forbidden(without)


# The modules a warm recall loads with the other ranking, with history or across the
# portfolio (whose first read of a root may show progress).
RECALL_PATH = (
    WARM_PATH
    | SYNC_PATH
    | HISTORY_PATH
    | {
        "mem.core.ranking.amendments",
        "mem.domain.amendments",
        "mem.index.bm25",
        "mem.index.portfolio",
        "mem.files.brain",
        "mem.cli.progress",
    }
)
# git is asked only when HEAD moved: subprocess and the commit parser load then, not before.
LAZY_GIT = {"mem.files.history", "mem.files.worktree"}


def test_only_the_recall_path_hides_imports_from_run_time() -> None:
    """Start-up care in one place: `TYPE_CHECKING = False` (typing costs a warm recall about
    10 % of its CPU) and hand-written slotted records belong to the modules a recall loads;
    every other module imports what its annotations name at the top."""
    package = Path(mem.__file__).parent
    hiding = {
        ".".join(("mem", *path.relative_to(package).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for path in package.rglob("*.py")
        if "\nTYPE_CHECKING = False\n" in path.read_text(encoding="utf-8")
    }
    assert sorted(hiding - RECALL_PATH - LAZY_GIT) == []
