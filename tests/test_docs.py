"""The docs a user reads: every command explains itself and is in the generated CLI
reference, which is what the commands print; links between pages resolve; every
environment variable is in one table; the README stays short."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from support import REPO

from mem.cli import app

CLI_REFERENCE = REPO / "docs" / "cli.md"
# The pages that link to one another: the README, docs/, the CHANGELOG and bench's README.
PAGES = sorted(
    [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "bench" / "README.md"]
    + list((REPO / "docs").glob("*.md"))
)


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    """Every command below `group`, each loaded (the top level loads a command when asked)."""
    found = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found.extend(_commands(command, f"{prefix} {name}"))
    return found


COMMANDS = _commands(app.cli, "mem")


def _generated_help() -> dict[str, str]:
    """The reference's help blocks, by command: `### `mem index path --help`` and its block."""
    text = CLI_REFERENCE.read_text(encoding="utf-8")
    found = re.findall(r"^### `(mem(?: [a-z-]+)*) --help`\n\n```\n(.*?)\n```$", text, re.M | re.S)
    return dict(found)


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_command_has_help_and_is_documented(name: str, command: click.Command) -> None:
    assert command.help and command.help.strip(), f"{name} has no help text"
    assert name in _generated_help(), f"{name} is missing from docs/cli.md: run `make docs`"


def test_the_reference_is_what_the_commands_print() -> None:
    runner = CliRunner(catch_exceptions=False)
    shown = _generated_help()
    assert set(shown) == {"mem", *(name for name, _ in COMMANDS)}
    for name, text in shown.items():
        # At a terminal of 80 columns or more click wraps help to 78 (CliRunner forces 80).
        args = [*name.split()[1:], "--help"]
        done = runner.invoke(app.cli, args, prog_name="mem", terminal_width=78)
        assert done.exit_code == 0, name
        assert done.stdout == text + "\n", f"docs/cli.md shows an old `{name} --help`"


def test_the_generated_reference_is_up_to_date() -> None:
    """cog regenerates docs/cli.md from the click commands; `make docs` writes what it finds."""
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "--diff", str(CLI_REFERENCE)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"run `make docs`:\n{done.stdout}{done.stderr}"


def _prose(page: Path) -> str:
    """A page without its code blocks and comments (the generator's code among them)."""
    text = re.sub(r"^ *```.*?^ *```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings."""
    text = _prose(page)
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchor, copy = slug, 1
        while anchor in anchors:  # a repeated heading gets -1, -2, ...
            anchor, copy = f"{slug}-{copy}", copy + 1
        anchors.add(anchor)
    return anchors


def _links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", _prose(page)))


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_links_between_pages_resolve(page: Path) -> None:
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue  # a web address
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{page.name}: {link} names no file"
        if anchor:
            assert path.suffix == ".md", f"{page.name}: {link} is an anchor outside Markdown"
            assert anchor in _anchors(path), f"{page.name}: {link} names no heading"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_every_source_and_test_path_a_page_cites_exists(page: Path) -> None:
    cited = set(re.findall(r"\b(?:mem|tests)/[\w/.-]*?\.py\b", page.read_text(encoding="utf-8")))
    missing = sorted(path for path in cited if not (REPO / path).is_file())
    assert not missing, f"{page.name} cites files that moved or went: {missing}"


def test_the_readme_is_short_and_links_to_every_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 250
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    for page in (REPO / "docs").glob("*.md"):
        if page.name != "README.md":
            assert f"]({page.name})" in index, f"docs/README.md does not list {page.name}"
    assert "](docs/README.md)" in readme
    assert "make test" in readme  # CI runs the test command the README names


def _environment_variables(source: Path) -> set[str]:
    """Every name a module reads from os.environ: `.get(...)`, `[...]` and `... in`."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def is_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ"

    def name(node: ast.AST) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        assert isinstance(node, ast.Name) and node.id in constants, ast.dump(node)
        return constants[node.id]

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "getenv") and (
                is_environ(node.func.value) or node.func.attr == "getenv"
            ):
                names.add(name(node.args[0]))
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            names.add(name(node.slice))
        elif isinstance(node, ast.Compare) and any(map(is_environ, node.comparators)):
            names.add(name(node.left))
    return names


def test_every_environment_variable_is_in_the_table() -> None:
    read = set().union(*map(_environment_variables, (REPO / "mem").rglob("*.py")))
    assert {"MEM_CACHE_DIR", "MEM_NOW", "MEM_BUILD_WORKERS"} <= read
    table = (REPO / "docs" / "environment.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z_]+)`", table, re.M))
    assert read <= documented, f"docs/environment.md lacks {sorted(read - documented)}"


def test_every_deviation_the_docs_cite_has_one_row_in_the_compatibility_table() -> None:
    """A `D<n>` named anywhere in the README or docs/ is a row of docs/compatibility.md's
    deviation table, and no number names two rows."""
    compatibility = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (D\d+) \|", compatibility, re.M)
    assert len(rows) == len(set(rows)), sorted(rows)
    cited: dict[str, str] = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for number in re.findall(r"\bD\d+\b", page.read_text(encoding="utf-8")):
            cited.setdefault(number, page.name)
    assert {number: page for number, page in cited.items() if number not in rows} == {}


def test_init_adding_the_per_machine_files_to_gitignore_is_a_deviation() -> None:
    compatibility = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    row = next(line for line in compatibility.splitlines() if "to `.gitignore`" in line)
    assert row.startswith("| D15 | ")
    assert "`.agents/memory/.brain-link`" in row and "`.bmad/memory/writer.lock`" in row
    assert "never rewritten" in row
