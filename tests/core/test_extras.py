"""The install hint for a missing extra is the README's, and names what pyproject declares."""

from __future__ import annotations

import re
import tomllib

import pytest
from support import REPO

from mem.core.prose import extras


@pytest.mark.parametrize("extra", ["mcp", "web"])
def test_the_hint_installs_what_pyproject_declares_as_the_readme_says(extra: str) -> None:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert [extras.REQUIREMENTS[extra]] == declared["project"]["optional-dependencies"][extra]
    hint = extras.install_hint(extra)
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    pipx = re.match(r"(pipx inject mem-project '[^']+')", hint)
    assert pipx is not None and f"`{pipx[1]}`" in readme
    assert hint.endswith(f"(with pip: pip install './mem-project[{extra}]')")
    assert "pip install './mem-project[" in readme  # the README's pip form: from the checkout
    # Never the form that needs a release on PyPI.
    assert f"'mem-project[{extra}]'" not in hint
