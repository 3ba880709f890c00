"""Imports point one way: the CLI calls a library; parsing, scoring and rendering stay pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mem"
PURE = {"js", "parse", "score", "render"}
IMPURE = {
    "os",
    "time",
    "sqlite3",
    "subprocess",
    "socket",
    "mem.files",
    "mem.index",
    "mem.sync",
    "mem.clock",
}


def _imports(module: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


MODULES = sorted(path for path in PACKAGE.glob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.stem)
def test_module_imports_point_one_way(module: Path) -> None:
    imports = _imports(module)
    name = module.stem
    if name != "cli":
        assert "click" not in imports, f"{name} imports click: only the CLI may"
    if name not in ("cli", "__main__", "entry"):  # the executable hands unusual arguments to click
        assert "mem.cli" not in imports
    if name != "index":
        assert "sqlite3" not in imports, f"{name} talks to SQLite: only mem.index may"
        assert "sqlite_utils" not in imports
    if name in PURE:
        assert not imports & IMPURE, f"{name} must stay pure: {sorted(imports & IMPURE)}"
