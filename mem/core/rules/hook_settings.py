"""mem's hooks in each host's settings, merged in and taken out. Pure: parsed JSON in and out.

Claude Code (`.claude/settings.json`), Codex (`.codex/hooks.json`) and Gemini CLI
(`.gemini/settings.json`) share one shape, `{"hooks": {Event: [{"matcher", "hooks": [handler]}]}}`,
with their own event names and timeout units (seconds, seconds, milliseconds). mem's
handlers are recognised by their command (`mem hook <event> --host <host>`, whatever path
names the executable): merging replaces them in place or appends one group per event,
removing takes out only them (and the groups and events they leave empty). Every other
key, event, group and handler is kept as it was, in its order.
"""

from __future__ import annotations

import shlex
from typing import Any

from mem.errors import MemError

HOSTS = ("claude-code", "codex", "gemini")
PROJECT_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
# Codex refuses a hooks.json with any other root key (`unknown field`, and the whole file
# is dropped); `description` only from 0.142 on, so mem never adds one.
CODEX_ROOT_KEYS = ("hooks", "description")
SESSION_TIMEOUT_S = 30  # a first index build of a big project can take seconds
PROMPT_TIMEOUT_S = 5
# The edit tools whose input names the file: Claude Code's; Codex's apply_patch (which also
# answers to Edit and Write); Gemini CLI's write_file and replace (its matchers are
# unanchored regular expressions, so anchored here).
EDIT_MATCHERS = {
    "claude-code": "Edit|Write|MultiEdit|NotebookEdit",
    "codex": "apply_patch|Edit|Write",
    "gemini": "^(write_file|replace)$",
}


def _handler(host: str, event: str, timeout_s: int, program: str) -> dict[str, Any]:
    handler: dict[str, Any] = {
        "type": "command",
        "command": f"{shlex.quote(program)} hook {event} --host {host}",
        # Gemini CLI counts milliseconds; Claude Code and Codex, seconds.
        "timeout": timeout_s * 1000 if host == "gemini" else timeout_s,
    }
    if host == "gemini":
        return {"name": f"mem-{event}", **handler, "description": "Project memory (mem)"}
    return handler


def wanted(host: str, program: str = "mem") -> dict[str, tuple[str | None, dict[str, Any]]]:
    """Event name -> (matcher, handler) of mem's hooks for this host, run by program."""
    if host == "gemini":
        # Gemini CLI compares a lifecycle matcher as an exact string; "*" matches them all.
        # Gemini CLI 0.61 takes no context from BeforeTool: AfterTool's joins the tool result.
        return {
            "SessionStart": ("*", _handler(host, "session-start", SESSION_TIMEOUT_S, program)),
            "BeforeAgent": ("*", _handler(host, "prompt", PROMPT_TIMEOUT_S, program)),
            "AfterTool": (
                EDIT_MATCHERS[host],
                _handler(host, "pre-edit", PROMPT_TIMEOUT_S, program),
            ),
        }
    return {
        "SessionStart": (
            "startup|resume|clear|compact",
            _handler(host, "session-start", SESSION_TIMEOUT_S, program),
        ),
        "UserPromptSubmit": (None, _handler(host, "prompt", PROMPT_TIMEOUT_S, program)),
        "PreToolUse": (EDIT_MATCHERS[host], _handler(host, "pre-edit", PROMPT_TIMEOUT_S, program)),
    }


def is_ours(handler: Any) -> bool:
    """Whether a handler is one of mem's: its command runs `mem hook <event>`, the bare name
    (as mem wrote it before it wrote absolute paths) or any path to a `mem`."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:  # an unclosed quote: not a command mem wrote
        return False
    return (
        len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("mem", "mem.exe") and words[1] == "hook"
    )


def _events(settings: dict[str, Any], label: str) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise MemError(f"{label}: `hooks` is not an object; mem leaves the file alone.")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise MemError(f"{label}: `hooks.{event}` is not a list; mem leaves the file alone.")
    return hooks


def merged(settings: dict[str, Any], host: str, label: str, program: str = "mem") -> dict[str, Any]:
    """The settings with mem's hooks for host: each replaced where it stands, else appended."""
    result = dict(settings)
    hooks = dict(_events(settings, label))
    for event, (matcher, handler) in wanted(host, program).items():
        placed = False
        groups = []
        for group in hooks.get(event, []):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                groups.append(group)
                continue
            had_ours = any(is_ours(each) for each in group["hooks"])
            kept = []
            for each in group["hooks"]:
                if not is_ours(each):
                    kept.append(each)
                elif not placed:  # the first of mem's stays where it stands, renewed
                    kept.append(handler)
                    placed = True
            if had_ours and not kept:
                continue  # a second copy of mem's hook, alone in its group
            groups.append({**group, "hooks": kept} if had_ours else group)
        if not placed:
            new = (
                {"hooks": [handler]}
                if matcher is None
                else {"matcher": matcher, "hooks": [handler]}
            )
            groups.append(new)
        hooks[event] = groups
    result["hooks"] = hooks
    return result


def without(settings: dict[str, Any], label: str) -> dict[str, Any] | None:
    """The settings without mem's hooks (of any host); None when the file would be empty."""
    hooks = _events(settings, label)
    result = dict(settings)
    kept_events: dict[str, Any] = {}
    removed = False
    for event, groups in hooks.items():
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [each for each in group["hooks"] if not is_ours(each)]
                if len(handlers) < len(group["hooks"]):
                    removed = True
                    if not handlers:
                        continue  # the group held only mem's hook: it goes with it
                    group = {**group, "hooks": handlers}
            kept_groups.append(group)
        if kept_groups or not groups:
            kept_events[event] = kept_groups
    if not removed:
        return settings
    if kept_events:
        result["hooks"] = kept_events
    else:
        del result["hooks"]
    return result or None


def has_ours(settings: dict[str, Any]) -> bool:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return False
    return any(
        is_ours(each)
        for groups in hooks.values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for each in group["hooks"]
    )


def warnings(settings: dict[str, Any], host: str) -> list[str]:
    """What the host would refuse in the file (mem keeps it as it is)."""
    if host != "codex":
        return []
    extra = [key for key in settings if key not in CODEX_ROOT_KEYS]
    if not extra:
        return []
    return [
        f"Codex refuses a hooks.json with root keys other than hooks and description:"
        f" {', '.join(extra)}"
    ]
