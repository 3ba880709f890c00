"""Which notes govern a file about to change: named strictly, a common word never enough."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.git import git

from mem.core.rules.edit_targets import Edit
from mem.domain import edits

DECISIONS = ".agents/memory/decisions.md"


def _governing(project: Path, notes: dict[str, str], path: str, text: str = "") -> list[str]:
    """The headings of the notes that govern `path` (relative to the project), best first."""
    body = "".join(f"\n### {heading}\n{note}\n" for heading, note in notes.items())
    (project / DECISIONS).write_text("# Decisions\n" + body, encoding="utf-8")
    found, _ = edits.governing(str(project), Edit([path], text), str(project.resolve()), set(), 10)
    return [entry.heading or "" for entry in found]


@pytest.mark.parametrize(
    ("path", "governs"),
    [
        # Paths first, then names; the later note first among equals.
        ("mem/index/bm25.py", ["folder and name", "whole path", "module", "name", "word"]),
        ("mem/index/__init__.py", ["package"]),
        ("src/index.js", ["generic with folder"]),
        ("index.js", []),  # a bare `index.js` names a kind of file, wherever it is
        ("mem/index/queries.py", []),
    ],
)
def test_the_ways_a_note_names_a_file(project: Path, path: str, governs: list[str]) -> None:
    notes = {
        "whole path": "Keep `mem/index/bm25.py` free of I/O.",
        "folder and name": "See index/bm25.py: postings on demand.",
        "name": "bm25.py builds its postings lazily.",
        "module": "The scorer in mem.index.bm25.search bounds each band.",
        "word": "bm25 beats the lexical ranking on long prompts.",
        "package": "Readers import only what `mem.index` re-exports.",
        "submodule": "mem.index.cache was dropped.",
        "generic alone": "index.js exports the router.",
        "generic with folder": "src/index.js exports the router.",
        "common word": "The index is disposable: rebuild the index, never edit the index.",
    }
    assert _governing(project, notes, path) == governs


def test_a_module_word_must_be_rare_and_written_as_code(project: Path) -> None:
    notes = {
        "prose": "The parser fails on tabs.",
        "code": "Call `parser` only from the loader.",
        "call": "parser() returns a tree.",
    }
    assert _governing(project, notes, "src/parser.py") == ["call", "code"]
    crowded = {f"note {n}": f"`widget` number {n}" for n in range(6)}
    assert _governing(project, crowded, "src/widget.py") == []  # held by most of the notes
    crowded["named"] = "src/widget.py draws it."
    assert _governing(project, crowded, "src/widget.py") == ["named"]


def test_the_names_an_edit_defines_bring_the_notes_that_name_them(project: Path) -> None:
    notes = {"strict": "`parse_settings()` refuses unknown keys.", "other": "Unrelated."}
    assert _governing(project, notes, "src/x.py", "def parse_settings(text):") == ["strict"]
    assert _governing(project, notes, "src/x.py", "parse_settings(text)") == []


def test_a_path_outweighs_a_name_and_ties_go_to_the_newer(project: Path) -> None:
    notes = {
        "2026-01-01 — word": "bm25 ranks.",
        "2026-01-02 — older path": "mem/index/bm25.py is pure.",
        "2026-01-03 — newer path": "mem/index/bm25.py is fast.",
    }
    assert _governing(project, notes, "mem/index/bm25.py") == [
        "2026-01-03 — newer path",
        "2026-01-02 — older path",
        "2026-01-01 — word",
    ]


def test_paths_outside_the_project_or_in_its_memory_are_no_targets(
    project: Path, tmp_path: Path
) -> None:
    root = str(project.resolve())
    found = edits.targets(root, root, ["../x.py", str(tmp_path / "y.py"), DECISIONS, "a/./b.py"])
    assert [target.path for target in found] == ["a/b.py"]


def test_a_name_many_folders_hold_counts_bare_only_when_git_holds_one(
    git_project: Path,
) -> None:
    notes = {"bare": "build.rs now links statically.", "kind": "Every .gitignore is read."}
    (git_project / "build.rs").write_text("fn main() {}\n", encoding="utf-8")
    git(git_project, "add", "build.rs")
    assert _governing(git_project, notes, "build.rs") == ["bare"]
    assert _governing(git_project, notes, ".gitignore") == []  # names a kind of file
    (git_project / "crates").mkdir()
    (git_project / "crates/build.rs").write_text("fn main() {}\n", encoding="utf-8")
    git(git_project, "add", "crates/build.rs")
    assert _governing(git_project, notes, "build.rs") == []
