"""Commits as memories in a project's index (docs/history.md): kept in step with HEAD, and
ranked by bm25 over the commits alone.

The commits live in their own tables (history, commits, commit_paths, commit_terms,
commit_postings), so no other ranking, count or statistic of the index sees them: a plain
recall, a bm25 recall without history and the notes' IDF are the same with or without them.

Freshness: `sync` reads HEAD from the repository's files; unchanged, it returns without a
git process. Moved, it reads `git log --left-right old...new` (one git process): the
commits reachable from new only are added, those reachable from old only are dropped (an
amend, a reset, a rebase, a branch switch: as many as the two lines of history differ by).
Only when git no longer knows old (gone with a gc), or most of the history would go, are
the commits written again from `git log new`, as a first indexing writes them: a part per
transaction, with a progress row that lets a killed writer's successor go on, and no
history row (no history to any reader) until the last part. git is always asked about the sha read,
never about `HEAD`, so a HEAD that moves during the sync leaves a consistent index of the
sha it names.
"""

from __future__ import annotations

import math
import sqlite3

from mem.core.text import tokens
from mem.files import history as git_history
from mem.index import bm25, postings, topk
from mem.index.queries import RecallFiles, in_chunks

TYPE_CHECKING = False
if TYPE_CHECKING:
    # Its NamedTuple imports typing and re: a sync that reads git only, never a warm recall.
    from mem.core.rules.commits import Commit

# The commits' terms and postings, in the layout of the notes' bm25 postings: the same
# builders write them and the same pruned top-k reads them (mem.index.topk, bm25.Scorer).
COMMITS = postings.Tables("commit_postings", "commit_terms", latin1=False, key="term, band, tf")
# Postings a whole history's listing holds in memory before writing them as a part, in a
# transaction of its own: bounds how long a notes sync waits for the write lock (1M
# generated commits: 33 parts, each held 1.9 s, at most 3.5 s, wall at load 4; 4M postings
# held it 8.6-14 s, past the 10 s busy timeout) at 5 % more CPU per history recall.
FLUSH_POSTINGS = 500_000
# SQLite's page cache while a whole history is written (KiB): the paths' index is filled
# in path order, not in the order commits come.
WRITE_CACHE_KIB = 64 * 1024


class RankedCommit:
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


def in_step(conn: sqlite3.Connection, root: str) -> str | None:
    """None when the index holds the commits of root's HEAD, as sync would leave them; else
    git_history.STALE (a sync would bring them) or why there is no history. Reads HEAD from the
    repository's files (git is asked only where they cannot tell); writes nothing."""
    found = git_history.head(root)
    if found.problem is None and found.sha is None:
        found = git_history.head_by_git(root)
    if found.problem is not None or found.sha is None:
        return found.problem or git_history.NOT_A_CHECKOUT
    return None if found.sha == _stored_head(conn) else git_history.STALE


