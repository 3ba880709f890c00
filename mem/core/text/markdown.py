"""Values that mem writes into Markdown stay on the line they were put on. Pure.

A folder name, a file name or a package name is anyone's bytes. Written raw into a
`Promoted from <project>` line, an export's `### <file>` heading or a row of
`projects-index.md`, a line break in it would start a line of its own: a folder named
`shop\\n### Injected` would add a recallable `### Injected` section to the brain. So every
character that can end a line (the C0 and C1 controls, line and paragraph separators) is
written as its escape, `\\n`, as messages show them; the rest of the value is kept as it is.
Notes copied whole (a promoted section, a handoff, the brain's files in an export) are
Markdown already, the person's own, and are not changed.
"""

from __future__ import annotations

import re

_SEPARATORS = frozenset("\u2028\u2029")


def _breaks(character: str) -> bool:
    code = ord(character)
    return code < 0x20 or 0x7F <= code <= 0x9F or character in _SEPARATORS


def inline(value: str) -> str:
    """The value on one line: each character that could end the line spelled as its escape."""
    if value.isprintable():  # the usual case, at C speed
        return value
    return "".join(repr(char)[1:-1] if _breaks(char) else char for char in value)


def table_cell(value: str) -> str:
    """The value as one cell of a Markdown table row: on one line, its `|` escaped."""
    return inline(value).replace("|", "\\|")


def as_read(text: str) -> str:
    """A note's text as a person reads it: a CRLF file's carriage returns are its editor's,
    not the note's (issue 35 item 12)."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def fence(content: str) -> str:
    """A backtick fence that `content` cannot close: longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall("`+", content)), default=0)
    return "`" * max(3, longest + 1)
