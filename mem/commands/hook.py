"""`mem hook <event> --host <host>`: memory pushed into an agent's context by its host.

A host (Claude Code, Codex, Gemini CLI) runs the hook with its JSON on stdin (`cwd`,
`session_id`, `source`, `prompt`, `tool_input`) and adds what the hook prints to the
model's context:

- `session-start`: the brief (mem.domain.brief) within the host's limit;
- `prompt`: the memories that match the prompt above a threshold, then the commits that
  do (docs/history.md), none already injected in the same session, within a small
  budget; nothing when nothing matches;
- `pre-edit`: before a file-editing tool runs (Gemini CLI: after, its only way to add
  context), the memories that govern the files it changes (mem.domain.edits), then the
  commits that wrote what it replaces, none already injected in the session; nothing
  when none does. Never a decision on the tool.

The answer is exactly what the host accepts: one JSON object
`{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`. The hook fails
open: any problem (no project, a damaged cache, a lock held too long, a bug) prints the
host's empty answer and exits 0, and the reason goes to the per-machine hook log, never
into the agent's context. Every injection is recorded (mem.files.machine_state) before
it is printed; one that cannot be recorded is not made.
"""

from __future__ import annotations

import hashlib
import os
import signal
import time
from collections.abc import Callable
from typing import Any, BinaryIO, NamedTuple

from mem import clock, layout
from mem.core.javascript import js
from mem.core.rules import budgets, edit_targets
from mem.domain import brief as briefs
from mem.domain import prompt_gate
from mem.errors import MemError
from mem.files import history as git_history
from mem.files import machine_state
from mem.render import brief as brief_view

HOSTS = ("claude-code", "codex", "gemini")
EVENTS = ("session-start", "prompt", "pre-edit")
# The event names each host gives its hooks, as its answer must repeat them.
HOST_EVENTS = {
    "claude-code": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "pre-edit": "PreToolUse",
    },
    "codex": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "pre-edit": "PreToolUse",
    },
    # Gemini CLI 0.61 reads no context from BeforeTool; AfterTool's joins the tool's result.
    "gemini": {"session-start": "SessionStart", "prompt": "BeforeAgent", "pre-edit": "AfterTool"},
}
# What a host reads as "nothing to add": Gemini CLI's own examples print {}, and it parses
# stderr when stdout is empty, so the hook never writes to stderr.
EMPTY = {"claude-code": "", "codex": "", "gemini": "{}\n"}
HOOK_CONTEXT = ("<hook_context>", "</hook_context>")  # how Gemini CLI wraps hooks' answers
SESSION_BUDGET = 6000  # characters: well under the 10,000 Claude Code and Codex keep
PROMPT_BUDGET = 1500
PROMPT_AT_MOST = 8  # memories one prompt can bring
EDIT_BUDGET = 1000  # before every edit, dozens a session: the governing decisions' text only
EDIT_AT_MOST = 6
# Seconds a hook may take before it gives up and answers nothing; below the timeouts
# `mem init --hooks` writes (30 s and 5 s), so the host never has to kill it.
DEADLINES = {"session-start": 20.0, "prompt": 4.0, "pre-edit": 4.0}
# Of a hook's deadline, the seconds left after waiting for the history to be indexed
# (_history_apart): enough to rank the commits, claim them and record the injection.
HISTORY_RESERVE = 1.0
INPUT_LIMIT = 16 * 1024 * 1024  # a prompt can hold a pasted file; past this, nothing is injected
# The hard limits of what a host keeps of one hook's text (beyond it, a preview and a path):
# Claude Code counts JavaScript string length (UTF-16 units), Codex bytes (2,500 tokens of 4).
HOST_LIMITS = {"claude-code": ("utf-16 units", 10_000), "codex": ("bytes", 10_000)}
# Why a memory that matched was not printed: the session has it (issue 35: a prompt hook
# that prints nothing for this reason must not look broken).
WITHHELD_REASON = "already injected into this session"


