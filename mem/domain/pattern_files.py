"""The pattern files as they stand: `pattern-scores.json` and the patterns.md headings.

`mem reinforce` folds scores into the file and `mem patterns` lists them, both read
from the files themselves (the index is only a cache for audits).
"""

from __future__ import annotations

from typing import Any

from mem import layout
from mem.core import js, parse
from mem.errors import MemError
from mem.files import safe_paths

SCORES = layout.PATTERN_SCORES
PROMOTIONS = layout.PROMOTIONS
PATTERN_NOTES = layout.PATTERN_NOTES


def read_scores(root: str) -> dict[str, Any]:
    """Every stored score, keyed by pattern id; {} when there is no file yet.

    Deviation D4: a file that is not JSON is refused, never reset (the reference overwrote
    it with fresh priors). A JSON value that is not an object is refused too: the
    reference would drop its content (or, for an array, lose the new score) on writing.
    """
    data = safe_paths.read_plain(root, SCORES)
    if data is None:
        return {}
    try:
        scores = js.parse_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise MemError(
            "Pattern scores file is not valid JSON; inspect it before writing."
        ) from None
    if not isinstance(scores, dict):
        raise MemError("Pattern scores file is not a JSON object; inspect it before writing.")
    return scores


def headings(root: str) -> set[str]:
    headings: set[str] = set()
    for relative in PATTERN_NOTES:
        data = safe_paths.read_plain(root, relative)
        if data is not None:
            text = data.decode("utf-8", errors="replace")
            headings.update(note.heading for note in parse.split_sections(text))
    return headings
