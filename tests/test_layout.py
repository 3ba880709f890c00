"""Every canonical path lives in mem/layout.py: no other module spells one out."""

from __future__ import annotations

import ast
from pathlib import Path

from mem import layout

PACKAGE = Path(__file__).resolve().parent.parent / "mem"
ROOTS = (".bmad/", ".agents/", ".bmad-plus/")


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def test_no_module_but_layout_spells_a_memory_path() -> None:
    offenders = []
    for module in sorted(PACKAGE.rglob("*.py")):
        if module == PACKAGE / "layout.py":
            continue
        tree = ast.parse(module.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and any(root in node.value for root in ROOTS)
            ):
                offenders.append(f"{module.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert offenders == []


def test_index_sources_keep_the_reference_candidate_order() -> None:
    ranks = [rank for rank, _, _ in layout.sources(layout.PROJECT)]
    assert ranks == sorted(set(ranks))
    assert max(ranks) < layout.ARCHIVE_RANK_BASE
    notes = [path for _, path, kind in layout.sources(layout.PROJECT) if kind == "notes"]
    assert notes == [
        ".bmad/memory/decisions.md",
        ".bmad/memory/lessons.md",
        ".bmad/memory/patterns.md",
        ".agents/memory/decisions.md",
        ".agents/memory/lessons.md",
        ".agents/memory/patterns.md",
    ]
    assert layout.sources(layout.PROJECT)[0] == (0, ".bmad/memory/journal.ndjson", "journal")


def test_every_path_is_listed_once_and_relative() -> None:
    for table in (layout.PROJECT, layout.BRAIN, layout.HOME):
        paths = [entry.path for entry in table]
        assert len(paths) == len(set(paths))
        assert all(not path.startswith("/") and ".." not in path.split("/") for path in paths)
