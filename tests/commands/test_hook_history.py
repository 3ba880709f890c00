"""`mem hook prompt|pre-edit` and `mem context` bring the project's commits: shown by short
sha, date and subject (`mem show SHA` gives the rest), once per session, after the notes,
and never at the cost of the notes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import filelock
import pytest
from support.cli import RunMem
from support.git import commit_all
from support.trees import write

from mem import index
from mem.commands import hook
from mem.index import background

PROMPT = "Why does the retry limiter keep its backoff exponential and never linear?"
POOLING = "How should the api configure postgres connection pooling?"
RETRY = "def delay(attempt):\n    return 2 ** attempt\n"


def _decision(project: Path) -> str:
    write(project / "src/retry.py", "# retry\n" + RETRY)
    return commit_all(
        project,
        "perf: simplify retry loop\n\nThe limiter bans linear retries, so the backoff stays"
        " exponential: a linear retry storm took the payments API down.",
    )


def _context(output: str) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"])


def _ask(run_mem: RunMem, event: str, payload: dict[str, object]) -> str:
    done = run_mem("hook", event, "--host", "claude-code", input=json.dumps(payload))
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_a_prompt_gets_the_commit_once_per_session(
    run_mem: RunMem, git_project: Path, state: Path
) -> None:
    sha = _decision(git_project)
    payload = {"session_id": "s1", "cwd": str(git_project), "prompt": PROMPT}
    context = _context(_ask(run_mem, "prompt", payload))
    assert f"- commit {sha[:7]} 2" in context
    assert "  perf: simplify retry loop: The limiter bans linear retries" in context
    shown = run_mem("show", sha[:7], "-d", str(git_project))
    assert shown.returncode == 0 and "linear retry storm" in shown.stdout
    assert _ask(run_mem, "prompt", payload) == ""  # the session has it already
    record = json.loads((state / "injections.ndjson").read_text().splitlines()[-1])
    assert {"id": sha[:7], "revision": sha} in record["memories"]


def test_an_edit_of_the_lines_a_commit_wrote_gets_it(run_mem: RunMem, git_project: Path) -> None:
    sha = _decision(git_project)
    write(git_project / "src/retry.py", "# retry, reformatted\n" + RETRY)
    commit_all(git_project, "style: a header line\n\nThe header names the module.")
    payload = {
        "session_id": "s2",
        "cwd": str(git_project),
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(git_project / "src/retry.py"),
            "old_string": RETRY,
            "new_string": "def delay(attempt):\n    return attempt\n",
        },
    }
    context = _context(_ask(run_mem, "pre-edit", payload))
    assert context.index(f"- commit {sha[:7]} ") < context.index("style: a header line")


def test_history_false_leaves_the_hooks_to_the_notes(run_mem: RunMem, git_project: Path) -> None:
    _decision(git_project)
    write(git_project / ".agents/memory/mem.toml", "history = false\n")
    payload = {"session_id": "s3", "cwd": str(git_project), "prompt": PROMPT}
    assert "- commit " not in _ask(run_mem, "prompt", payload)
    brief = run_mem("context", "--budget", "6000", "-d", str(git_project))
    assert "- commit " not in brief.stdout


def test_a_history_past_the_deadline_leaves_the_notes(
    run_mem: RunMem, git_project: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(*args: object) -> list[object]:
        raise hook.Deadline("gave up at the deadline (an index build or a lock held elsewhere)")

    monkeypatch.setattr(hook.briefs, "prompt_commits", slow)
    payload = {"session_id": "s4", "cwd": str(git_project), "prompt": POOLING}
    context = _context(_ask(run_mem, "prompt", payload))
    assert "Postgres connection pooling" in context
    assert "the notes alone, no commits" in (state / "hook.log").read_text(encoding="utf-8")


def _slow_indexing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The history's indexing (in a process of its own, forked from this one) takes a
    second, and no hook may wait for it: a history too large for any hook's deadline."""
    index_history = background.sync_history

    def slow(root: str) -> None:
        time.sleep(1)
        index_history(root)

    monkeypatch.setattr(background, "sync_history", slow)
    monkeypatch.setattr(hook, "HISTORY_RESERVE", 60.0)


def _later(ask: Callable[[int], str], find: str) -> str:
    """What a later hook answers once it holds `find` (each in a session of its own)."""
    for attempt in range(100):
        answer = ask(attempt)
        if find in answer:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"no later hook brought {find!r}")


