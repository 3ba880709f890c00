"""`mem hook prompt|pre-edit` and `mem context` bring the project's commits: shown by short
sha, date and subject (`mem show SHA` gives the rest), once per session, after the notes,
and never at the cost of the notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.git import commit_all
from support.trees import write

from mem.commands import hook

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