def _stored_head(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT head FROM history").fetchone()
    return None if row is None else str(row[0])


def _apply(conn: sqlite3.Connection, root: str, head: str) -> str | None:
    import gc

    # A history's commits, counts and postings groups refer to nothing that refers back:
    # the cyclic collector would only walk them, over and over (as in mem.index.building).
    collecting = gc.isenabled()
    gc.disable()
    try:
        while True:
            started = _start(conn, root, head)
            if not isinstance(started, tuple):
                return started
            cache = conn.execute("PRAGMA cache_size").fetchone()[0]
            conn.execute(f"PRAGMA cache_size = -{WRITE_CACHE_KIB}")
            try:
                written = _write_whole(conn, root, started, head)
            finally:
                conn.execute(f"PRAGMA cache_size = {int(cache)}")
            if written is not _AGAIN and (written is not None or started[0] == head):
                return written
    finally:
        if collecting:
            gc.enable()


# A whole history being written: (head, listed, last, part, commits, length), the
# history_progress row (migrations/schema.sql).
Progress = tuple[str, int, str, int, int, int]
# _write_whole's answer when another process wrote a batch meanwhile, or the listing is not
# the one the progress row counted: _apply starts again from the row as it is then.
_AGAIN = "again"


def _start(conn: sqlite3.Connection, root: str, head: str) -> str | Progress | None:
    """In one transaction: the commits that moved (a later sync's few), or the progress of
    a whole history's writing, begun here (every commit table emptied, the history row
    taken out) or found unfinished (a killed writer's, resumed). None when HEAD's history
    is in the index now, or why git could not list it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        old = _stored_head(conn)  # another process may have synced while this one waited
        if old == head:
            conn.execute("COMMIT")
            return None
        progress: Progress | None = conn.execute(
            "SELECT head, listed, last, part, commits, length FROM history_progress"
        ).fetchone()
        if progress is not None:
            # An unfinished writing, of this HEAD or an older one (HEAD moved meanwhile):
            # finished first, then brought to this HEAD as any sync is; starting afresh
            # would let two readers of two HEADs undo each other's parts.
            conn.execute("COMMIT")
            return progress
        if old and head:
            conn.execute("SAVEPOINT moved")
            counts = conn.execute("SELECT commits, length FROM history").fetchone()
            added = _write(conn, git_history.Log(root, f"{old}...{head}"), counts)
            if isinstance(added, tuple):
                conn.execute("RELEASE moved")
                _finish(conn, head, *added)
                conn.execute("COMMIT")
                return None
            # git no longer knows old (gone with a gc), or most of the history went:
            # read the whole history instead.
            conn.execute("ROLLBACK TO moved")
            conn.execute("RELEASE moved")
        for table in ("commit_postings", "commit_terms", "commit_paths", "commits", "history"):
            conn.execute(f"DELETE FROM {table}")
        if not head:  # a repository without commits
            _finish(conn, head, 0, 0)
            conn.execute("COMMIT")
            return None
        begun: Progress = (head, 0, "", 1, 0, 0)
        conn.execute("INSERT OR REPLACE INTO history_progress VALUES (0, ?, ?, ?, ?, ?, ?)", begun)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return begun


def _finish(conn: sqlite3.Connection, head: str, commits: int, length: int) -> None:
    conn.execute("DELETE FROM history_progress")
    conn.execute(
        "INSERT OR REPLACE INTO history (id, head, commits, length) VALUES (0, ?, ?, ?)",
        (head, commits, length),
    )


def _write_whole(
    conn: sqlite3.Connection, root: str, progress: Progress, target: str
) -> str | None:
    """Write `git log head` from where `progress` stands, a postings part per transaction:
    the write lock is held while a part is written, not while git is read and the part's
    postings are made, so a notes sync waits seconds at most. The last part puts the
    history row in place of the progress row. None when done, why git could not list the
    history, or _AGAIN (also when `target`, the HEAD the sync was asked for, is not the one
    whose writing is resumed, and git no longer lists that one).

    A resumed writing lists the history again and skips the commits written (the last of
    them must be the one the row names: git lists a sha's history the same way each time)."""
    head, listed, last, part, commits, length = progress
    groups = postings.PairGroups()
    term_ids = postings.TermIds(COMMITS, empty=part == 1)  # a first part meets no term
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM commits").fetchone()[0]
    rows: list[tuple[int, str, int, str, str, int]] = []
    paths: list[tuple[str, int]] = []
    skip = listed
    done = (head, listed)  # what the row says when this process writes its next part
    log = git_history.Log(root, head)
    for batch in log.batches():
        if skip:
            if skip >= len(batch):
                skip -= len(batch)
                if not skip and batch[-1].sha != last:
                    return _restart(conn, done)
                continue
            if batch[skip - 1].sha != last:
                return _restart(conn, done)
            batch = batch[skip:]
            skip = 0
        first_id = next_id
        next_id, added = _add(batch, groups, next_id, rows, paths)
        commits += next_id - first_id
        length += added
        listed += len(batch)
        last = batch[-1].sha
        if groups.size >= FLUSH_POSTINGS:
            written = (head, listed, last, part + 1, commits, length)
            if not _write_part(conn, done, written, rows, paths, groups, term_ids, part):
                return _AGAIN
            done = (head, listed)
            part += 1
    if log.problem is not None:
        if target != head:  # an older HEAD git no longer knows: write the target's afresh
            return _restart(conn, done)
        return log.problem
    if skip:
        return _restart(conn, done)
    written = (head, listed, last, part + 1, commits, length)
    if not _write_part(conn, done, written, rows, paths, groups, term_ids, part, True):
        return _AGAIN
    return None


def _write_part(
    conn: sqlite3.Connection,
    done: tuple[str, int],
    written: Progress,
    rows: list[tuple[int, str, int, str, str, int]],
    paths: list[tuple[str, int]],
    groups: postings.PairGroups,
    term_ids: postings.TermIds,
    part: int,
    last: bool = False,
) -> bool:
    """Write a part's commits, paths and postings and move the progress row on (the last
    part: the history row in its place), in one transaction; False, writing nothing, when
    the row is no longer `done` (another process wrote a part meanwhile)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT head, listed FROM history_progress").fetchone() != done:
            conn.execute("ROLLBACK")
            return False
        postings.insert_rows(conn, "INSERT INTO commits VALUES ", "", rows)
        postings.insert_rows(conn, "INSERT OR IGNORE INTO commit_paths VALUES ", "", paths)
        groups.flush(conn, term_ids, part, fresh=True)
        if last:
            _finish(conn, written[0], written[4], written[5])
        else:
            conn.execute(
                "UPDATE history_progress SET listed = ?, last = ?, part = ?, commits = ?,"
                " length = ?",
                written[1:],
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    rows.clear()
    paths.clear()
    return True


def _restart(conn: sqlite3.Connection, done: tuple[str, int]) -> str:
    """The listing is not the one the progress row counted: the row is taken out (unless
    another process moved it on meanwhile), so that _apply writes the history afresh."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM history_progress WHERE head = ? AND listed = ?", done)
    conn.execute("COMMIT")
    return _AGAIN


def _write(
    conn: sqlite3.Connection, listed: git_history.Log, counts: tuple[int, int]
) -> tuple[int, int] | str | None:
    """Write the commits of a listing old...new, dropping those of its left side (reachable
    from old only); the history's commits and length after them, why git could not list
    them, or None when most of the history would go (writing it all again costs less than
    taking most of it out). Their postings are added to part 0, which stays small."""
    commits, length = counts
    groups = postings.PairGroups()
    term_ids = postings.TermIds(COMMITS)
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM commits").fetchone()[0]
    first_id = next_id
    dropped: list[str] = []
    rows: list[tuple[int, str, int, str, str, int]] = []
    paths: list[tuple[str, int]] = []
    for batch in listed.batches():
        dropped += [commit.sha for commit in batch if commit.left]
        next_id, added = _add(
            [commit for commit in batch if not commit.left], groups, next_id, rows, paths
        )
        length += added
    if listed.problem is not None:
        return listed.problem
    if len(dropped) * 2 > commits:
        return None
    postings.insert_rows(conn, "INSERT INTO commits VALUES ", "", rows)
    postings.insert_rows(conn, "INSERT OR IGNORE INTO commit_paths VALUES ", "", paths)
    groups.flush(conn, term_ids)
    gone, gone_length = _drop(conn, dropped)
    return commits + next_id - first_id - gone, length - gone_length


def _drop(conn: sqlite3.Connection, shas: list[str]) -> tuple[int, int]:
    """Take these commits (those the index holds) out of every table; how many were, and
    their bm25 length. A commit's postings are found again from its text: ids are in
    increasing order in each part of a group, so each is found by halves and cut out."""
    from bisect import bisect_left

    found: list[tuple[int, str, str, int]] = []
    for chunk, marks in in_chunks(shas):
        found += conn.execute(
            f"SELECT id, subject, text, bm25_length FROM commits WHERE sha IN ({marks})", chunk
        )
    if not found:
        return 0, 0
    doomed: dict[tuple[str, int, int], list[int]] = {}
    for commit_id, subject, text, length in found:
        band = postings.bm25_class(length)
        for term, tf in tokens.counts(text, subject).items():
            doomed.setdefault((term, band, tf), []).append(commit_id)
    term_ids = postings.TermIds(COMMITS).resolve(conn, {term for term, _, _ in doomed})
    where = "WHERE term = ? AND band = ? AND tf = ? AND part = ?"
    for (term, band, tf), ids in doomed.items():
        key = (term_ids[term], band, tf)
        for part, blob in conn.execute(
            "SELECT part, records FROM commit_postings WHERE term = ? AND band = ? AND tf = ?",
            key,
        ).fetchall():
            pairs = postings.decode_pairs(blob)
            held = pairs[::2]
            cuts = []
            for commit_id in ids:
                at = bisect_left(held, commit_id)
                if at < len(held) and held[at] == commit_id:
                    cuts.append(at * bm25.PAIR_BYTES)
            if not cuts:
                continue
            kept = bytearray(blob)
            for cut in sorted(cuts, reverse=True):
                del kept[cut : cut + bm25.PAIR_BYTES]
            if kept:
                conn.execute(f"UPDATE commit_postings SET records = ? {where}", (kept, *key, part))
            else:
                conn.execute(f"DELETE FROM commit_postings {where}", (*key, part))
    ids = [row[0] for row in found]
    for chunk, marks in in_chunks(ids):
        conn.execute(f"DELETE FROM commit_paths WHERE commit_id IN ({marks})", chunk)
        conn.execute(f"DELETE FROM commits WHERE id IN ({marks})", chunk)
    return len(found), sum(row[3] for row in found)


def _add(
    listed: list[Commit],
    groups: postings.PairGroups,
    next_id: int,
    rows: list[tuple[int, str, int, str, str, int]],
    paths: list[tuple[str, int]],
) -> tuple[int, int]:
    """A batch of commits as rows and paths from id next_id on (oldest first, so ids follow
    history), their postings into `groups`; the next id and the bm25 length the batch added."""
    from itertools import repeat

    from mem.core.rules import commits as commit_records  # a sync that read git only

    added = 0
    counts_of = tokens.counts
    left_out = commit_records.is_left_out
    record_text = commit_records.record_text
    add = groups.add
    for commit in listed:
        if left_out(commit):
            continue
        subject = commit.subject
        text = record_text(commit)
        counts = counts_of(text, subject)
        length = sum(counts.values())  # tokens.length
        rows.append((next_id, commit.sha, commit.time, subject, text, length))
        add(next_id, length, counts)
        paths += zip(commit.paths, repeat(next_id))
        added += length
        next_id += 1
    return next_id, added


# ---- ranking


# A commit's row as the notes' are (bm25.Scorer): of one pretend file, never an event; and
# the columns its terms are counted from.
_ROWS = (
    "SELECT id, 0, id, 'commit', bm25_length, NULL, 0{} FROM commits"
    " WHERE id IN (SELECT value FROM json_each(?))",
    ", subject, text",
)


class _Stats(bm25.Stats):
    """The commits' N and average bm25 length, kept in the history row."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT commits, length FROM history").fetchone()
        self.records, total = row or (0, 0)
        self.average = total / self.records if self.records else 1.0


class _Scorer(bm25.Scorer):
    """bm25.Scorer over the commits. A commit's message is longer than a note and its words
    are a whole history's, most of them stemmed for the first time in a recall's process:
    scoring one from its text cost as much as reading about a thousand postings (git/git's
    82k commits and 1M generated ones, instructions), so the top fills from the postings too."""

    postings_per_text = 1024
    fill_from_texts = False


def _no_offset(ms: float) -> float:
    return 0.0  # only events are dated in local time, and a commit is no event


def search(
    conn: sqlite3.Connection, terms: list[str], limit: int, emphasis: list[float] | None = None
) -> list[RankedCommit]:
    """The best `limit` commits for the query's bm25 terms: by score, ties by newer commit
    time, then by sha. bm25 over the commits alone (their own N, df and average length); a
    commit's score does not decay with age: an old decision is as binding as a new one.
    `emphasis`: each term's idf multiplied by its value, as in mem.index.bm25.search.

    Pruned as the notes' bm25 top-k is: postings are read best bound first, and only until
    no commit not yet met can be among the best `limit`, so a common word of a million
    commits is not read whole. Scores are the exhaustive sum's (math.fsum, as explain).
    With `emphasis`, each term's idf is multiplied by its value, as bm25.search does."""
    row = conn.execute("SELECT commits FROM history").fetchone()
    if row is None or not row[0] or not terms or limit < 1:
        return []
    files = RecallFiles.given({0: 0})
    stats = _Stats(conn)
    scorer = _Scorer(conn, terms, files, None, _no_offset, emphasis, COMMITS, stats, *_ROWS)
    ranked = topk.search(conn, scorer, limit)
    # Every commit tied with the limit-th score is there, so the order of ties is the rows'.
    scores = {item.id: item.score for item in ranked}
    found = rows(conn, list(scores))
    for item in found:
        item.score = scores[item.id]
    found.sort(key=lambda item: (-item.score, -item.time, item.sha))
    return found[:limit]


def scores(
    conn: sqlite3.Connection, terms: list[str], among: set[int] | None = None
) -> dict[int, float]:
    """Commit id -> its bm25 score for the query's terms (none of 0), of every commit or of
    those `among` (the pre-edit hook's: the commits that touched a file). Exhaustive, as
    search's scores are (each commit's terms summed in query order with math.fsum)."""
    stats = _Stats(conn)
    if not stats.records or not terms:
        return {}
    width = len(terms)
    parts: dict[int, list[float]] = {}
    for place, groups in enumerate(bm25.term_groups(conn, terms, COMMITS)):
        if not groups:
            continue
        term_idf = bm25.idf(stats.records, bm25.document_frequency(groups))
        for tf, pairs in groups:
            for commit_id, length in zip(pairs[::2], pairs[1::2], strict=True):
                if among is not None and commit_id not in among:
                    continue
                found = parts.get(commit_id)
                if found is None:
                    found = parts[commit_id] = [0.0] * width
                found[place] = term_idf * bm25.weight(tf, length, stats.average)
    return {commit_id: math.fsum(values) for commit_id, values in parts.items()}


def frequencies(conn: sqlite3.Connection, terms: list[str]) -> list[int]:
    """How many commits hold each term (0: none), as bm25.frequencies counts notes."""
    return bm25.frequencies(conn, terms, COMMITS)


def weights(conn: sqlite3.Connection, found: list[int]) -> tuple[list[float], float]:
    """bm25.weights over the commits: each term's weight at an endless tf (0 for a term no
    commit holds), and that of a term one commit holds."""
    return bm25.weights(conn, found, _Stats(conn).records)


def rows(conn: sqlite3.Connection, ids: list[int]) -> list[RankedCommit]:
    """The commits of these ids, with their paths (score 0)."""
    found = []
    for chunk, marks in in_chunks(ids):
        paths: dict[int, list[str]] = {}
        for path, commit_id in conn.execute(
            f"SELECT path, commit_id FROM commit_paths WHERE commit_id IN ({marks})"
            " ORDER BY commit_id, path",
            chunk,
        ):
            paths.setdefault(commit_id, []).append(path)
        for commit_id, sha, time, subject, text in conn.execute(
            f"SELECT id, sha, time, subject, text FROM commits WHERE id IN ({marks})", chunk
        ):
            found.append(
                RankedCommit(0.0, commit_id, sha, time, subject, text, paths.get(commit_id, []))
            )
    return found


def by_sha(conn: sqlite3.Connection, prefix: str) -> list[RankedCommit]:
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


def touching(conn: sqlite3.Connection, path: str, limit: int) -> list[RankedCommit]:
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
    stats = _Stats(conn)
    length = conn.execute("SELECT bm25_length FROM commits WHERE id = ?", (commit_id,)).fetchone()[
        0
    ]
    band = postings.bm25_class(length)
    shown = []
    values = []
    for term in terms:
        groups = conn.execute(
            "SELECT p.band, p.tf, p.records FROM commit_terms AS t"
            " JOIN commit_postings AS p ON p.term = t.id WHERE t.term = ?",
            (term,),
        ).fetchall()
        df = sum(len(blob) for _, _, blob in groups) // bm25.PAIR_BYTES
        tf = next(
            (
                group_tf
                for group_band, group_tf, blob in groups
                if group_band == band and commit_id in postings.decode_pairs(blob)[::2]
            ),
            0,
        )
        term_idf = bm25.idf(stats.records, df) if df else 0.0
        value = term_idf * bm25.weight(tf, length, stats.average) if tf else 0.0
        values.append(value)
        shown.append({"term": term, "tf": tf, "df": df, "idf": term_idf, "weight": value})
    score = math.fsum(values)  # as search sums them
    return {
        "ranking": "bm25",
        "kind": "commit",
        "terms": shown,
        "length": length,
        "averageLength": stats.average,
        "records": stats.records,
        "k1": bm25.K1,
        "b": bm25.B,
        "bm25": score,
        "decay": 1.0,
        "score": score,
    }
