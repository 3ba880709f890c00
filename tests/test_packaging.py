"""A wheel built from the tree installs (not editable) and answers a recall, offline.

The wheel is built from a copy of the tracked sources, installed into a fresh virtual
environment that sees this environment's dependencies but not the editable checkout, and
run on a copy of the demo project.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest
from support import FIXTURES, REPO

SOURCES = ("pyproject.toml", "README.md", "LICENSE", "mem", "migrations")


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _python(python: Path, code: str) -> str:
    """Run code in the fresh environment, away from the checkout (`-c` imports from its cwd)."""
    return _run(python, "-c", code, cwd=python.parent).strip()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the python of a fresh environment it is installed in)."""
    work = tmp_path_factory.mktemp("packaging")
    tree = work / "tree"
    tree.mkdir()
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tree / name)
    dist = work / "dist"
    pip = (sys.executable, "-m", "pip")
    _run(*pip, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", dist, tree)
    (wheel,) = dist.glob("*.whl")
    venv = work / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = _python(python, "import sysconfig; print(sysconfig.get_path('purelib'))")
    # The dependencies come from this environment's site-packages, added as a plain path:
    # its .pth files (the editable checkout among them) are not read.
    dependencies = Path(click.__file__).resolve().parent.parent
    (Path(site) / "dependencies.pth").write_text(f"{dependencies}\n", encoding="utf-8")
    _run(*pip, "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel)
    return wheel, python


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_the_schema(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    modules = {str(path.relative_to(REPO)) for path in (REPO / "mem").rglob("*.py")}
    assert modules <= names
    assert {"mem/migrations/schema.sql", "mem/py.typed"} <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


@pytest.mark.slow
def test_the_installed_distribution_has_a_free_name_a_license_and_urls(
    installed: tuple[Path, Path],
) -> None:
    _, python = installed
    script = (
        "import importlib.metadata as m, json\n"
        "d = m.distribution('mem-project')\n"
        "print(json.dumps({k: d.metadata.get_all(k) for k in"
        " ('Name', 'Version', 'License-Expression', 'Project-URL', 'Author', 'Classifier')}))\n"
    )
    metadata = json.loads(_python(python, script))
    assert metadata["Name"] == ["mem-project"]
    assert metadata["License-Expression"] == ["MIT"]
    assert metadata["Author"] == ["the mem authors"]
    urls = dict(url.split(", ", 1) for url in metadata["Project-URL"])
    assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    assert metadata["Version"] == [_python(python, "import mem; print(mem.__version__)")]


@pytest.mark.slow
def test_the_installed_mem_answers_a_recall_from_its_own_copy(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, python = installed
    location = _python(python, "import mem; print(mem.__file__)")
    purelib = _python(python, "import sysconfig; print(sysconfig.get_path('purelib'))")
    assert location.startswith(purelib)
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "demo", project, symlinks=True)
    mem = python.parent / "mem"
    recalled = _run(mem, "recall", "postgres", cwd=project)
    assert recalled.startswith('mem recall: 4 match(es) for "postgres" (scope: project)\n')
    assert _run(mem, "index", "check", cwd=project).startswith("mem index check: ok")
    assert "Recall & write:" in _run(mem, "--help", cwd=project)
