"""`mem hook <event> --host ...` as each host runs it: its documented JSON on stdin, and an
answer of exactly the shape it accepts; nothing when nothing matches; fail open always."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import filelock
import jsonschema
import pytest
from support.cli import RunMem
from support.git import git

from mem import index

pytestmark = [pytest.mark.script, pytest.mark.usefixtures("state")]

SESSION = "0193a1f2-7c1d-7e4a-9d35-2c1b5a6e7f80"
PROMPT = "How should the api configure postgres connection pooling?"


def _inputs(host: str, event: str, cwd: Path) -> dict[str, Any]:
    """The JSON each host documents for its hooks (Claude Code's hooks reference, Codex's
    generated input schemas, Gemini CLI's hooks reference)."""
    common: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": "/home/user/.host/transcript.jsonl",
        "cwd": str(cwd),
    }
    if host == "claude-code":
        common["permission_mode"] = "default"
    if host == "codex":
        common.update(model="gpt-5", permission_mode="default")
    if host == "gemini":
        common["timestamp"] = "2026-10-18T09:30:00.000Z"
    if event == "session-start":
        name = "SessionStart"
        extra = {"source": "startup"}
    else:
        name = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
        extra = {"prompt": PROMPT}
        if host == "codex":
            extra["turn_id"] = "turn-1"
    return {**common, "hook_event_name": name, **extra}


def _schema(host: str, event_name: str) -> dict[str, Any]:
    """What each host accepts on stdout: one JSON object, the context in hookSpecificOutput."""
    specific = {
        "type": "object",
        "properties": {
            "hookEventName": {"const": event_name},
            "additionalContext": {"type": "string", "minLength": 1},
        },
        "required": ["hookEventName", "additionalContext"],
    }
    if host == "codex":  # Codex's wire types refuse anything else (additionalProperties false)
        specific["additionalProperties"] = False
    return {
        "type": "object",
        "properties": {"hookSpecificOutput": specific},
        "required": ["hookSpecificOutput"],
        "additionalProperties": host != "codex",
    }


EVENT_NAMES = {
    ("claude-code", "session-start"): "SessionStart",
    ("claude-code", "prompt"): "UserPromptSubmit",
    ("codex", "session-start"): "SessionStart",
    ("codex", "prompt"): "UserPromptSubmit",
    ("gemini", "session-start"): "SessionStart",
    ("gemini", "prompt"): "BeforeAgent",
}
EMPTY = {"claude-code": "", "codex": "", "gemini": "{}\n"}


