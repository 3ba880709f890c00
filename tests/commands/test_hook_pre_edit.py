"""`mem hook pre-edit --host ...`: before a file edit, the memories that govern the file, in
the answer each host accepts (context only, never a decision on the tool); nothing for a
file no memory concerns; fail open always."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support import FIXTURES
from support.cli import RunMem
from support.demo import CACHE, record_cache_evidence

from mem.core.rules.memory_ids import memory_id

pytestmark = [pytest.mark.script, pytest.mark.usefixtures("state")]

SESSION = "0193a1f2-7c1d-7e4a-9d35-2c1b5a6e7f80"
DECISIONS = ".agents/memory/decisions.md"
NOTES = """
### 2026-07-01 — Retries go through one budget
- **Decision**: `src/retry.py` is the only place that sleeps between attempts; callers
  never loop on their own.

### 2026-07-02 — Config parsing is strict
- **Decision**: `parse_settings()` refuses unknown keys instead of ignoring them.

### 2026-07-03 — The index is disposable
- **Decision**: the index is rebuilt from the Markdown; never edit it by hand.
"""
RETRY = memory_id(DECISIONS, "2026-07-01 — Retries go through one budget")
STRICT = memory_id(DECISIONS, "2026-07-02 — Config parsing is strict")
EVENT_NAMES = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "AfterTool"}
EMPTY = {"claude-code": "", "codex": "", "gemini": "{}\n"}


@pytest.fixture
def noted(project: Path) -> Path:
    decisions = project / DECISIONS
    decisions.write_text(decisions.read_text(encoding="utf-8") + NOTES, encoding="utf-8")
    (project / "src").mkdir(exist_ok=True)
    return project


def _tool_input(host: str, path: Path, new_text: str, root: Path) -> tuple[str, dict[str, Any]]:
    """(tool name, tool_input) as each host sends them for its edit tools."""
    if host == "claude-code":
        return "Edit", {"file_path": str(path), "old_string": "x", "new_string": new_text}
    if host == "codex":  # apply_patch: the patch in `command`, its paths relative to cwd
        lines = "".join(f"+{line}\n" for line in new_text.splitlines())
        patch = f"*** Begin Patch\n*** Update File: {os.path.relpath(path, root)}\n@@\n-x\n{lines}"
        return "apply_patch", {"command": patch + "*** End Patch\n"}
    return "replace", {"file_path": str(path), "old_string": "x", "new_string": new_text}


def _payload(
    host: str, root: Path, path: Path, new_text: str = "x = 1", session: str = SESSION
) -> dict[str, Any]:
    tool, tool_input = _tool_input(host, path, new_text, root)
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": "/home/user/.host/transcript.jsonl",
        "cwd": str(root),
        "hook_event_name": EVENT_NAMES[host] if host != "gemini" else "BeforeTool",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if host == "codex":
        payload.update(turn_id="turn-1", model="gpt-5", tool_use_id="call-1")
    return payload


def _hook(run_mem: RunMem, host: str, payload: dict[str, Any]) -> str:
    text = json.dumps(payload)
    done = run_mem("hook", "pre-edit", "--host", host, input=text)
    assert (done.returncode, done.stderr) == (0, "")  # Gemini CLI reads stderr as the answer
    return done.stdout


def _context(output: str, host: str) -> str:
    answer = json.loads(output)
    # Context and nothing else: no permission decision, no rewritten input, never a block.
    jsonschema.validate(
        answer,
        {
            "type": "object",
            "properties": {
                "hookSpecificOutput": {
                    "type": "object",
                    "properties": {
                        "hookEventName": {"const": EVENT_NAMES[host]},
                        "additionalContext": {"type": "string", "minLength": 1, "maxLength": 1000},
                    },
                    "required": ["hookEventName", "additionalContext"],
                    "additionalProperties": False,
                }
            },
            "required": ["hookSpecificOutput"],
            "additionalProperties": False,
        },
    )
    context: str = answer["hookSpecificOutput"]["additionalContext"]
    return context


@pytest.mark.parametrize("host", list(EVENT_NAMES))
def test_each_host_gets_the_note_that_names_the_file(
    run_mem: RunMem, noted: Path, host: str, state: Path
) -> None:
    output = _hook(run_mem, host, _payload(host, noted, noted / "src/retry.py"))
    assert output.endswith("\n") and output.count("\n") == 1
    context = _context(output, host)
    assert RETRY in context and "only place that sleeps" in context
    assert STRICT not in context
    record = json.loads((state / "injections.ndjson").read_text(encoding="utf-8"))
    assert (record["host"], record["event"], record["session"]) == (host, "pre-edit", SESSION)
    assert [item["id"] for item in record["memories"]] == [RETRY]


@pytest.mark.parametrize(
    "tool_input",
    [
        {"file_path": "src/retry.py", "content": "VALUE = 2\n"},  # Write, relative to cwd
        {
            "file_path": "src/config.py",
            "edits": [{"old_string": "a", "new_string": "def parse_settings(): ..."}],
        },
        {"notebook_path": "src/retry.py", "new_source": "x"},
    ],
    ids=["write", "multi-edit", "notebook-edit"],
)
def test_claude_codes_other_edit_tools(
    run_mem: RunMem, noted: Path, tool_input: dict[str, Any]
) -> None:
    payload = {**_payload("claude-code", noted, noted / "x"), "tool_input": tool_input}
    context = _context(_hook(run_mem, "claude-code", payload), "claude-code")
    assert (RETRY if "retry" in json.dumps(tool_input) else STRICT) in context


def test_a_note_whose_evidence_names_the_file_is_injected(
    run_mem: RunMem, git_project: Path
) -> None:
    assert record_cache_evidence(run_mem, git_project).returncode == 0
    context = _context(
        _hook(
            run_mem,
            "claude-code",
            _payload("claude-code", git_project, git_project / "src/limits.py"),
        ),
        "claude-code",
    )
    assert CACHE in context  # the lesson names no file: its evidence does


def test_a_note_naming_a_function_the_edit_defines_is_injected(
    run_mem: RunMem, noted: Path
) -> None:
    new_text = "def parse_settings(text):\n    return {}\n"
    for host in EVENT_NAMES:
        payload = _payload(host, noted, noted / "src/config.py", new_text, session=host)
        assert STRICT in _context(_hook(run_mem, host, payload), host)
    plain = _payload("codex", noted, noted / "src/config.py", "value = parse(text)\n")
    assert _hook(run_mem, "codex", plain) == ""  # a name merely used is not being edited


@pytest.mark.parametrize("host", list(EVENT_NAMES))
def test_a_file_no_note_concerns_injects_nothing(
    run_mem: RunMem, noted: Path, host: str, state: Path
) -> None:
    # `index` is the module's name, and a common word of the notes: it names nothing.
    for path in ("src/index.py", "src/widgets.py", "docs/guide.md"):
        assert _hook(run_mem, host, _payload(host, noted, noted / path)) == EMPTY[host]
    assert not (state / "injections.ndjson").exists()
    assert not (state / "hook.log").exists()


def test_a_file_many_notes_govern_brings_six_each_by_id_within_the_budget(
    run_mem: RunMem, noted: Path
) -> None:
    body = "The pool keeps one queue per worker and never grows past its budget. " * 4
    headings = [f"2026-08-0{day} — pool.py: change {day} to the pool" for day in range(1, 8)]
    decisions = noted / DECISIONS
    decisions.write_text(
        decisions.read_text(encoding="utf-8")
        + "".join(f"\n### {heading}\n{body}\n" for heading in headings),
        encoding="utf-8",
    )
    payload = _payload("claude-code", noted, noted / "src/pool.py")
    context = _context(_hook(run_mem, "claude-code", payload), "claude-code")
    ids = [memory_id(DECISIONS, heading) for heading in headings]
    assert [each in context for each in ids] == [False] + [True] * 6  # the newest six
    assert "change 7 to the pool: The pool keeps one queue per worker" in context
    assert "6 of 7 entries" in context and "\n1 entry left out." in context


def test_a_memory_already_injected_in_the_session_is_not_injected_again(
    run_mem: RunMem, noted: Path
) -> None:
    payload = _payload("claude-code", noted, noted / "src/retry.py")
    assert RETRY in _context(_hook(run_mem, "claude-code", payload), "claude-code")
    assert _hook(run_mem, "claude-code", payload) == ""
    other_session = {**payload, "session_id": "another"}
    assert RETRY in _context(_hook(run_mem, "claude-code", other_session), "claude-code")


def test_a_retired_note_is_never_injected(run_mem: RunMem, noted: Path) -> None:
    done = run_mem("retract", RETRY, "--reason", "Retries moved to the queue", "-d", str(noted))
    assert done.returncode == 0, done.stderr
    assert (
        _hook(run_mem, "claude-code", _payload("claude-code", noted, noted / "src/retry.py")) == ""
    )


def test_a_file_outside_the_project_injects_nothing(
    run_mem: RunMem, noted: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "src" / "retry.py"
    for host in EVENT_NAMES:
        assert _hook(run_mem, host, _payload(host, noted, outside)) == EMPTY[host]
    patch = "*** Begin Patch\n*** Update File: ../elsewhere/src/retry.py\n+x\n*** End Patch\n"
    payload = {**_payload("codex", noted, noted / "x"), "tool_input": {"command": patch}}
    assert _hook(run_mem, "codex", payload) == ""


@pytest.mark.parametrize(
    "payload",
    [
        "{not json \x00 ÿ",
        '{"cwd": 5, "tool_input": "src/retry.py"}',
        '{"tool_input": {"file_path": ["src/retry.py"], "new_string": 7}}',
        '{"tool_input": {"command": {"patch": "*** Update File: src/retry.py"}}}',
        json.dumps({"tool_input": {"file_path": "\ud800/retry.py" + "x" * 5000}}),
    ],
    ids=["not-json", "not-an-object", "wrong-types", "nested", "lone-surrogate"],
)
def test_hostile_input_is_the_empty_answer(
    run_mem: RunMem, noted: Path, payload: str, state: Path
) -> None:
    for host in EVENT_NAMES:
        done = run_mem("hook", "pre-edit", "--host", host, input=payload, cwd=noted)
        assert (done.returncode, done.stdout, done.stderr) == (0, EMPTY[host], "")
    if payload.startswith("{not json"):
        log = (state / "hook.log").read_text(encoding="utf-8")
        assert log.count(" pre-edit: the host's input is not JSON") == 3
    else:  # JSON that names no usable file is no failure: nothing to log, no traceback
        assert not (state / "hook.log").exists()


@pytest.mark.parametrize(
    "recorded",
    sorted(
        path.name
        for pattern in ("*-PreToolUse-*.json", "gemini-AfterTool-*.json")  # the edit hooks'
        for path in (FIXTURES / "host_payloads").glob(pattern)
    ),
)
def test_what_the_real_hosts_send_brings_the_note(
    run_mem: RunMem, git_project: Path, recorded: str
) -> None:
    """Each host's recorded stdin (fixtures/host_payloads), moved into this project: `app.py`
    is a name many projects' folders hold, so its bare name counts because git holds no
    other file of that name here."""
    decisions = git_project / DECISIONS
    decisions.write_text(
        decisions.read_text(encoding="utf-8")
        + "\n### 2026-07-04 — Pool size\n`pool.py` sets POOL; never above 10.\n"
        + "\n### 2026-07-05 — App flag\napp.py reads x once, at start.\n",
        encoding="utf-8",
    )
    host = recorded.split("-Pre")[0].split("-After")[0]
    scratch = f"/tmp/hx/{'claude' if host == 'claude-code' else host}/proj"
    text = (FIXTURES / "host_payloads" / recorded).read_text(encoding="utf-8")
    payload = json.loads(text.replace(scratch, str(git_project)))
    context = _context(_hook(run_mem, host, payload), host)
    heading = "Pool size" if "pool.py" in text else "App flag"
    assert heading in context and context.count("\n- ") == 1
