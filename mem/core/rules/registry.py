"""A brain's project registry: `projects/<hash>.yaml` entries (bmad-mem.md 16-17). Pure.

An entry is `key: <JSON value>` lines, as the reference writes them. The registered
projects of a brain, with the brain itself, make the portfolio that `recall --scope all`
searches and the portfolio index mirrors.
"""

from __future__ import annotations

from mem import layout
from mem.core.javascript import js

ENTRY_DIRECTORY = layout.BRAIN_PROJECTS
ENTRY_SUFFIX = ".yaml"
# `key: value`: compiled where an entry is read, as a recall across the portfolio that
# reads none would otherwise import re (and the enum it imports) for it, 3-6 ms.
_LINE = r"^(\w+):\s*(.*)$"


def entry_text(fields: dict[str, object]) -> str:
    """`key: <JSON value>` lines, no trailing newline, as the reference writes them."""
    return "\n".join(f"{key}: {js.stringify(value)}" for key, value in fields.items())


def read_entry(text: str) -> dict[str, object]:
    """The fields of an entry; a value that is not JSON is kept as its raw text."""
    import re

    entry: dict[str, object] = {}
    line_pattern = re.compile(_LINE)
    for line in text.split("\n"):
        match = line_pattern.match(line)
        if match:
            raw = match.group(2).strip()
            try:
                entry[match.group(1)] = js.parse_json(raw)
            except ValueError:
                entry[match.group(1)] = raw
    return entry


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def index_rows(data: bytes) -> list[tuple[str, dict[str, object]]]:
    """The `registry` row of one entry file, for the portfolio index."""
    entry = read_entry(data.decode("utf-8", errors="replace"))
    return [
        (
            "registry",
            {
                "path": _text(entry.get("path")),
                "name": _text(entry.get("name")),
                "stack": _text(entry.get("stack")),
                "status": _text(entry.get("status")),
                "last_scanned": _text(entry.get("last_scanned")),
                "entry": js.stringify(entry),
            },
        )
    ]


def project_name(entry_name: str | None, path: str) -> str:
    """An entry's name, else the folder's name."""
    if entry_name and js.trim(entry_name):
        return entry_name
    return path.rstrip("/").rsplit("/", 1)[-1] or path