def hook(
    run_mem: RunMem, host: str, event: str, payload: dict[str, Any] | str, *extra: str
) -> tuple[str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    done = run_mem("hook", event, "--host", host, *extra, input=text)
    assert done.returncode == 0
    assert done.stderr == ""  # Gemini CLI would read stderr as the answer
    return done.stdout, done.stderr


@pytest.mark.parametrize(("host", "event"), list(EVENT_NAMES), ids="-".join)
def test_each_host_gets_the_answer_it_accepts(
    run_mem: RunMem, git_project: Path, host: str, event: str, state: Path
) -> None:
    output, _ = hook(run_mem, host, event, _inputs(host, event, git_project / "src"))
    assert output.endswith("\n") and output.count("\n") == 1  # one JSON object, one line
    answer = json.loads(output)
    jsonschema.validate(answer, _schema(host, EVENT_NAMES[(host, event)]))
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= (6000 if event == "session-start" else 1500)
    if event == "prompt":
        assert "Postgres connection pooling" in context
    record = json.loads((state / "injections.ndjson").read_text(encoding="utf-8"))
    assert record["host"] == host and record["session"] == SESSION and record["event"] == event
    assert record["bytes"] == len(output.encode())
    assert record["memories"] and all(len(item["revision"]) == 64 for item in record["memories"])


def test_the_host_limit_wins_over_a_larger_budget(run_mem: RunMem, project: Path) -> None:
    decisions = project / ".agents/memory/decisions.md"
    body = "".join(
        f"\n### 2026-01-{day:02d} — Decision {day} about caching ünïcödé\n{'x é ' * 80}\n"
        for day in range(1, 29)
    )
    decisions.write_text(decisions.read_text(encoding="utf-8") + body, encoding="utf-8")
    start = _inputs("codex", "session-start", project)
    codex, _ = hook(run_mem, "codex", "session-start", start, "--budget", "40000")
    assert len(json.loads(codex)["hookSpecificOutput"]["additionalContext"].encode()) <= 10_000
    claude, _ = hook(run_mem, "claude-code", "session-start", start, "--budget", "40000")
    assert len(json.loads(claude)["hookSpecificOutput"]["additionalContext"]) <= 10_000
    gemini, _ = hook(run_mem, "gemini", "session-start", start, "--budget", "20000")
    assert len(json.loads(gemini)["hookSpecificOutput"]["additionalContext"]) > 10_000


def test_a_prompt_gets_nothing_when_nothing_matches(run_mem: RunMem, project: Path) -> None:
    payload = {**_inputs("claude-code", "prompt", project), "prompt": "Rename the button label"}
    assert hook(run_mem, "claude-code", "prompt", payload)[0] == ""
    assert hook(run_mem, "gemini", "prompt", {**payload, "hook_event_name": "BeforeAgent"})[0] == (
        "{}\n"
    )


def test_a_passing_mention_is_not_injected(run_mem: RunMem, project: Path) -> None:
    # The retry budget shares "connection" with the prompt, the Redis decision "api"; only
    # the pooling decision holds more than the default share of the prompt's weight.
    output, _ = hook(run_mem, "claude-code", "prompt", _inputs("claude-code", "prompt", project))
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert "Postgres connection pooling" in context
    assert "Retry budget" not in context and "redis" not in context.lower()
    loose = {**_inputs("claude-code", "prompt", project), "session_id": "loose"}
    output, _ = hook(run_mem, "claude-code", "prompt", loose, "--threshold", "0.05")
    assert "Retry budget" in json.loads(output)["hookSpecificOutput"]["additionalContext"]


def test_gemini_s_prompt_is_matched_on_the_user_s_words_only(
    run_mem: RunMem, project: Path
) -> None:
    output, _ = hook(
        run_mem, "gemini", "session-start", _inputs("gemini", "session-start", project)
    )
    brief = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert "`mem show ID` prints one memory whole" in brief  # Gemini CLI escapes < and >
    # Gemini CLI 0.61 hands BeforeAgent the session's context first, escaped and wrapped
    # (as the real host sent it: fixtures/host_payloads, recorded by the hosts' end-to-end tests).
    wrapped = "<hook_context>" + brief.replace("<", "&lt;").replace(">", "&gt;") + "</hook_context>"
    payload = {**_inputs("gemini", "prompt", project), "session_id": "another"}
    unrelated = {**payload, "prompt": f"{wrapped}\n\nRename the button label"}
    assert hook(run_mem, "gemini", "prompt", unrelated)[0] == "{}\n"
    output, _ = hook(run_mem, "gemini", "prompt", {**payload, "prompt": f"{wrapped}\n\n{PROMPT}"})
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert "Postgres connection pooling" in context and "Retry budget" not in context


def test_a_prompt_finds_memories_by_stem_and_in_any_script(run_mem: RunMem, project: Path) -> None:
    decisions = project / ".agents/memory/decisions.md"
    decisions.write_text(
        decisions.read_text(encoding="utf-8")
        + "\n### 2026-09-20 — Миграции базы данных только вперёд\nОткат через новую миграцию.\n",
        encoding="utf-8",
    )
    for prompt, heading in (
        ("which pool do we use for postgres?", "Postgres connection pooling"),
        ("как откатить миграцию?", "Миграции базы данных"),
    ):
        payload = {**_inputs("codex", "prompt", project), "prompt": prompt, "session_id": prompt}
        output, _ = hook(run_mem, "codex", "prompt", payload)
        assert heading in json.loads(output)["hookSpecificOutput"]["additionalContext"]


def test_nothing_already_injected_in_the_session_comes_again(
    run_mem: RunMem, project: Path
) -> None:
    payload = _inputs("claude-code", "prompt", project)
    first, _ = hook(run_mem, "claude-code", "prompt", payload)
    assert "Postgres connection pooling" in first
    assert hook(run_mem, "claude-code", "prompt", payload)[0] == ""  # the same session
    other, _ = hook(run_mem, "claude-code", "prompt", {**payload, "session_id": "another"})
    assert other == first


def test_the_session_brief_counts_as_injected_until_the_context_is_compacted(
    run_mem: RunMem, project: Path
) -> None:
    start = _inputs("codex", "session-start", project)
    prompt = _inputs("codex", "prompt", project)
    assert hook(run_mem, "codex", "session-start", start)[0]
    assert hook(run_mem, "codex", "prompt", prompt)[0] == ""  # the brief brought it already
    hook(run_mem, "codex", "session-start", {**start, "source": "compact"})
    hook(run_mem, "codex", "session-start", {**start, "source": "clear"})
    # after the compaction the brief came again; a second prompt finds it given
    assert hook(run_mem, "codex", "prompt", prompt)[0] == ""


def test_a_prompt_that_prints_nothing_because_the_brief_had_it_says_so(
    run_mem: RunMem, project: Path
) -> None:
    start = _inputs("claude-code", "session-start", project)
    prompt = _inputs("claude-code", "prompt", project)
    hook(run_mem, "claude-code", "session-start", start)
    preview = run_mem(
        "hook", "prompt", "--host", "claude-code", "--dry-run", "--json", input=json.dumps(prompt)
    )
    assert preview.returncode == 0, preview.stderr
    shown = json.loads(preview.stdout)
    assert shown["answer"] == "" and shown["memories"] == []
    assert [item["heading"] for item in shown["withheld"]] == [
        "2026-06-02 — Postgres connection pooling"
    ]
    assert shown["withheld"][0]["reason"] == "already injected into this session"
    assert hook(run_mem, "claude-code", "prompt", prompt)[0] == ""
    listed = json.loads(run_mem("injections", "--json", "-d", str(project)).stdout)
    assert [item["kind"] for item in listed["injections"]] == ["injection", "withheld"]
    assert listed["injections"][1]["event"] == "prompt"
    text = run_mem("injections", "-d", str(project)).stdout
    assert "prompt  nothing printed: 1 matching memories already injected into this session" in text
    outcomes = json.loads(run_mem("injections", "--outcomes", "--json", "-d", str(project)).stdout)
    assert {item["injections"] for item in outcomes["memories"]} == {1}  # the brief's only


def test_a_dry_run_records_and_claims_nothing(run_mem: RunMem, project: Path) -> None:
    prompt = _inputs("codex", "prompt", project)
    preview = run_mem("hook", "prompt", "--host", "codex", "--dry-run", input=json.dumps(prompt))
    assert "Postgres connection pooling" in preview.stdout and "withheld" not in preview.stdout
    assert json.loads(run_mem("injections", "--json", "-d", str(project)).stdout)["count"] == 0
    assert "Postgres connection pooling" in hook(run_mem, "codex", "prompt", prompt)[0]


def _problems(state: Path) -> str:
    return (state / "hook.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("host", ["claude-code", "codex", "gemini"])
def test_no_project_is_the_empty_answer_and_a_reason_in_the_log(
    run_mem: RunMem, tmp_path: Path, host: str, state: Path
) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    output, _ = hook(run_mem, host, "session-start", _inputs(host, "session-start", nowhere))
    assert output == EMPTY[host]
    assert f"{host} session-start: no project memory at or above {nowhere}" in _problems(state)


@pytest.mark.parametrize("payload", ["not json", "[1, 2]", '{"cwd": 5}', ""])
def test_bad_input_is_the_empty_answer(run_mem: RunMem, project: Path, payload: str) -> None:
    done = run_mem("hook", "prompt", "--host", "codex", input=payload, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_unknown_hosts_events_and_options_fail_open(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    payload = json.dumps(_inputs("codex", "prompt", project))
    for args in (
        ["hook", "prompt", "--host", "cursor"],
        ["hook", "stop", "--host", "codex"],
        ["hook", "prompt", "--host", "codex", "--budget", "12"],
        ["hook", "prompt", "--host", "codex", "--threshold", "many"],
    ):
        done = run_mem(*args, input=payload)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), args
    log = _problems(state)
    assert "--host must be one of claude-code, codex, gemini, not 'cursor'" in log
    assert "the event must be one of session-start, prompt, pre-edit, not 'stop'" in log


def test_a_damaged_cache_is_healed_and_answered(run_mem: RunMem, project: Path) -> None:
    payload = _inputs("claude-code", "prompt", project)
    hook(run_mem, "claude-code", "prompt", {**payload, "session_id": "warm"})
    path = Path(index.index_path(str(project), index.PROJECT))
    path.write_bytes(b"this is not a database" * 100)
    output, _ = hook(run_mem, "claude-code", "prompt", payload)
    assert "Postgres connection pooling" in output


def test_an_unwritable_cache_answers_from_a_temporary_index(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache-file"
    cache.write_text("a file where the cache folder should be", encoding="utf-8")
    payload = json.dumps(_inputs("codex", "prompt", project))
    done = run_mem(
        "hook", "prompt", "--host", "codex", input=payload, env={"MEM_CACHE_DIR": str(cache)}
    )
    assert done.returncode == 0 and "Postgres connection pooling" in done.stdout


def test_a_lock_held_past_the_deadline_is_the_empty_answer(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    payload = json.dumps(_inputs("codex", "prompt", project))
    path = index.index_path(str(project), index.PROJECT)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(path + ".lock"):  # another mem builds this index, and takes long
        started = time.monotonic()
        done = run_mem("hook", "prompt", "--host", "codex", input=payload)
        took = time.monotonic() - started
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert took < 8
    assert "gave up at the deadline" in _problems(state)


def test_a_cold_cache_s_build_outlives_a_hook_that_gave_up(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    # A fresh clone under load: the first hook cannot wait for the index. The build it
    # started goes on, so the index appears with no further command and the next hook
    # answers from it (a build cut off with the hook was lost, and every hook gave up).
    payload = json.dumps(_inputs("codex", "prompt", project))
    path = Path(index.index_path(str(project), index.PROJECT))
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(f"{path}.lock"):  # the build waits for it past the deadline
        done = run_mem("hook", "prompt", "--host", "codex", input=payload)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "is being built from nothing" in _problems(state)
    for _ in range(200):
        if path.exists():
            break
        time.sleep(0.05)
    assert path.exists()
    assert "Postgres connection pooling" in hook(run_mem, "codex", "prompt", json.loads(payload))[0]


def test_a_bug_in_the_brief_is_the_empty_answer_with_its_traceback_logged(
    project: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem.commands import hook as hook_command
    from mem.domain import brief

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected into the brief")

    monkeypatch.setattr(brief, "gather", broken)
    payload = json.dumps(_inputs("gemini", "session-start", project)).encode()
    assert hook_command.run("session-start", "gemini", payload) == "{}\n"
    log = _problems(state)
    assert "RuntimeError: injected into the brief" in log and "Traceback" in log
    assert not (state / "injections.ndjson").exists()


def test_an_injection_that_cannot_be_recorded_is_not_made(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("", encoding="utf-8")
    payload = json.dumps(_inputs("claude-code", "prompt", project))
    done = run_mem(
        "hook",
        "prompt",
        "--host",
        "claude-code",
        input=payload,
        env={"MEM_STATE_DIR": str(blocked)},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_click_path_answers_as_the_plain_one(run_mem: RunMem, project: Path) -> None:
    payload = json.dumps(_inputs("codex", "prompt", project))
    plain = run_mem("hook", "prompt", "--host", "codex", input=payload)
    other = dict(_inputs("codex", "prompt", project), session_id="second")
    # `--host=codex` and `-d` spelled as click takes them, and an option order click allows
    clicked = run_mem("hook", "--host=codex", "prompt", "-d", str(project), input=json.dumps(other))
    assert clicked.returncode == 0 and clicked.stderr == ""
    assert clicked.stdout == plain.stdout


def test_injections_are_listed_and_outcomes_follow_the_sessions_writes(
    run_mem: RunMem, project: Path
) -> None:
    payload = _inputs("claude-code", "prompt", project)
    hook(run_mem, "claude-code", "prompt", payload)
    listed = json.loads(run_mem("injections", "--json", "-d", str(project)).stdout)
    assert listed["count"] == 1
    (injection,) = listed["injections"]
    assert injection["session"] == SESSION and injection["host"] == "claude-code"
    memory = injection["memories"][0]["id"]
    assert run_mem("injections", "--session", "other", "--json", "-d", str(project)).stdout
    done = run_mem(
        "write",
        "--agent",
        "a",
        "--task",
        "pooling",
        "--outcome",
        "success",
        "-d",
        str(project),
        env={"CLAUDE_CODE_SESSION_ID": SESSION},
    )
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(run_mem("injections", "--outcomes", "--json", "-d", str(project)).stdout)
    entry = next(item for item in outcomes["memories"] if item["id"] == memory)
    assert entry["injections"] == 1 and entry["sessions"] == 1
    assert entry["ended"]["success"] == 1
    text = run_mem("injections", "-d", str(project)).stdout
    assert f"claude-code  session {SESSION}  prompt" in text


def test_write_takes_its_session_from_the_flag_first(
    run_mem: RunMem, project: Path, state: Path
) -> None:
    done = run_mem(
        "write",
        "--agent",
        "a",
        "--outcome",
        "failure",
        "--session",
        "mine",
        "-d",
        str(project),
        env={"CODEX_THREAD_ID": "theirs"},
    )
    assert done.returncode == 0, done.stderr
    (line,) = (state / "injections.ndjson").read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert (record["kind"], record["session"], record["outcome"]) == ("write", "mine", "failure")
    journal = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8")
    assert "mine" not in journal  # the journal keeps the reference's format


def test_the_state_never_lands_in_the_project(run_mem: RunMem, git_project: Path) -> None:
    hook(run_mem, "codex", "session-start", _inputs("codex", "session-start", git_project))
    assert git(git_project, "status", "--porcelain") == ""
