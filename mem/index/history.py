"""Commits as memories in a project's index (docs/history.md): kept in step with HEAD, and
ranked by bm25 over the commits alone.

The commits live in their own tables (history, commits, commit_paths, commit_postings), so
no other ranking, count or statistic of the index sees them: a plain recall, a bm25 recall
without history and the notes' IDF are the same with or without them.

Freshness: `sync` reads HEAD from the repository's files; unchanged, it returns without a
git process. Moved, it reads `git log old..new`: when one of those commits has the old HEAD
as a parent, the old HEAD is an ancestor of the new and they are added (one git process,
no `merge-base --is-ancestor`); else (a reset, an amend, a rebase, a branch switch to an
unrelated line) they are dropped and the commits written again from `git log new`. git is
always asked about the sha read, never about `HEAD`, so a HEAD that moves during the sync
leaves a consistent index of the sha it names.
"""

from __future__ import annotations

import heapq
import sqlite3
from array import array
from collections import defaultdict

from mem.core import tokens
from mem.files import history as git_history
from mem.index import bm25
from mem.index.queries import in_chunks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mem.core.commits import Commit

TRIPLE = 3  # a posting: commit id, tf, bm25_length


class Found:
    """A commit that ranked, with what recall shows of it."""

    __slots__ = ("score", "sha", "time", "subject", "text", "paths", "id")

    def __init__(
        self,
        score: float,
        id: int,
        sha: str,
        time: int,
        subject: str,
        text: str,
        paths: list[str],
    ) -> None:
        self.score = score
        self.id = id
        self.sha = sha
        self.time = time
        self.subject = subject
        self.text = text
        self.paths = paths


def sync(conn: sqlite3.Connection, root: str) -> str | None:
    """Bring the index's commits in step with root's HEAD; None, or why there is no history
    (one line: not a git work tree, no git on PATH, ...). Outside any transaction."""
    found = git_history.head(root)
    stored = _stored_head(conn)
    if found.problem is None and found.sha is not None and found.sha == stored:
        return None  # the warm path: no git process
    if found.problem is None and found.sha is None:
        found = git_history.head_by_git(root)
    if found.problem is not None or found.sha is None:
        return found.problem or git_history.NOT_A_CHECKOUT
    if found.sha == stored:
        return None
    return _apply(conn, root, found.sha)


