"""The project's git history as memories (docs/history.md): what recall, `mem show` and the
hooks ask of the commits the index keeps in step with HEAD (mem.index.history).

Each call returns values and, where the history could not be read, why in one line: the
caller decides whether to say it (a hook logs it, `recall --include-history` warns).
"""

from __future__ import annotations

import os
import time

from mem import index
from mem.errors import MemError
from mem.files.history import STALE as STALE  # in_step: HEAD is not indexed yet
from mem.index.history import RankedCommit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any  # typing imports re: a warm recall's few milliseconds

SHORT_SHA = 7  # the digits recall shows, as `git log --oneline` does in a small repository
_HEX = frozenset("0123456789abcdefABCDEF")
# Of a file edited, the newest commits that touched it weighed against the edit: enough for
# a file most commits change (ripgrep's flags, 400 of 2,300), and a bounded read.
TOUCHING_READ = 500


def entry(item: RankedCommit) -> dict[str, Any]:
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


def in_hooks(root: str) -> bool:
    """Whether the brief and the hooks bring commits: in a git checkout, unless the
    project's mem.toml says `history = false` (docs/history.md says why it is on)."""
    from mem.files import settings

    return settings.project(root).get("history") != "false"


def relevant(
    root: str,
    terms: list[str],
    share: float,
    limit: int,
    only_held: bool = False,
) -> tuple[list[RankedCommit], str | None]:
    """The best `limit` commits for the current work's bm25 terms that the prompt gate lets
    through (`gated`), best first; and why there are none, when the history cannot be
    read. The history is brought in step with HEAD first."""

    def use(open_index: index.OpenIndex) -> tuple[list[RankedCommit], str | None]:
        opened = open_index(root, history=True)
        if opened.history is not None:
            return [], opened.history
        return gated(opened.conn, terms, share, limit, only_held), None

    return index.answer(use)


def gated(
    conn: index.Connection,
    terms: list[str],
    share: float,
    limit: int,
    only_held: bool = False,
    prompt: str | None = None,
) -> list[RankedCommit]:
    """The best `limit` commits for a prompt's (or the current work's) bm25 terms that the
    prompt gate lets through (mem.domain.prompt_gate: above `share` of the terms' weight
    over the commits, and on a long prompt holding enough of its terms), best first, from
    an index whose commits are in step (`in_step`). `only_held`: the terms no commit holds
    weigh nothing (the current work's branch name and paths are not a question: a path no
    message names says nothing against a commit). `prompt`: its command-line options' words
    weigh more, in the score and in the terms held, as they do for the notes."""
    from mem.domain import prompt_gate
    from mem.index import history

    asked = terms
    held_by = history.frequencies(conn, asked)
    if only_held:
        asked = [term for term, count in zip(terms, held_by, strict=True) if count]
        held_by = [count for count in held_by if count]
    if prompt is not None:
        asked, held_by = prompt_gate.written_whole(
            prompt, asked, held_by, lambda words: history.frequencies(conn, words)
        )
    weights, rarest = history.weights(conn, held_by)
    searched = prompt_gate.searched(asked, held_by)
    emphasis = None if prompt is None else prompt_gate.emphasis(prompt, searched)
    found = history.search(conn, searched, limit, emphasis)
    by_id = {item.id: item for item in found}
    held_emphasis = None if prompt is None else prompt_gate.emphasis(prompt, asked)
    kept = prompt_gate.injected(
        {item.id: item.score for item in found},
        weights,
        rarest,
        share,
        lambda commit_id: prompt_gate.terms_held(asked, by_id[commit_id].text, held_emphasis),
    )
    return [by_id[commit_id] for commit_id in kept]


def in_step(conn: index.Connection, root: str) -> str | None:
    """None when the index's commits are those of root's HEAD; else STALE (indexing them
    is left to a process of its own: mem.index.background.sync_history) or why there is
    no history. No git process, no write."""
    from mem.index import history

    return history.in_step(conn, root)


def state(root: str) -> str | None:
    """in_step for the project at root, on an index opened for this question alone."""
    return index.answer(lambda open_index: in_step(open_index(root).conn, root))


def touching(
    root: str, paths: list[str], terms: list[str], replaced: str, limit: int
) -> tuple[list[RankedCommit], str | None]:
    """The commits that touched these files (relative to the project at root), best for
    the edit first: those that last changed the lines it replaces (`git blame`, the most
    lines first), then those whose message best matches its new text's bm25 `terms`, then
    the newer. Of each file, the newest TOUCHING_READ commits are weighed; one that neither
    wrote a replaced line nor matches the text must have a body (a bare subject tells no
    more than the file's log). At most `limit`, each with its bm25 score; and why there are
    none, when the history cannot be read."""
    from mem.core.rules import commits
    from mem.files import history as git_history
    from mem.index import history

    top = git_history.work_tree_top(root)
    if top is None:
        return [], git_history.NOT_A_CHECKOUT
    prefix = os.path.relpath(os.path.realpath(root), top).replace(os.sep, "/")
    in_repository = [path if prefix == "." else f"{prefix}/{path}" for path in paths]
    lines: dict[str, int] = {}
    for path in paths if replaced.strip() else []:
        for sha, count in git_history.blamed(root, path, replaced).items():
            lines[sha] = lines.get(sha, 0) + count

    def use(open_index: index.OpenIndex) -> tuple[list[RankedCommit], str | None]:
        opened = open_index(root, history=True)
        if opened.history is not None:
            return [], opened.history
        conn = opened.conn
        candidates: dict[int, RankedCommit] = {}
        for sha in sorted(lines):
            for item in history.by_sha(conn, sha)[:1]:
                candidates.setdefault(item.id, item)
        for path in in_repository:
            for item in history.touching(conn, path, TOUCHING_READ):
                candidates.setdefault(item.id, item)
        values = history.scores(conn, terms, set(candidates)) if candidates else {}
        for item in candidates.values():
            item.score = values.get(item.id, 0.0)
        kept = [
            item
            for item in candidates.values()
            if item.sha in lines or item.score > 0 or commits.body(item.text)
        ]
        kept.sort(key=lambda item: (-lines.get(item.sha, 0), -item.score, -item.time, -item.id))
        return kept[:limit], None

    return index.answer(use)


def is_sha(text: str) -> bool:
    """4 to 64 hex digits: what `mem show` takes for a (short) sha."""
    return 4 <= len(text) <= 64 and _HEX.issuperset(text)


def shown(root: str, sha: str) -> dict[str, Any]:
    """`mem show <sha>`: the commit whose sha starts with `sha` (4 to 64 hex digits)."""
    from mem.index import history

    prefix = sha.lower()

    def use(open_index: index.OpenIndex) -> tuple[list[RankedCommit], str | None]:
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
