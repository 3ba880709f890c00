"""What each table, view and column of a schema means, read from the schema's own comments.

The schema files document themselves, so the descriptions `mem browse` shows can never
drift from the tables they describe. The conventions, all in plain SQL comments:

- a table's or view's description is the block of `--` lines right above its CREATE;
- a column's is the comment at the end of its line (for a view: the line that selects it),
  after any comment lines right above that line, and before any comment-only lines right
  below it whose `--` stands in the same place (a trailing comment continued);
- a column that the statement does not spell out (a virtual table whose module defines
  its columns, such as fts5vocab) is described in the block above, one indented
  `--   name: description` line each.

Pure: text in, descriptions out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_CREATE = re.compile(
    r"^CREATE\s+(?:VIRTUAL\s+TABLE|TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"(?P<name>\"[^\"]+\"|\w+)",
    re.IGNORECASE,
)
_DECLARED_COLUMN = re.compile(r"^--\s{2,}(?P<name>\w+):\s+(?P<text>\S.*)$")
_CONSTRAINT = re.compile(r"^(?:CONSTRAINT|PRIMARY\s+KEY|UNIQUE|CHECK|FOREIGN\s+KEY)\b", re.I)
_OPTION = re.compile(r"^\w+\s*=")  # a virtual table's module option: tokenize = ...
_LEADING_NAME = re.compile(r"^(?P<name>\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|\w+)")
_SELECTED_NAME = re.compile(
    r"(?:\bAS\s+|\.|^(?:SELECT\s+)?)(?P<name>\"[^\"]+\"|\w+)\s*,?\s*$", re.IGNORECASE
)


@dataclass(slots=True)
class TableDoc:
    description: str = ""
    columns: dict[str, str] = field(default_factory=dict)


def describe(sql: str) -> dict[str, TableDoc]:
    """name -> its description and its columns' descriptions, in schema order."""
    docs: dict[str, TableDoc] = {}
    above: list[str] = []  # the comment block right above the current line
    current: TableDoc | None = None
    continued: tuple[str, int] | None = None  # last trailing comment: column, where its -- is
    is_view = False
    for raw in sql.splitlines():
        code, comment = _split_comment(raw)
        if current is None:
            if not code:
                above = [*above, comment] if comment is not None else []
                continue
            match = _CREATE.match(code)
            if match is None:
                above = []
                continue
            current = docs.setdefault(_unquote(match["name"]), TableDoc())
            current.description = _join(line for line in above if not _declared(line))
            for line in above:
                declared = _DECLARED_COLUMN.match(f"--{line}")
                if declared:
                    current.columns[declared["name"]] = declared["text"].strip()
            is_view = code.upper().startswith("CREATE VIEW")
            above = []
            if code.rstrip().endswith(";"):
                current = None
            continue
        if not code:
            if comment is not None and continued is not None and _comment_at(raw) == continued[1]:
                current.columns[continued[0]] += " " + comment.strip()
            elif comment is not None:
                above.append(comment)
                continued = None
            continue
        name = _column_name(code, is_view, comment is not None)
        continued = None
        if name is not None:
            text = _join([*above, *([comment] if comment is not None else [])])
            if text:
                current.columns[name] = text
                if comment is not None:
                    continued = (name, _comment_at(raw))
        above = []
        if code.rstrip().endswith(";"):
            current = None
    return docs


def _comment_at(line: str) -> int:
    code, _ = _split_comment(line)
    return len(line) - len(line[len(code) :].lstrip())  # the column of its `--`


def _declared(line: str) -> bool:
    return _DECLARED_COLUMN.match(f"--{line}") is not None


def _column_name(code: str, is_view: bool, commented: bool) -> str | None:
    stripped = code.strip()
    if is_view:
        # Only a commented line of the select list names a column worth describing.
        if not commented or re.match(r"^(FROM|WHERE|JOIN|GROUP|ORDER)\b", stripped, re.I):
            return None
        match = _SELECTED_NAME.search(stripped)
        return _unquote(match["name"]) if match else None
    if _CONSTRAINT.match(stripped) or stripped.startswith(")") or _OPTION.match(stripped):
        return None  # a table constraint, the statement's end, or a module option
    match = _LEADING_NAME.match(stripped)
    return _unquote(match["name"]) if match else None


def _split_comment(line: str) -> tuple[str, str | None]:
    """(code, comment text or None) of one line, minding quoted strings."""
    quote: str | None = None
    for position, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"`":
            quote = char
        elif line.startswith("--", position):
            return line[:position].rstrip(), line[position + 2 :]
    return line.rstrip(), None


def _join(lines: Iterable[str]) -> str:
    return " ".join(line.strip() for line in lines if line.strip())


def _unquote(name: str) -> str:
    if name[:1] in '"`[':
        return name[1:-1]
    return name