class Deadline(Exception):
    """The hook ran past its deadline."""


class HookRequest(NamedTuple):
    """What the host said, and how the hook was configured."""

    event: str
    host: str
    cwd: str
    session: str | None
    source: str | None
    prompt: str | None
    budget: int
    threshold: float
    edit: edit_targets.Edit  # pre-edit: the files the tool changes and the text it writes
    dry_run: bool = False  # `--dry-run`: nothing claimed, recorded or forgotten
    deadline: float | None = None  # time.monotonic() when the hook gives up; None: never


def run(
    event: str,
    host: str,
    stdin_data: bytes,
    directory: str | None = None,
    budget: str | None = None,
    threshold: str | None = None,
) -> str:
    """The host's answer; whatever goes wrong, its empty answer (and a line in the hook log)."""
    seconds = DEADLINES.get(event, DEADLINES["prompt"])
    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        now = clock.now_iso()
        request = _request(event, host, stdin_data, directory, budget, threshold)._replace(
            deadline=started + seconds
        )
        return _answer(request, now)
    except Exception as error:  # noqa: BLE001 - failing open is the contract of a hook
        _log_problem(host, event, error)
        return EMPTY.get(host, "")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def preview(
    event: str,
    host: str,
    stdin_data: bytes,
    directory: str | None = None,
    budget: str | None = None,
    threshold: str | None = None,
) -> dict[str, Any]:
    """`mem hook EVENT --dry-run`: what the hook would print for this input and why, writing
    nothing (no injection recorded, nothing claimed for the session). A problem is a
    MemError here: a person asked, not a host."""
    request = _request(event, host, stdin_data, directory, budget, threshold)._replace(dry_run=True)
    root = find_project(request.cwd)
    shown, memories, withheld = _gathered(root, request)
    return {
        "event": event,
        "host": host,
        "project": root,
        "session": request.session,
        "answer": _wrap(request, shown) if shown else EMPTY[host],
        "memories": [entry.to_json() for entry in memories],
        "withheld": _withheld_json(withheld),
    }


def _withheld_json(entries: list[briefs.BriefUnit]) -> list[dict[str, Any]]:
    return [
        {
            "kind": entry.kind,
            "id": entry.id,
            "revision": entry.revision,
            "file": entry.file,
            "heading": entry.heading,
            "reason": WITHHELD_REASON,
        }
        for entry in entries
    ]


def read_input(stream: BinaryIO) -> bytes:
    """The host's input, read no further than one byte past INPUT_LIMIT (enough to refuse it)."""
    return stream.read(INPUT_LIMIT + 1)


def _expired(signum: int, frame: Any) -> None:
    """The deadline: a lock held by a long build elsewhere must not stall the agent."""
    raise Deadline("gave up at the deadline (an index build or a lock held elsewhere)")


def _request(
    event: str,
    host: str,
    stdin_data: bytes,
    directory: str | None,
    budget: str | None,
    threshold: str | None,
) -> HookRequest:
    """What the host's input asks (the hook's and its preview's one reading of it)."""
    if len(stdin_data) > INPUT_LIMIT:
        raise MemError(f"the host's input is over {INPUT_LIMIT // (1024 * 1024)} MiB")
    stdin_text = stdin_data.decode("utf-8", errors="replace")
    if host not in HOSTS:
        raise MemError(f"--host must be one of {', '.join(HOSTS)}, not {host!r}")
    if event not in EVENTS:
        raise MemError(f"the event must be one of {', '.join(EVENTS)}, not {event!r}")
    try:
        found = js.parse_json(stdin_text) if stdin_text.strip() else {}
    except ValueError as error:
        raise MemError(f"the host's input is not JSON: {error}") from None
    if not isinstance(found, dict):
        raise MemError("the host's input is not a JSON object")
    cwd = (
        directory
        or _text_field(found, "cwd")
        or os.environ.get("CLAUDE_PROJECT_DIR")
        or os.environ.get("GEMINI_PROJECT_DIR")
        or os.getcwd()
    )
    default = {"session-start": SESSION_BUDGET, "prompt": PROMPT_BUDGET}.get(event, EDIT_BUDGET)
    return HookRequest(
        event,
        host,
        cwd,
        _text_field(found, "session_id"),
        _text_field(found, "source"),
        _users_words(host, _text_field(found, "prompt")),
        default if budget is None else budgets.parse_budget(budget),
        prompt_gate.SHARE if threshold is None else _threshold(threshold),
        edit_targets.edit_of(found.get("tool_input")),
    )


