"""How to add an optional extra, in the README's words: there is no release on PyPI yet, so
`pip install 'mem-project[mcp]'` cannot work; pipx users inject the extra's requirement,
pip users install the extra from their checkout."""

from __future__ import annotations

# Each extra's requirement, as pyproject.toml declares it (tests/core/test_extras.py checks).
REQUIREMENTS = {"mcp": "mcp>=2.3", "web": "datasette>=0.65,<1.0"}


def install_hint(extra: str) -> str:
    """The commands that add `extra` to the environment mem runs in."""
    return (
        f"pipx inject mem-project '{REQUIREMENTS[extra]}'"
        f" (with pip: pip install './mem-project[{extra}]')"
    )
