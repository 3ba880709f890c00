"""`git log` read as a stream (mem.files.history.Log): a reader that stops early ends git
and the thread draining it, whatever either was waiting for."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.git import GIT_ENV, git

from mem.files import history


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def _repository(base: Path, commits: int) -> tuple[Path, str]:
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for number in range(commits):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"change {number}\n\nwhy {number}")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def test_a_whole_history_comes_in_batches_oldest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, head = _repository(tmp_path, 12)
    monkeypatch.setattr(history.Log, "BATCH_BYTES", 64)  # a commit or two a chunk
    listed = history.Log(str(repo), head)
    batches = list(listed.batches())
    assert len(batches) > 1 and listed.problem is None
    assert [c.subject for batch in batches for c in batch] == [f"change {n}" for n in range(12)]


def test_a_reader_that_stops_early_ends_git_and_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, head = _repository(tmp_path, 30)
    monkeypatch.setattr(history.Log, "BATCH_BYTES", 32)
    monkeypatch.setattr(history.Log, "AHEAD", 1)  # the thread soon waits for room
    before = threading.active_count()
    batches = history.Log(str(repo), head).batches()
    assert next(batches)
    batches.close()  # as a sync that fails mid-way does
    assert threading.active_count() == before


def test_a_sha_git_does_not_know_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    repo, _ = _repository(tmp_path, 1)
    listed = history.Log(str(repo), "0" * 40)
    assert [c for batch in listed.batches() for c in batch] == []
    assert listed.problem is not None and "failed (exit 128)" in listed.problem
