"""`mem portfolio add|list|remove`, `scan --register` and `status --portfolio`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.cli import RunMem
from support.portfolios import audited_portfolio
from support.trees import write

from mem.cli import app


def run(*args: str) -> Any:
    return CliRunner(catch_exceptions=False).invoke(app.cli, list(args))


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    directory = tmp_path / "_brain"
    directory.mkdir()
    return directory


def _projects(tmp_path: Path, *names: str) -> list[Path]:
    roots = []
    for name in names:
        root = tmp_path / name
        write(root / ".agents/memory/lessons.md", f"### {name} lesson\npostgres pooling\n")
        roots.append(root)
    return roots


def test_add_list_remove(tmp_path: Path, brain: Path) -> None:
    shop, billing = _projects(tmp_path, "shop", "billing")
    done = run("portfolio", "add", str(shop), str(billing), "--brain", str(brain))
    assert done.exit_code == 0, done.output
    assert done.stdout.count("mem portfolio: registered ") == 2
    again = run("portfolio", "add", str(shop), "--brain", str(brain))
    assert again.stdout.startswith(f"mem portfolio: already registered {shop.resolve()}")
    listed = json.loads(run("portfolio", "list", "--brain", str(brain), "--json").stdout)
    assert [(item["name"], item["path"], item["found"]) for item in listed["projects"]] == [
        ("billing", str(billing.resolve()), True),
        ("shop", str(shop.resolve()), True),
    ]
    index_md = (brain / "projects-index.md").read_text()
    assert f"`{shop.resolve()}`" in index_md and f"`{billing.resolve()}`" in index_md
    removed = run("portfolio", "remove", "shop", "--brain", str(brain))
    assert removed.stdout == (
        f"mem portfolio: unregistered shop ({shop.resolve()}); its files are untouched\n"
    )
    assert (shop / ".agents/memory/lessons.md").exists()
    text = run("portfolio", "list", "--brain", str(brain)).stdout
    assert (
        text
        == f"mem portfolio: 1 project(s) in {brain.resolve()}\n  billing  {billing.resolve()}\n"
    )


def test_add_is_all_or_nothing(tmp_path: Path, brain: Path) -> None:
    (shop,) = _projects(tmp_path, "shop")
    done = run("portfolio", "add", str(shop), str(tmp_path / "nowhere"), "--brain", str(brain))
    assert done.exit_code == 1
    assert done.stderr == (
        f"mem portfolio: Project directory does not exist: {(tmp_path / 'nowhere').resolve()}\n"
    )
    assert not (brain / "projects").exists()


def test_remove_refuses_an_ambiguous_or_unknown_name(tmp_path: Path, brain: Path) -> None:
    one, two = tmp_path / "a" / "api", tmp_path / "b" / "api"
    one.mkdir(parents=True)
    two.mkdir(parents=True)
    run("portfolio", "add", str(one), str(two), "--brain", str(brain))
    done = run("portfolio", "remove", "api", "--brain", str(brain), "--json")
    assert done.exit_code == 1
    assert "names more than one project" in json.loads(done.stdout)["error"]
    done = run("portfolio", "remove", "web", "--brain", str(brain))
    assert done.stderr == 'mem portfolio: No registered project has the path or name "web".\n'
    assert run("portfolio", "remove", str(two), "--brain", str(brain)).exit_code == 0


def test_a_vanished_project_is_listed_as_not_found(tmp_path: Path, brain: Path) -> None:
    shop, billing = _projects(tmp_path, "shop", "billing")
    run("portfolio", "add", str(shop), str(billing), "--brain", str(brain))
    shutil.rmtree(billing)
    text = run("portfolio", "list", "--brain", str(brain)).stdout
    assert f"  billing  {billing.resolve()}  (not found)\n" in text
    assert ", 1 not found" in text.splitlines()[0]


def test_the_linked_brain_is_the_default(tmp_path: Path, brain: Path) -> None:
    (shop,) = _projects(tmp_path, "shop")
    # `_brain/` in a parent folder is what detection finds (bmad-mem.md section 17).
    done = run("portfolio", "add", str(shop), "-d", str(shop))
    assert done.exit_code == 0, done.output
    assert str(brain.resolve()) in done.stdout


def test_no_brain_is_an_error(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    done = run("portfolio", "list", "-d", str(lonely))
    assert done.exit_code == 1
    assert done.stderr == "mem portfolio: No brain is linked or detected; run `mem init` first.\n"


def test_scan_register_registers_every_project_found(tmp_path: Path, brain: Path) -> None:
    for name in ("shop", "billing"):
        write(tmp_path / "dev" / name / "pyproject.toml", "[project]\n")
    done = run("scan", str(tmp_path / "dev"), "--register", "--brain", str(brain), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["indexed"] == 2
    listed = json.loads(run("portfolio", "list", "--brain", str(brain), "--json").stdout)
    assert [item["name"] for item in listed["projects"]] == ["billing", "shop"]
    entry = (brain / "projects").glob("*.yaml")
    assert all('stack: "Python"' in path.read_text() for path in entry)


def test_init_keeps_registering_in_the_global_brain(project: Path, run_mem: RunMem) -> None:
    assert run_mem("init", "-d", str(project)).returncode == 0
    listed = run_mem("portfolio", "list", "-d", str(project), "--json")
    assert json.loads(listed.stdout)["projects"][0]["path"] == str(project.resolve())


def test_status_portfolio_has_a_row_per_root(tmp_path: Path, run_mem: RunMem) -> None:
    brain, roots = audited_portfolio(tmp_path)
    (roots[0] / ".bmad/memory/writer.lock").write_text('{"pid":999999999,"hostname":"elsewhere"}')
    shutil.rmtree(roots[2])
    done = run_mem("status", "--portfolio", "--brain", str(brain), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    rows = {row["name"]: row for row in result["projects"]}
    assert list(rows) == ["_brain", "project-0", "project-1", "project-2"]
    assert rows["project-1"] == {
        "name": "project-1",
        "path": str(roots[1].resolve()),
        "role": "project",
        "found": True,
        "notes": 2,
        "events": 2,
        "lastWrite": "2023-11-14T22:13:20.000Z",
        "retired": 1,
        "evidenceChanged": 1,
        "lock": {"state": "free"},
    }
    assert rows["project-0"]["lock"] == {
        "state": "held",
        "pid": 999999999,
        "hostname": "elsewhere",
        "alive": None,
    }
    assert rows["project-2"]["found"] is False and rows["project-2"]["notes"] == 0
    assert result["missing"] == 1
    text = run_mem("status", "--portfolio", "--brain", str(brain)).stdout
    assert text.splitlines()[1].split() == [
        "project",
        "notes",
        "events",
        "last",
        "write",
        "retired",
        "evidence",
        "changed",
        "lock",
        "path",
    ]
    assert f"{roots[2].resolve()} (not found)" in text