def test_a_history_indexed_past_the_prompt_s_deadline_reaches_a_later_prompt(
    run_mem: RunMem, git_project: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sha = _decision(git_project)
    _slow_indexing(monkeypatch)
    payload = {"session_id": "s5", "cwd": str(git_project), "prompt": PROMPT}
    assert f"- commit {sha[:7]}" not in _ask(run_mem, "prompt", payload)
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "the history of this checkout is being indexed in process" in log
    later = _later(lambda n: _ask(run_mem, "prompt", {**payload, "session_id": f"s5-{n}"}), sha[:7])
    assert "perf: simplify retry loop" in _context(later)


def test_a_history_indexed_past_the_session_start_s_deadline_reaches_a_later_brief(
    run_mem: RunMem, git_project: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sha = _decision(git_project)
    _slow_indexing(monkeypatch)
    payload = {"session_id": "s6", "cwd": str(git_project), "source": "startup"}
    first = _context(_ask(run_mem, "session-start", payload))
    assert "Postgres connection pooling" in first and "- commit " not in first
    assert "being indexed in process" in (state / "hook.log").read_text(encoding="utf-8")
    _later(
        lambda n: _ask(run_mem, "session-start", {**payload, "session_id": f"s6-{n}"}),
        f"- commit {sha[:7]}",
    )


def test_the_brief_lists_commits_of_the_current_work(run_mem: RunMem, git_project: Path) -> None:
    sha = _decision(git_project)
    done = run_mem("context", "--budget", "6000", "--json", "-d", str(git_project))
    entries = json.loads(done.stdout)["entries"]
    commit = next(entry for entry in entries if entry["kind"] == "commit")
    assert (commit["id"], commit["sha"], commit["heading"]) == (
        sha[:7],
        sha,
        "perf: simplify retry loop",
    )


def test_hostile_edits_bring_no_traceback(run_mem: RunMem, git_project: Path, state: Path) -> None:
    import os

    _decision(git_project)
    os.mkfifo(git_project / "src/pipe.py")
    for path, old in (
        ("src/pipe.py", "anything at all here"),  # a FIFO is never read
        ("src/retry.py", "\ud800 a lone surrogate line"),
        ("src/retry.py", "x" * 200_000),
        ("src/missing.py", RETRY),
    ):
        payload = {
            "session_id": f"hostile-{path}-{len(old)}",
            "cwd": str(git_project),
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(git_project / path),
                "old_string": old,
                "new_string": "",
            },
        }
        _ask(run_mem, "pre-edit", payload)
    assert not (state / "hook.log").exists()


def test_a_dry_run_shows_the_commit_it_would_inject(run_mem: RunMem, git_project: Path) -> None:
    sha = _decision(git_project)
    write(git_project / ".agents/memory/decisions.md", "# Decisions\n")  # the commit alone
    payload = {"session_id": "s7", "cwd": str(git_project), "prompt": PROMPT}
    done = run_mem(
        "hook", "prompt", "--host", "claude-code", "--dry-run", input=json.dumps(payload)
    )
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].endswith("(dry run, nothing recorded): 1 memory")
    assert lines[1] == f"    {sha[:7]}  commit § perf: simplify retry loop"


def test_a_history_another_process_indexes_is_left_to_it(
    run_mem: RunMem, git_project: Path, state: Path
) -> None:
    sha = _decision(git_project)
    path = index.index_path(str(git_project), index.PROJECT)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    payload = {"session_id": "s8", "cwd": str(git_project), "prompt": PROMPT}
    with filelock.FileLock(path + ".history.lock"):  # another hook's indexing, at work
        started = time.monotonic()
        assert f"- commit {sha[:7]}" not in _ask(run_mem, "prompt", payload)
        assert time.monotonic() - started < 3.5  # nor waited for here
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "ended with the history of this checkout not indexed" in log
    later = {**payload, "session_id": "s8-later"}
    assert f"- commit {sha[:7]}" in _ask(run_mem, "prompt", later)


def test_a_history_no_cache_can_keep_is_not_said_to_go_on(
    run_mem: RunMem, git_project: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full cache: the forked indexing ends at once with nothing kept (as sync_history
    does when it cannot write), and the log must not blame a process still at work."""
    sha = _decision(git_project)
    monkeypatch.setattr(background, "sync_history", lambda root: None)
    payload = {"session_id": "s9", "cwd": str(git_project), "prompt": PROMPT}
    assert f"- commit {sha[:7]}" not in _ask(run_mem, "prompt", payload)
    log = (state / "hook.log").read_text(encoding="utf-8")
    assert "ended with the history of this checkout not indexed" in log
    assert "which goes on" not in log
