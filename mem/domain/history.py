"""The project's git history as memories (docs/history.md): what recall, `mem show` and the
hooks ask of the commits the index keeps in step with HEAD (mem.index.history).

Each call returns values and, where the history could not be read, why in one line: the
caller decides whether to say it (a hook logs it, `recall --include-history` warns).
"""

from __future__ import annotations

import time

from mem import index
from mem.errors import MemError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.index.history import Found

SHORT_SHA = 7  # the digits recall shows, as `git log --oneline` does in a small repository
_HEX = frozenset("0123456789abcdefABCDEF")


def entry(item: Found) -> dict[str, Any]:
    """A commit as recall shows it: kind `commit`, its subject as ref, its short sha and
    date (UTC); `sha` and `paths` for --json."""
    return {
        "score": item.score,
        "kind": "commit",
        "source": "git",
        "ref": item.subject,
        "text": item.text,
        "sha": item.sha,
        "shortSha": item.sha[:SHORT_SHA],
        "date": time.strftime("%Y-%m-%d", time.gmtime(item.time)),
        "paths": item.paths,
    }


def relevant(root: str, query: str, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """The best `limit` commits for a query (bm25 over the commits alone), for the session
    brief and the prompt hook; and why there are none, when the history cannot be read."""
    from mem.core import tokens
    from mem.index import history

    terms = tokens.query_terms(query)

    def use(open_index: index.OpenIndex) -> tuple[list[dict[str, Any]], str | None]:
        opened = open_index(root, history=True)
        return [entry(item) for item in history.search(opened.conn, terms, limit)], opened.history

    return index.answer(use)


def touching(root: str, path: str, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """The newest `limit` commits that touched path (relative to the repository's top level),
    for the pre-edit hook; and why there are none, when the history cannot be read."""
    from mem.index import history

    def use(open_index: index.OpenIndex) -> tuple[list[dict[str, Any]], str | None]:
        opened = open_index(root, history=True)
        return [entry(item) for item in history.touching(opened.conn, path, limit)], (
            opened.history
        )

    return index.answer(use)


def is_sha(text: str) -> bool:
    """4 to 64 hex digits: what `mem show` takes for a (short) sha."""
    return 4 <= len(text) <= 64 and _HEX.issuperset(text)


def shown(root: str, sha: str) -> dict[str, Any]:
    """`mem show <sha>`: the commit whose sha starts with `sha` (4 to 64 hex digits)."""
    from mem.index import history

    prefix = sha.lower()

    def use(open_index: index.OpenIndex) -> tuple[list[Found], str | None]:
        opened = open_index(root, history=True)
        return history.by_sha(opened.conn, prefix), opened.history

    found, problem = index.answer(use)
    if problem is not None:
        raise MemError(f"No commit {sha}: {problem}.")
    if not found:
        raise MemError(f"No commit {sha} in the history of HEAD.")
    if len(found) > 1:
        raise MemError(f"{sha} names more than one commit: give more of the sha.")
    shown_entry = entry(found[0])
    del shown_entry["score"]
    return shown_entry
