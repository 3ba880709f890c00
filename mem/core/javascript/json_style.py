"""A JSON file's own layout (indentation, separators, escapes, line ends), found and kept. Pure.

mem rewrites a person's settings file to put its hooks in and take them out. Written back
in the file's own layout, a file that was laid out as a JSON writer lays it out (compact,
two or four spaces, tabs; with or without a final newline; CRLF; `\\u` escapes or not)
comes back byte for byte once mem's hooks are taken out again. A file laid out by hand
in some other way keeps its indentation, and only that.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple


class Style(NamedTuple):
    indent: str | None  # None: all on one line
    item_separator: str
    key_separator: str
    ascii_only: bool
    newline: str
    ending: str  # what follows the closing brace: "", "\n", "\r\n"...


DEFAULT = Style("  ", ",", ": ", False, "\n", "\n")


def render(value: Any, style: Style) -> str:
    text = json.dumps(
        value,
        indent=style.indent,
        separators=(style.item_separator, style.key_separator),
        ensure_ascii=style.ascii_only,
    )
    if style.newline != "\n":
        text = text.replace("\n", style.newline)
    return text + style.ending


def detect(text: str, value: Any) -> Style:
    """The layout that writes value back as text exactly, else the nearest (its indentation)."""
    body = text.rstrip()
    ending = text[len(body) :]
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    indent = None
    if len(lines) > 1:
        second = lines[1]
        indent = second[: len(second) - len(second.lstrip(" \t"))] or None
    separators = [(",", ": ")] if indent is not None else [(",", ":"), (", ", ": ")]
    candidates = [
        Style(indent, item, key, ascii_only, newline, ending)
        for item, key in separators
        for ascii_only in (False, True)
    ]
    for style in candidates:
        if render(value, style) == text:
            return style
    return candidates[0]
