"""The house has visible layers: each package imports only the layers below it.

    cli  ->  mcp  ->  commands  ->  domain  ->  index, files  ->  core  ->  layout, errors
                      commands  ->  render (pure)  ->  core

`mcp` (the MCP server) is a second front end beside the CLI that never touches click; only
`mem mcp` in the CLI starts it. Both front ends call a command's entry function, never the
domain below it. A command is a leaf: no `mem.commands` module imports another one; what
two commands share lives in `domain` (the readers of the stores, the audit, the registry).
The domain hands back values: it renders nothing and is told the time.
`clock` (the one reading of "now") sits beside the commands: only the CLI and the
commands ask for the time, and they hand it down as a value.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mem"

# package -> the mem packages it may import (itself always allowed)
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "layout": {"errors"},
    "core": {"errors", "layout"},
    "files": {"core", "errors", "layout"},
    "index": {"files", "core", "errors", "layout"},
    "render": {"core", "errors", "layout"},
    "clock": {"core", "errors"},
    "domain": {"index", "files", "core", "errors", "layout"},
    "commands": {
        "domain",
        "index",
        "files",
        "render",
        "core",
        "clock",
        "errors",
        "layout",
    },
    "mcp": {"commands", "index", "files", "render", "core", "clock", "errors", "layout"},
    "cli": {
        "mcp",
        "commands",
        "index",
        "files",
        "render",
        "core",
        "clock",
        "errors",
        "layout",
    },
    "__main__": {"cli"},
    "__init__": set(),
}
# third-party and standard modules that only one layer may touch
ONLY_IN = {
    "click": {"cli"},
    "sqlite3": {"index"},
    "sqlite_utils": {"index"},
    "filelock": {"index", "files"},
    "subprocess": {"files"},
    "mcp": {"mcp"},
    "datasette": {"commands", "cli"},
}
PURE = {"core", "render"}
IMPURE = {"os", "time", "sqlite3", "subprocess", "socket", "shutil", "tempfile", "pathlib"}


def _imports(module: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _layer(module: Path) -> str:
    relative = module.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_module_imports_point_one_way(module: Path) -> None:
    layer = _layer(module)
    assert layer in ALLOWED, f"{layer} is a new layer: give it a rule here"
    imports = _imports(module)
    mem_layers = {name.split(".")[1] for name in imports if name.startswith("mem.")}
    mem_layers.discard(layer)
    mem_layers &= set(ALLOWED)  # `from mem import files` also yields the name mem.files
    assert mem_layers <= ALLOWED[layer], (
        f"{layer} may not import {sorted(mem_layers - ALLOWED[layer])}"
    )
    top_level = {name.split(".")[0] for name in imports}
    for library, layers in ONLY_IN.items():
        if library in top_level and not (library == "mcp" and layer == "mcp"):
            assert layer in layers, f"{module.name} imports {library}: only {sorted(layers)} may"
    if layer in PURE:
        assert not top_level & IMPURE, f"{layer} must stay pure: {sorted(top_level & IMPURE)}"


def _submodule_imports(module: Path, names: dict[str, Path]) -> set[str]:
    """The mem modules an import statement loads: `from mem.index import sync` loads
    mem.index.sync (after the package's __init__, which only re-exports), not a name
    of mem.index itself."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in names)
        elif isinstance(node, ast.ImportFrom) and node.module in names:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(submodules & names.keys())
            if submodules - names.keys():  # a name the package itself defines or re-exports
                found.add(node.module)
    return found


COMMANDS = sorted((PACKAGE / "commands").glob("*.py"))


@pytest.mark.parametrize("module", COMMANDS, ids=lambda path: path.name)
def test_a_command_imports_no_other_command(module: Path) -> None:
    siblings = sorted(name for name in _imports(module) if name.startswith("mem.commands"))
    assert not siblings, f"{module.name} imports {siblings}: move what they share to mem.domain"


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    names = {
        ".".join(("mem", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): path
        for path in MODULES
    }
    for name, path in names.items():
        targets = set()
        for imported in _submodule_imports(path, names):
            if imported != name:
                targets.add(imported)
        graph[name] = targets
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycle = trail[trail.index(target) :] if target in trail else trail
                raise AssertionError(f"import cycle: {' -> '.join([*cycle, target])}")
            if target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def _private_stdlib(name: str) -> bool:
    """`_json`, `collections._count_elements`: CPython's internals, which change without notice."""
    parts = name.split(".")
    return (
        parts[0] in sys.stdlib_module_names
        and parts[0] != "__future__"
        and any(part.startswith("_") for part in parts)
    )


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_private_stdlib_module(module: Path) -> None:
    private = sorted(name for name in _imports(module) if _private_stdlib(name))
    assert not private, f"{module.name} imports {private}: use the public API"
