"""Commits in the index (mem.index.history): incremental syncs equal a fresh build, HEAD is
read without git when it did not move, and odd repositories work or say why."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.git import GIT_ENV, git

from mem.core.text import tokens
from mem.files import history as git_history
from mem.index import history, location, snapshots


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def _index() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(location.schema())
    return conn


def _find(conn: sqlite3.Connection, query: str) -> list[history.RankedCommit]:
    return history.search(conn, tokens.query_terms(query), 5)


def _snapshot(conn: sqlite3.Connection) -> dict[str, Any]:
    """What the commit tables say, by sha (ids differ between an incremental and a fresh
    build, and nothing outside the index sees them), as `mem index check` compares them."""
    for (blob,) in conn.execute("SELECT records FROM commit_postings"):
        values = array("I")
        values.frombytes(blob)
        assert list(values[::2]) == sorted(values[::2])  # pruning finds a commit by halves
    return snapshots.commits_snapshot(conn)


def _commit(repo: Path, name: str, message: str) -> None:
    (repo / name).write_text(message, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def _repository(base: Path) -> Path:
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, "a.txt", "first import of the retry module")
    return repo


STEPS = st.lists(
    st.tuples(
        st.sampled_from(["commit", "amend", "reset", "rebase", "switch", "merge"]),
        st.sampled_from(["limiter", "backoff", "jitter", "pool", "cache"]),
    ),
    min_size=1,
    max_size=6,
)


def _step(repo: Path, action: str, word: str, counter: list[int]) -> None:
    counter[0] += 1
    name = f"f{counter[0] % 3}.txt"
    message = f"{word} change {counter[0]}\n\nWhy: the {word} needs it"
    if action == "commit":
        _commit(repo, name, message)
    elif action == "amend":
        (repo / name).write_text(message, encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--amend", "-m", message)
    elif action == "reset":
        if git(repo, "rev-list", "--count", "HEAD").strip() != "1":
            git(repo, "reset", "-q", "--hard", "HEAD~1")
    elif action == "rebase":  # rewrite the last commit's parent: a new line of history
        git(repo, "checkout", "-q", "-B", "side", "HEAD")
        _commit(repo, "side.txt", f"side {word} {counter[0]}")
        git(repo, "checkout", "-q", "main")
        _commit(repo, name, message)
        git(repo, "rebase", "-q", "side")
    elif action == "switch":
        branch = f"b{counter[0] % 2}"
        git(repo, "checkout", "-q", "-B", branch)
        _commit(repo, name, message)
        git(repo, "checkout", "-q", "main")
    else:
        git(repo, "checkout", "-q", "-B", "topic", "HEAD")
        _commit(repo, "topic.txt", message)
        git(repo, "checkout", "-q", "main")
        _commit(repo, name, f"{word} main side {counter[0]}")
        git(repo, "merge", "-q", "--no-edit", "topic")


@settings(max_examples=8, deadline=None)
@given(STEPS)
def test_incremental_syncs_equal_a_fresh_build(steps: list[tuple[str, str]]) -> None:
    base = Path(tempfile.mkdtemp(prefix="mem-history-"))
    try:
        repo = _repository(base)
        kept = _index()
        assert history.sync(kept, str(repo)) is None
        counter = [0]
        for action, word in steps:
            _step(repo, action, word, counter)
            assert history.sync(kept, str(repo)) is None
        fresh = _index()
        assert history.sync(fresh, str(repo)) is None
        assert _snapshot(kept) == _snapshot(fresh)
        assert _snapshot(kept)["history"][0][1:] == _snapshot(kept)["counted"][0]
        head = git(repo, "rev-parse", "HEAD").strip()
        assert _snapshot(kept)["history"][0][0] == head
    finally:
        shutil.rmtree(base)


def test_an_unchanged_head_runs_no_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository(tmp_path)
    conn = _index()
    assert history.sync(conn, str(repo)) is None

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("a git process was started")

    monkeypatch.setattr(subprocess, "run", no_process)
    assert history.sync(conn, str(repo)) is None


def test_a_packed_ref_and_a_detached_head_are_read_from_the_files(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert git_history.head(str(repo)).sha == sha
    git(repo, "checkout", "-q", "--detach")
    assert git_history.head(str(repo)).sha == sha
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    assert conn.execute("SELECT count(*) FROM commits").fetchone()[0] == 1


def test_a_linked_worktree_reads_its_own_head(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    git(repo, "worktree", "add", "-q", "-b", "other", str(tmp_path / "other"))
    _commit(tmp_path / "other", "b.txt", "worktree only decision about pools")
    sha = git(tmp_path / "other", "rev-parse", "HEAD").strip()
    assert git_history.head(str(tmp_path / "other")).sha == sha
    conn = _index()
    assert history.sync(conn, str(tmp_path / "other")) is None
    assert [f.subject for f in _find(conn, "pool")] == ["worktree only decision about pools"]


def test_a_submodule_whose_git_is_a_file(tmp_path: Path) -> None:
    inner = _repository(tmp_path)
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    _commit(outer, "o.txt", "outer commit")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    assert (outer / "sub/.git").is_file()
    conn = _index()
    assert history.sync(conn, str(outer / "sub")) is None
    assert [f.subject for f in _find(conn, "retry")] == ["first import of the retry module"]


def test_a_repository_without_commits_has_an_empty_history(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    assert conn.execute("SELECT head, commits FROM history").fetchall() == [("", 0)]
    _commit(repo, "a.txt", "now a first commit")
    assert history.sync(conn, str(repo)) is None
    assert conn.execute("SELECT commits FROM history").fetchone()[0] == 1


def test_a_shallow_clone_holds_what_it_has(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    _commit(repo, "b.txt", "second")
    _commit(repo, "c.txt", "third")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)],
        check=True,
        capture_output=True,
    )
    assert git_history.is_shallow(str(clone))
    conn = _index()
    assert history.sync(conn, str(clone)) is None
    assert [f.subject for f in history.rows(conn, [1])] == ["third"]


def test_a_bare_repository_and_a_plain_folder_say_why(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    plain = tmp_path / "plain"
    plain.mkdir()
    for folder in (bare, plain):
        assert history.sync(_index(), str(folder)) == "not in a git work tree"


def test_no_git_on_path_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert history.sync(_index(), str(repo)) == "git is not on PATH"


def test_head_moving_between_two_reads_adds_the_commit(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    assert _find(conn, "limiter") == []
    _commit(repo, "b.txt", "limiter decision\n\nThe limiter must stay global.")
    assert history.sync(conn, str(repo)) is None
    assert [f.subject for f in _find(conn, "limiter")] == ["limiter decision"]


def test_a_log_run_after_head_moved_still_indexes_the_sha_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git is asked about the sha read from the files, never `HEAD`: a commit made between
    reading HEAD and running git is left to the next read."""
    repo = _repository(tmp_path)
    read = git_history.head(str(repo))
    _commit(repo, "b.txt", "made while the sync ran")
    monkeypatch.setattr(git_history, "head", lambda root: read)
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    assert conn.execute("SELECT head, commits FROM history").fetchone() == (read.sha, 1)
    monkeypatch.undo()
    for key, value in GIT_ENV.items():
        os.environ[key] = value
    assert history.sync(conn, str(repo)) is None
    assert conn.execute("SELECT commits FROM history").fetchone()[0] == 2