def _stored_head(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT head FROM history").fetchone()
    return None if row is None else str(row[0])


def _apply(conn: sqlite3.Connection, root: str, head: str) -> str | None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        old = _stored_head(conn)  # another process may have synced while this one waited
        if old == head:
            conn.execute("COMMIT")
            return None
        row = conn.execute("SELECT commits, length, parts FROM history").fetchone()
        counts = row or (0, 0, 0)
        added: tuple[int, int, int] | str | None = None
        if old and head:
            conn.execute("SAVEPOINT added")
            added = _write(conn, git_history.Log(root, f"{old}..{head}"), counts, old)
            if not isinstance(added, tuple):
                # old is not an ancestor of head (the history was rewritten), or git no
                # longer knows it (gone with a gc): read the whole history instead.
                conn.execute("ROLLBACK TO added")
                added = None
            conn.execute("RELEASE added")
        if added is None:
            for table in ("commit_postings", "commit_paths", "commits"):
                conn.execute(f"DELETE FROM {table}")
            added = (0, 0, 0)
            if head:
                added = _write(conn, git_history.Log(root, head), added, None)
        if isinstance(added, str):
            conn.execute("ROLLBACK")
            return added
        assert added is not None  # a whole history's listing (no old) is never refused
        commits, length, parts = added
        conn.execute(
            "INSERT OR REPLACE INTO history (id, head, commits, length, parts)"
            " VALUES (0, ?, ?, ?, ?)",
            (head, commits, length, parts),
        )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return None


def _write(
    conn: sqlite3.Connection,
    listed: git_history.Log,
    counts: tuple[int, int, int],
    old: str | None,
) -> tuple[int, int, int] | str | None:
    """Write the commits git lists and their postings part; the history's commits, length
    and parts after them, or why git could not list them. With `old` (the range old..HEAD),
    None when old is not an ancestor of HEAD: then no commit listed has old as a parent
    (were old an ancestor, the commit after it on a path from HEAD would be listed)."""
    commits, length, parts = counts
    groups: defaultdict[str, array[int]] = defaultdict(lambda: array("I"))
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM commits").fetchone()[0]
    first_id = next_id
    descends = old is None
    for batch in listed.batches():
        if not descends:
            descends = any(old in commit.parents for commit in batch)
        next_id, added = _add(conn, batch, groups, next_id)
        length += added
    if listed.problem is not None:
        return listed.problem
    if not descends:
        return None
    commits += next_id - first_id
    if groups:
        parts += 1
        conn.executemany(
            "INSERT INTO commit_postings VALUES (?, ?, ?)",
            ((term, parts, found.tobytes()) for term, found in sorted(groups.items())),
        )
    return commits, length, parts


def _add(
    conn: sqlite3.Connection,
    listed: list[Commit],
    groups: defaultdict[str, array[int]],
    next_id: int,
) -> tuple[int, int]:
    """Write a batch of commits from id next_id on (oldest first, so ids follow history);
    their postings go to `groups`, which the sync writes once, as one part. The next id
    and the bm25 length the batch added."""
    from mem.core import commits as commit_records  # a sync that read git only

    rows: list[tuple[int, str, int, str, str, int]] = []
    paths: list[tuple[str, int]] = []
    added = 0
    for commit in listed:
        if commit_records.is_left_out(commit):
            continue
        subject = commit.subject
        text = commit_records.record_text(commit)
        counts = tokens.counts(text, subject)
        length = tokens.length(counts.values())
        rows.append((next_id, commit.sha, commit.time, subject, text, length))
        for term, tf in counts.items():
            groups[term].extend((next_id, tf, length))
        paths.extend((path, next_id) for path in commit.paths)
        added += length
        next_id += 1
    conn.executemany("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT OR IGNORE INTO commit_paths VALUES (?, ?)", paths)
    return next_id, added


# ---- ranking


def search(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[Found]:
    """The best `limit` commits for the query's bm25 terms: by score, ties by newer commit
    time, then by sha. bm25 over the commits alone (their own N, df and average length); a
    commit's score does not decay with age: an old decision is as binding as a new one."""
    values = scores(conn, terms)
    if not values:
        return []
    best = heapq.nlargest(limit, values.values())
    # Everything tied with the limit-th score is read, so the order of ties is the rows'.
    cut = best[-1]
    chosen = {commit_id: value for commit_id, value in values.items() if value >= cut}
    found_rows = rows(conn, list(chosen))
    ranked = sorted(
        (
            Found(
                chosen[item.id], item.id, item.sha, item.time, item.subject, item.text, item.paths
            )
            for item in found_rows
        ),
        key=lambda item: (-item.score, -item.time, item.sha),
    )
    return ranked[:limit]


def scores(
    conn: sqlite3.Connection, terms: list[str], among: set[int] | None = None
) -> dict[int, float]:
    """Commit id -> its bm25 score for the query's terms (none of 0), of every commit or of
    those `among` (the pre-edit hook's: the commits that touched a file)."""
    row = conn.execute("SELECT commits, length FROM history").fetchone()
    if row is None or not row[0] or not terms:
        return {}
    records, total = row
    average = total / records
    # Each commit's terms are added in query order: the same sum explain makes.
    values: dict[int, float] = {}
    for term in terms:
        triples = _postings(conn, term)
        df = len(triples) // TRIPLE
        if not df:
            continue
        term_idf = bm25.idf(records, df)
        weights: dict[tuple[int, int], float] = {}
        get = values.get
        for commit_id, tf, length in zip(triples[0::3], triples[1::3], triples[2::3], strict=True):
            if among is not None and commit_id not in among:
                continue
            value = weights.get((tf, length))
            if value is None:
                value = weights[tf, length] = term_idf * bm25.weight(tf, length, average)
            values[commit_id] = get(commit_id, 0.0) + value
    return values


def frequencies(conn: sqlite3.Connection, terms: list[str]) -> list[int]:
    """How many commits hold each term (0: none), as bm25.frequencies counts notes."""
    return [len(_postings(conn, term)) // TRIPLE for term in terms]


def weights(conn: sqlite3.Connection, found: list[int]) -> tuple[list[float], float]:
    """bm25.weights over the commits: each term's weight at an endless tf (0 for a term no
    commit holds), and that of a term one commit holds."""
    row = conn.execute("SELECT commits FROM history").fetchone()
    records = row[0] if row else 0
    top = bm25.K1 + 1
    return [bm25.idf(records, df) * top if df else 0.0 for df in found], (
        bm25.idf(records, 1) * top
    )


def _postings(conn: sqlite3.Connection, term: str) -> array[int]:
    found: array[int] = array("I")
    for (blob,) in conn.execute("SELECT records FROM commit_postings WHERE term = ?", (term,)):
        found.frombytes(blob)
    return found


def rows(conn: sqlite3.Connection, ids: list[int]) -> list[Found]:
    """The commits of these ids, with their paths (score 0)."""
    found = []
    for chunk, marks in in_chunks(ids):
        paths: defaultdict[int, list[str]] = defaultdict(list)
        for path, commit_id in conn.execute(
            f"SELECT path, commit_id FROM commit_paths WHERE commit_id IN ({marks})"
            " ORDER BY commit_id, path",
            chunk,
        ):
            paths[commit_id].append(path)
        for commit_id, sha, time, subject, text in conn.execute(
            f"SELECT id, sha, time, subject, text FROM commits WHERE id IN ({marks})", chunk
        ):
            found.append(Found(0.0, commit_id, sha, time, subject, text, paths[commit_id]))
    return found


def by_sha(conn: sqlite3.Connection, prefix: str) -> list[Found]:
    """The commits whose sha starts with prefix (lower-case hex), at most two: enough to
    tell one from an ambiguous prefix."""
    ids = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM commits WHERE sha >= ? AND sha < ? ORDER BY sha LIMIT 2",
            (prefix, prefix + "g"),
        )
    ]
    return sorted(rows(conn, ids), key=lambda item: item.sha)


def touching(conn: sqlite3.Connection, path: str, limit: int) -> list[Found]:
    """The newest `limit` commits that touched path (relative to the repository's top level),
    for a pre-edit lookup: newest first; commits of one second, the later written first
    (commits are written oldest first, so a child after its parent)."""
    ids = [
        row[0]
        for row in conn.execute(
            "SELECT c.id FROM commit_paths AS p JOIN commits AS c ON c.id = p.commit_id"
            " WHERE p.path = ? ORDER BY c.time DESC, c.id DESC LIMIT ?",
            (path, limit),
        )
    ]
    return sorted(rows(conn, ids), key=lambda item: (-item.time, -item.id))


def explain(conn: sqlite3.Connection, commit_id: int, terms: list[str]) -> dict[str, object]:
    """`--explain` for a commit: each query term's tf, df, idf and weight over the commits."""
    records, total = conn.execute("SELECT commits, length FROM history").fetchone()
    average = total / records if records else 1.0
    score = 0.0
    length = conn.execute("SELECT bm25_length FROM commits WHERE id = ?", (commit_id,)).fetchone()[
        0
    ]
    shown = []
    for term in terms:
        triples = _postings(conn, term)
        df = len(triples) // TRIPLE
        tf = next(
            (triples[i + 1] for i in range(0, len(triples), TRIPLE) if triples[i] == commit_id), 0
        )
        term_idf = bm25.idf(records, df) if df else 0.0
        value = term_idf * bm25.weight(tf, length, average) if tf else 0.0
        if tf:
            score += value  # in query order, as search adds them
        shown.append({"term": term, "tf": tf, "df": df, "idf": term_idf, "weight": value})
    return {
        "ranking": "bm25",
        "kind": "commit",
        "terms": shown,
        "length": length,
        "averageLength": average,
        "records": records,
        "k1": bm25.K1,
        "b": bm25.B,
        "bm25": score,
        "decay": 1.0,
        "score": score,
    }
