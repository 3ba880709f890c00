"""What each agent host needs before it runs a project's hooks, decided from its own files. Pure.

Every rule here was read in the host's shipped code and checked by running it (docs/hooks.md,
"Will my hooks run?", says which version):

- Claude Code 2.1.197 skips every hook of an interactive session in a folder not trusted:
  `projects[<path>].hasTrustDialogAccepted` in `~/.claude.json`, for the git work tree's top
  (else the folder) or any folder above the one it started in. `claude -p` runs them anyway.
- Codex 0.171.0 reads a project's `.codex/hooks.json` only when `[projects."<root>"]
  trust_level = "trusted"` (the root is the git work tree's top; a folder above it is not
  enough), and then runs a hook only when `[hooks.state."<key>"] trusted_hash` equals the
  hash of that entry as it stands, so any change to an entry switches it off again.
- Gemini CLI 0.61.0 ignores a project's `.gemini/settings.json` in a folder not trusted
  (`~/.gemini/trustedFolders.json`: the longest rule containing the folder wins;
  TRUST_PARENT rules name a child of the trusted folder), and refuses to start headless
  there at all; `GEMINI_CLI_TRUST_WORKSPACE=true` trusts every folder, `--skip-trust`
  starts but still ignores the project's settings.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple

from mem.core.rules import hook_settings

# Codex hashes a hook as `config.toml` would hold it: None fields dropped, the timeout always
# there (600 s when unset), no matcher for the events that take none.
CODEX_DEFAULT_TIMEOUT_S = 600
CODEX_EVENTS_WITHOUT_MATCHER = ("UserPromptSubmit", "Stop")
GEMINI_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")


class CodexEntry(NamedTuple):
    """One of mem's handlers in a Codex hooks.json, as Codex keys and hashes it."""

    key: str
    event: str
    hash: str


def codex_event_label(event: str) -> str:
    """Codex's snake_case label of an event (`UserPromptSubmit` -> `user_prompt_submit`)."""
    return "".join(
        ("_" + char.lower()) if char.isupper() and index else char.lower()
        for index, char in enumerate(event)
    )


def codex_hash(event: str, matcher: Any, handler: dict[str, Any]) -> str:
    """`sha256:<hex>` of the entry as Codex 0.171 computes it (hooks/src/engine/discovery.rs).

    Checked against the `currentHash` the real `codex app-server` reports (`hooks/list`).
    """
    timeout = handler.get("timeout")
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, timeout if isinstance(timeout, int) else CODEX_DEFAULT_TIMEOUT_S),
        "async": handler.get("async") is True,
    }
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": codex_event_label(event), "hooks": [normalized]}
    if isinstance(matcher, str) and event not in CODEX_EVENTS_WITHOUT_MATCHER:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def codex_entries(settings: dict[str, Any], source_path: str) -> list[CodexEntry]:
    """mem's handlers in a hooks.json, keyed `<file>:<event>:<group>:<handler>` as Codex does."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for handler_index, handler in enumerate(group["hooks"]):
                if not hook_settings.is_ours(handler):
                    continue
                key = f"{source_path}:{codex_event_label(event)}:{group_index}:{handler_index}"
                found.append(
                    CodexEntry(key, event, codex_hash(event, group.get("matcher"), handler))
                )
    return found


def codex_project_trusted(config: dict[str, Any], roots: list[str]) -> bool:
    """Whether `[projects."<root>"] trust_level = "trusted"` holds for one of the roots."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return False
    return any(
        isinstance(projects.get(root), dict) and projects[root].get("trust_level") == "trusted"
        for root in roots
    )


def codex_hook_state(config: dict[str, Any], key: str) -> dict[str, Any]:
    """`[hooks.state."<key>"]` of the user's config.toml ({} when absent)."""
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    entry = state.get(key) if isinstance(state, dict) else None
    return entry if isinstance(entry, dict) else {}


def codex_hook_status(state: dict[str, Any], current: str) -> str:
    """disabled, trusted, modified (trusted as it was before a change) or untrusted."""
    stored = state.get("trusted_hash")
    if state.get("enabled") is False:
        return "disabled"
    if stored == current:
        return "trusted"
    return "modified" if isinstance(stored, str) else "untrusted"


def codex_hooks_feature_off(config: dict[str, Any]) -> bool:
    features = config.get("features")
    return isinstance(features, dict) and features.get("hooks") is False


def toml_string(text: str) -> str:
    """A TOML basic string (what a fix step tells the user to paste)."""
    return json.dumps(text, ensure_ascii=False)


def ancestors(path: str) -> list[str]:
    """The absolute path and every folder above it, nearest first."""
    found = [path]
    while path not in ("", "/"):
        path = path.rsplit("/", 1)[0] or "/"
        found.append(path)
    return found


def claude_trusted(config: dict[str, Any], top: str, cwd: str) -> bool:
    """Claude Code's folder trust: the work tree's top, or the folder or any folder above it."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return False
    return any(
        isinstance(projects.get(path), dict)
        and projects[path].get("hasTrustDialogAccepted") is True
        for path in [top, *ancestors(cwd)]
    )


class GeminiRule(NamedTuple):
    """A trustedFolders.json rule, with the real path of the folder it covers."""

    path: str
    level: str
    covers: str


def gemini_trust_errors(rules: dict[str, Any]) -> list[str]:
    """What makes Gemini CLI refuse the whole file (and start no session at all)."""
    return [
        f"{path!r} has trust level {value!r} (Gemini CLI accepts {', '.join(GEMINI_LEVELS)})"
        for path, value in rules.items()
        if value not in GEMINI_LEVELS
    ]


def gemini_trusted(rules: list[GeminiRule], location: str) -> bool | None:
    """The longest rule whose folder holds location decides; None when no rule does."""
    best: GeminiRule | None = None
    for rule in rules:
        if location == rule.covers or location.startswith(rule.covers.rstrip("/") + "/"):
            if best is None or len(rule.path) > len(best.path):
                best = rule
    if best is None:
        return None
    return best.level != "DO_NOT_TRUST"


def without_comments(text: str) -> str:
    """JSON with `//` and `/* */` comments blanked out, strings kept (Gemini CLI's files)."""
    out = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < size and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index = end + 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = size if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = size if end < 0 else end + 2
            out.append(" ")
        else:
            out.append(char)
            index += 1
    return "".join(out)


def gemini_setting(layers: list[dict[str, Any]], *names: str) -> Any:
    """A setting as Gemini CLI merges its files (later layers win); None when none sets it."""
    found = None
    for layer in layers:
        value: Any = layer
        for name in names:
            value = value.get(name) if isinstance(value, dict) else None
        if value is not None:
            found = value
    return found