def test_commits_touching_a_path_newest_first(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    _commit(repo, "a.txt", "second edit of a")
    _commit(repo, "b.txt", "b only")
    conn = _index()
    history.sync(conn, str(repo))
    assert [f.subject for f in history.touching(conn, "a.txt", 5)] == [
        "second edit of a",
        "first import of the retry module",
    ]


def test_an_amend_or_a_reset_edits_the_index_without_writing_it_again(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    for number in range(6):
        _commit(repo, f"n{number}.txt", f"pool change {number}")
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    git(repo, "commit", "-q", "--amend", "-m", "limiter change, amended")
    assert history.sync(conn, str(repo)) is None
    # the amended commit took the next id: the others kept their rows (a history written
    # again would number its seven commits 1 to 7)
    assert conn.execute("SELECT count(*), max(id) FROM commits").fetchone() == (7, 8)
    assert [f.subject for f in _find(conn, "limiter")] == ["limiter change, amended"]
    subjects = [row[0] for row in conn.execute("SELECT subject FROM commits")]
    assert "pool change 5" not in subjects and len(subjects) == 7
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    assert history.sync(conn, str(repo)) is None
    assert _find(conn, "limiter") == []
    fresh = _index()
    assert history.sync(fresh, str(repo)) is None
    assert _snapshot(conn) == _snapshot(fresh)


def test_head_moving_while_syncs_run_leaves_each_one_consistent(tmp_path: Path) -> None:
    """Commits, amends and resets land while syncs read: every sync answers, indexes the
    whole history of the HEAD it read (no commit of a later or an earlier one), and once
    HEAD stops the index equals a fresh build."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    repo = _repository(tmp_path)
    conn = _index()
    assert history.sync(conn, str(repo)) is None
    stop = threading.Event()

    def move() -> None:
        for number in range(40):
            if stop.is_set():
                return
            _commit(repo, f"m{number % 4}.txt", f"limiter change {number}")
            if number % 5 == 3:
                git(repo, "commit", "-q", "--amend", "-m", f"limiter amended {number}")
            if number % 7 == 6:
                git(repo, "reset", "-q", "--hard", "HEAD~2")

    with ThreadPoolExecutor(1) as pool:
        moving = pool.submit(move)
        try:
            for _ in range(30):
                assert history.sync(conn, str(repo)) is None
                head, commits = conn.execute("SELECT head, commits FROM history").fetchone()
                assert commits == int(git(repo, "rev-list", "--count", head))
                shas = {row[0] for row in conn.execute("SELECT sha FROM commits")}
                assert shas == set(git(repo, "rev-list", head).split())
        finally:
            stop.set()
        moving.result()  # the mover's own failure, if any
    assert history.sync(conn, str(repo)) is None
    fresh = _index()
    assert history.sync(fresh, str(repo)) is None
    assert _snapshot(conn) == _snapshot(fresh)


def _many_commits(tmp_path: Path, count: int) -> Path:
    repo = _repository(tmp_path)
    for number in range(count):
        _commit(repo, f"f{number % 3}.txt", f"limiter change {number}\n\nWhy: backoff {number}")
    return repo


def _small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    # A commit or two per git batch, and a part per batch: a small history in many parts.
    monkeypatch.setattr(git_history.Log, "BATCH_BYTES", 64)
    monkeypatch.setattr(history, "FLUSH_POSTINGS", 1)


class _Killed(BaseException):
    pass


def _killed_after(monkeypatch: pytest.MonkeyPatch, repo: Path, parts: int) -> sqlite3.Connection:
    """An index whose first indexing of `repo` was killed once `parts` parts were written."""
    write_part = history._write_part
    written = []

    def killed(*args: Any) -> bool:
        if len(written) == parts:
            raise _Killed
        written.append(args[2])
        return write_part(*args)

    monkeypatch.setattr(history, "_write_part", killed)
    conn = _index()
    with pytest.raises(_Killed):
        history.sync(conn, str(repo))
    monkeypatch.setattr(history, "_write_part", write_part)
    return conn


def test_a_killed_first_indexing_resumes_at_its_last_part_and_equals_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _many_commits(tmp_path, 12)
    _small_parts(monkeypatch)
    conn = _killed_after(monkeypatch, repo, 3)
    # Mid-indexing a reader sees no history yet, never some of it.
    assert history.in_step(conn, str(repo)) == git_history.STALE
    assert _find(conn, "limiter") == []
    listed = conn.execute("SELECT listed FROM history_progress").fetchone()[0]
    assert 3 <= listed < 13

    add = history._add
    added: list[str] = []

    def counted(batch: list[Any], *args: Any) -> tuple[int, int]:
        added.extend(commit.sha for commit in batch)
        return add(batch, *args)

    monkeypatch.setattr(history, "_add", counted)
    assert history.sync(conn, str(repo)) is None
    assert len(added) == 13 - listed  # resumed, not begun again
    assert conn.execute("SELECT count(*) FROM history_progress").fetchone()[0] == 0
    monkeypatch.undo()
    fresh = _index()
    assert history.sync(fresh, str(repo)) is None
    assert _snapshot(conn) == _snapshot(fresh)
    assert [item.sha for item in _find(conn, "limiter backoff 7")] == [
        item.sha for item in _find(fresh, "limiter backoff 7")
    ]


def test_a_progress_row_git_does_not_list_so_is_written_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _many_commits(tmp_path, 6)
    _small_parts(monkeypatch)
    conn = _killed_after(monkeypatch, repo, 1)
    conn.execute("UPDATE history_progress SET last = ?", ("0" * 40,))
    assert history.sync(conn, str(repo)) is None
    fresh = _index()
    assert history.sync(fresh, str(repo)) is None
    assert _snapshot(conn) == _snapshot(fresh)


def test_a_notes_sync_takes_the_write_lock_between_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _many_commits(tmp_path, 8)
    _small_parts(monkeypatch)
    path = str(tmp_path / "index.sqlite")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(location.schema())
    other = sqlite3.connect(path, isolation_level=None, timeout=0)  # never waits for a lock
    write_part = history._write_part
    taken = []

    def then_a_notes_sync(*args: Any) -> bool:
        done = write_part(*args)
        other.execute("BEGIN IMMEDIATE")  # raises "database is locked" if the lock is held
        last = len(args) > 8 and args[8]  # only the last part puts the history row in
        assert other.execute("SELECT count(*) FROM history").fetchone()[0] == int(last)
        other.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"note{len(taken)}", "x"))
        other.execute("COMMIT")
        taken.append(args[2])
        return done

    monkeypatch.setattr(history, "_write_part", then_a_notes_sync)
    assert history.sync(conn, str(repo)) is None
    assert len(taken) >= 3
    assert conn.execute("SELECT commits FROM history").fetchone()[0] == 9


def test_head_moving_during_an_unfinished_indexing_finishes_it_then_adds_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _many_commits(tmp_path, 6)
    _small_parts(monkeypatch)
    conn = _killed_after(monkeypatch, repo, 1)
    _commit(repo, "new.txt", "jitter added after the indexing began")
    assert history.sync(conn, str(repo)) is None
    assert (
        conn.execute("SELECT head FROM history").fetchone()[0]
        == git(repo, "rev-parse", "HEAD").strip()
    )
    fresh = _index()
    assert history.sync(fresh, str(repo)) is None
    assert _snapshot(conn) == _snapshot(fresh)