def _threshold(text: str) -> float:
    value = js.to_number(text)
    if not (value == value and 0 <= value <= 1):
        raise MemError(f"--threshold must be a number from 0 to 1, not {text!r}")
    return value


def _users_words(host: str, prompt: str | None) -> str | None:
    """The prompt without what a host put before the user's words: Gemini CLI 0.61 hands its
    BeforeAgent hook the session-start hooks' answer first, as `<hook_context>...</hook_context>`
    and a blank line (its `<` and `>` escaped inside, so the first closing tag ends it)."""
    if host != "gemini" or prompt is None:
        return prompt
    words = prompt.lstrip()
    while words.startswith(HOOK_CONTEXT[0]) and HOOK_CONTEXT[1] in words:
        words = words.split(HOOK_CONTEXT[1], 1)[1].lstrip()
    return words or None


def _text_field(found: dict[str, Any], name: str) -> str | None:
    value = found.get(name)
    return value if isinstance(value, str) and value else None


def _answer(request: HookRequest, now: str) -> str:
    root = find_project(request.cwd)
    _built_apart(root)
    text, memories, withheld = _gathered(root, request)
    if not text:
        if withheld:
            _record(request, root, now, "", withheld, kind="withheld")
        return EMPTY[request.host]
    answer = _wrap(request, text)
    _record(request, root, now, answer, memories)
    return answer


def _built_apart(root: str) -> None:
    """On a cold cache, the project's index built in a process of its own and waited for
    until the deadline: cut off there, the build goes on, and the next hook finds it."""
    from mem.index import background

    if not background.cold(root):
        return
    from mem.files import detached

    builder = detached.start(lambda: background.build(root))
    try:
        os.waitpid(builder, 0)
    except Deadline:
        raise Deadline(
            "gave up at the deadline: the index of this project is being built from nothing"
            f" (a fresh clone or an emptied cache) in process {builder}, which goes on;"
            " the next hook finds it ready"
        ) from None


def _gathered(
    root: str, request: HookRequest
) -> tuple[str, list[briefs.BriefUnit], list[briefs.BriefUnit]]:
    """The text to inject, the memories it shows, and the matches left out because the
    session was given them already."""
    if request.event == "session-start":
        return (*_session_brief(root, request), [])
    if request.event == "prompt":
        return _prompt_memories(root, request)
    return _edit_memories(root, request)


def find_project(cwd: str) -> str:
    """The nearest directory at or above cwd that holds project memory."""
    if "\0" in cwd:
        raise MemError(f"refused the cwd {js.stringify(cwd)}: a path cannot hold a NUL byte")
    current = os.path.realpath(cwd)
    while True:
        if any(
            os.path.isdir(os.path.join(current, folder))
            for folder in (layout.AGENTS_MEMORY, layout.BMAD_MEMORY)
        ):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            raise MemError(f"no project memory at or above {cwd}")
        current = parent


def _fitted(
    entries: list[briefs.BriefUnit], total: int, request: HookRequest, kind: str
) -> tuple[str, list[briefs.BriefUnit]]:
    """The text within the budget and within the host's own limit, and the entries shown."""
    listed = [entry.to_json() for entry in entries]
    budget = request.budget
    while True:
        if kind == "edit":
            text, count = brief_view.fit_edit(listed, total, budget)
        else:
            text, count = brief_view.fit(listed, total, budget, as_json=False, kind=kind)
        over = _over_host_limit(request.host, text)
        if not over or budget <= budgets.MIN_BUDGET:
            if over:
                raise MemError(f"the brief does not fit {request.host}'s limit")
            return text, entries[:count]
        budget = max(budgets.MIN_BUDGET, budget * 9 // 10)


def _over_host_limit(host: str, text: str) -> bool:
    if host not in HOST_LIMITS:
        return False
    unit, limit = HOST_LIMITS[host]
    size = js.length(text) if unit == "utf-16 units" else len(text.encode("utf-8"))
    return size > limit


def _session_brief(root: str, request: HookRequest) -> tuple[str, list[briefs.BriefUnit]]:
    if not request.dry_run:
        if request.session and request.source in ("clear", "compact"):
            machine_state.forget_session(request.host, request.session)  # its context is gone
        machine_state.forget_old_sessions()
    found = briefs.gather(root, request.budget, history=_history_ready(root, request))
    text, shown = _fitted(found.entries, found.total, request, "brief")
    return text, [entry for entry in shown if entry.id is not None]


def _prompt_memories(
    root: str, request: HookRequest
) -> tuple[str, list[briefs.BriefUnit], list[briefs.BriefUnit]]:
    if not request.prompt:
        return "", [], []
    seen = _seen(request)
    prompt = request.prompt
    found = briefs.prompt_answer(root, prompt, request.threshold, seen, PROMPT_AT_MOST)
    entries = found.entries + found.commits
    if found.history == git_history.STALE and _history_apart(root, request):
        room = PROMPT_AT_MOST - len(entries)
        entries += _commits(
            request, lambda: briefs.prompt_commits(root, prompt, request.threshold, seen, room)
        )
    text, shown, lost = _claimed(entries, request, "prompt")
    return text, shown, found.withheld + lost


def _history_ready(root: str, request: HookRequest) -> bool:
    """Whether the commits can be looked up with no history to index in this process: the
    index holds them at HEAD, or there are none to index (the lookup says why), or a process
    of its own has just indexed them (`_history_apart`)."""
    from mem.domain import history  # not for a hook outside git, or with history off

    if not history.in_hooks(root) or history.state(root) != history.STALE:
        return True
    return _history_apart(root, request)


def _history_apart(root: str, request: HookRequest) -> bool:
    """The commits indexed at HEAD in a process of its own (mem.index.background), waited
    for while the hook may, leaving it HISTORY_RESERVE seconds: True when they are.
    Cut off, the indexing goes on and a later hook finds the commits (a first indexing of
    a large history outlasts any hook's deadline, and one rolled back with the hook was
    started again by every hook)."""
    from mem.domain import history
    from mem.files import detached
    from mem.index import background

    indexer = detached.start(lambda: background.sync_history(root))
    left = None if request.deadline is None else request.deadline - time.monotonic()
    # Ended, it may have left the work to another such process still at it: then the
    # history is not indexed yet, and looking commits up would index it here.
    ended = detached.wait(indexer, None if left is None else left - HISTORY_RESERVE)
    if ended and history.state(root) != history.STALE:
        return True
    # An ended process that left the commits unindexed is not "going on": it found another
    # at work, or a cache that cannot keep them (a full disk), and the log must say so.
    why = (
        f"process {indexer} ended with the history of this checkout not indexed (another"
        " process at it, or a cache that cannot keep it)"
        if ended
        else f"the history of this checkout is being indexed in process {indexer}, which goes on"
    )
    _log_problem(request.host, request.event, Deadline(why + "; the notes alone, no commits"))
    return False


def _commits(
    request: HookRequest, find: Callable[[], list[briefs.BriefUnit]]
) -> list[briefs.BriefUnit]:
    """The commits to add after the notes; none when bringing the history in step (HEAD
    moved again since it was indexed) runs past the hook's deadline: the notes go out
    alone, the log says why."""
    try:
        return find()
    except Deadline as error:
        _log_problem(request.host, request.event, Deadline(f"{error}; the notes alone, no commits"))
        return []


def _claimed(
    entries: list[briefs.BriefUnit], request: HookRequest, kind: str, total: int | None = None
) -> tuple[str, list[briefs.BriefUnit], list[briefs.BriefUnit]]:
    """The text of the entries that fit (of `total`, when more were found than offered), less
    those another hook of the session claimed (the third list)."""
    if not entries:
        return "", [], []
    text, shown = _fitted(entries, len(entries) if total is None else total, request, kind)
    if not request.session or request.dry_run:
        return text, shown, []
    # Once per session, also when hooks run at once: what another claimed first goes.
    claimed = set(machine_state.claim_injected(request.host, request.session, _keys(shown)))
    kept = [entry for entry in shown if _key(entry) in claimed]
    lost = [entry for entry in shown if _key(entry) not in claimed]
    if not lost or not kept:
        return (text, shown, []) if kept else ("", [], lost)
    return (*_fitted(kept, len(kept), request, kind), lost)


def _key(entry: briefs.BriefUnit) -> str:
    return f"{entry.id} {entry.revision}"


def _keys(entries: list[briefs.BriefUnit]) -> list[str]:
    return [_key(entry) for entry in entries]


def _seen(request: HookRequest) -> set[str]:
    """What the session was given already (`<id> <revision>`)."""
    if not request.session:
        return set()
    return machine_state.injected_in_session(request.host, request.session)


def _edit_memories(
    root: str, request: HookRequest
) -> tuple[str, list[briefs.BriefUnit], list[briefs.BriefUnit]]:
    from mem.domain import edits

    seen = _seen(request)
    entries, total = edits.governing(root, request.edit, request.cwd, seen, EDIT_AT_MOST)
    room = EDIT_AT_MOST - len(entries)
    commits = []
    if room > 0 and _history_ready(root, request):
        commits = _commits(
            request, lambda: edits.governing_commits(root, request.edit, request.cwd, seen, room)
        )
    return _claimed(entries + commits, request, "edit", total + len(commits))


def _wrap(request: HookRequest, text: str) -> str:
    name = HOST_EVENTS[request.host][request.event]
    output = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    return js.stringify(output) + "\n"


def _record(
    request: HookRequest,
    root: str,
    now: str,
    answer: str,
    memories: list[briefs.BriefUnit],
    kind: str = "injection",
) -> None:
    """An injection's line; or (kind "withheld") the line of a hook that printed nothing
    because the session had every memory that matched."""
    data = answer.encode("utf-8")
    record = {
        "ts": now,
        "kind": kind,
        "host": request.host,
        "session": request.session,
        "event": request.event,
        "source": request.source,
        "project": root,
        "memories": [{"id": entry.id, "revision": entry.revision} for entry in memories],
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if kind == "withheld":  # nothing was printed: no bytes to describe
        del record["bytes"], record["sha256"]
        record["reason"] = WITHHELD_REASON
    if request.session and request.event == "session-start":  # the others' were claimed
        machine_state.claim_injected(request.host, request.session, _keys(memories))
    # Last: a record written means the answer goes out (nothing after it can fail).
    machine_state.append_record(js.stringify(record) + "\n")


def _log_problem(host: str, event: str, error: BaseException) -> None:
    if isinstance(error, MemError | Deadline):
        reason = str(error)
    else:
        import traceback  # a bug: its whole traceback, for whoever reads the log

        reason = "".join(traceback.format_exception(error)).rstrip().replace("\n", "\n    ")
    # The wall clock, not MEM_NOW: a bad MEM_NOW may be the very problem logged.
    when = js.iso_from_ms(time.time_ns() // 1_000_000)
    machine_state.append_hook_problem(f"{when} {host} {event}: {reason}\n")
