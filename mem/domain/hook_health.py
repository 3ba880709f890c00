"""Whether each host's mem hooks will really run in a project on this machine, and the fix.

Hooks fail silently: a host that does not trust the folder, or a hook entry, skips it
without a word, and a command the host cannot start fails every prompt. Per host this
looks at where mem's hooks are installed (the project's settings file, the user's), whether
the host can read that file, whether each hook's command can start, and the host's own
trust (mem.core.rules.host_trust holds the rules). Every problem comes with the step that fixes
it; nothing is changed here.
"""

from __future__ import annotations

import os
from typing import Any

from mem.core.rules import hook_settings, host_trust
from mem.errors import MemError
from mem.files import gitrepo, host_settings, host_state

REINSTALL = "mem init --agents --hooks"
# The names mem gives its Gemini CLI hooks, which `hooksConfig.disabled` can list.
GEMINI_HOOK_NAMES = tuple(handler["name"] for _, handler in hook_settings.wanted("gemini").values())


def check(root: str) -> dict[str, Any]:
    top = gitrepo.toplevel(root) or root
    hosts = [_claude(root, top), _codex(root, top), _gemini(root)]
    return {
        "root": root,
        "path": host_state.search_path(),
        "hosts": hosts,
        "problems": sum(len(host["problems"]) for host in hosts),
    }


def _problem(problem: str, fix: str) -> dict[str, str]:
    return {"problem": problem, "fix": fix}


def _installed(root: str, host: str, report: dict[str, Any]) -> list[tuple[bool, dict[str, Any]]]:
    """(user scope?, settings) of each file holding mem's hooks for host; their commands checked."""
    found = []
    for user in (False, True):
        folder, relative = host_settings.location(root, host, user)
        label = host_settings.label(host, user)
        try:
            settings = host_settings.read(folder, relative, label)
        except MemError as error:
            settings = _gemini_with_comments(host, os.path.join(folder, relative))
            if settings is None:
                report["problems"].append(
                    _problem(f"{error} The host may not read it either.", f"fix {label} by hand")
                )
                continue
        if settings is None or not hook_settings.has_ours(settings):
            continue
        flag = " --user" if user else ""
        commands = []
        for problem in hook_settings.warnings(settings, host):
            report["problems"].append(_problem(f"{label}: {problem}", f"take them out of {label}"))
        for handler in _our_handlers(settings):
            program, runnable = host_state.resolve_command(handler["command"], root)
            commands.append({"command": handler["command"], "runs": runnable})
            if runnable is None:
                where = (
                    f"is not on this shell's PATH ({host_state.search_path()})"
                    if "/" not in program
                    else "does not exist or is not executable"
                )
                report["problems"].append(
                    _problem(
                        f"{label}: `{handler['command']}` cannot start: {program} {where}",
                        f"run `{REINSTALL}{flag}` again with the mem you want the hooks to run"
                        " (it writes that mem's absolute path)",
                    )
                )
            elif "/" not in program:
                report["notes"].append(
                    f"{label}: `{program}` is found on this shell's PATH ({runnable}); a host"
                    f" started with another PATH will not find it: `{REINSTALL}{flag}` writes"
                    " the absolute path"
                )
        report["installed"].append(
            {"scope": "user" if user else "project", "file": label, "commands": commands}
        )
        found.append((user, settings))
    return found


def _gemini_with_comments(host: str, path: str) -> dict[str, Any] | None:
    """Gemini CLI reads its settings with comments (which mem will not rewrite, but checks)."""
    if host != "gemini":
        return None
    try:
        value = host_state.read_jsonc(path)
    except host_state.Unreadable:
        return None
    return value if isinstance(value, dict) else None


def _our_handlers(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        handler
        for groups in settings["hooks"].values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
        if hook_settings.is_ours(handler)
    ]


def _report(host: str) -> dict[str, Any]:
    return {"host": host, "installed": [], "trust": {}, "problems": [], "notes": []}


def _read(read: Any, path: str, report: dict[str, Any]) -> Any:
    """A host file's value; None when missing, or unreadable (then a problem says so)."""
    try:
        return read(path)
    except host_state.Unreadable as error:
        report["problems"].append(_problem(f"{path} {error}", f"fix {path} by hand"))
        return None


def _claude(root: str, top: str) -> dict[str, Any]:
    report = _report("claude-code")
    if not _installed(root, "claude-code", report):
        return report
    path = host_state.claude_config_path()
    config = _read(host_state.read_json, path, report)
    trusted = host_trust.claude_trusted(config if isinstance(config, dict) else {}, top, root)
    report["trust"] = {"file": path, "folder": top, "trusted": trusted}
    if not trusted:
        report["problems"].append(
            _problem(
                f"Claude Code has not been told to trust {top}: an interactive session there"
                " runs no hook at all (`claude -p` runs them without asking)",
                f"run `claude` in {top} once and accept the trust dialog, or set"
                f' projects["{top}"].hasTrustDialogAccepted to true in {path}',
            )
        )
    return report


def _codex(root: str, top: str) -> dict[str, Any]:
    report = _report("codex")
    installed = _installed(root, "codex", report)
    if not installed:
        return report
    path = host_state.codex_config_path()
    config = _read(host_state.read_toml, path, report) or {}
    project_trusted = host_trust.codex_project_trusted(config, [top])
    listed: list[dict[str, Any]] = []
    report["trust"] = {"file": path, "folder": top, "trusted": project_trusted, "hooks": listed}
    if host_trust.codex_hooks_feature_off(config):
        report["problems"].append(
            _problem(
                f"{path} turns hooks off ([features] hooks = false)", f"delete that line in {path}"
            )
        )
    for user, settings in installed:
        if not user and not project_trusted:
            report["problems"].append(
                _problem(
                    f"Codex does not trust the project {top}, so it ignores"
                    f" {hook_settings.PROJECT_FILES['codex']}",
                    f"run `codex` in {top} and trust the folder, or have in {path}"
                    " (change the table if it is there):\n"
                    f'[projects.{host_trust.toml_string(top)}]\ntrust_level = "trusted"',
                )
            )
        source = host_state.codex_home() if user else os.path.join(root, ".codex")
        untrusted = []
        statuses: dict[str, str] = {}
        for entry in host_trust.codex_entries(settings, os.path.join(source, "hooks.json")):
            state = host_trust.codex_hook_state(config, entry.key)
            stored = state.get("trusted_hash")
            status = host_trust.codex_hook_status(state, entry.hash)
            statuses[entry.key] = status
            listed.append(
                {"key": entry.key, "hash": entry.hash, "trustedHash": stored, "status": status}
            )
            if status == "disabled":
                report["problems"].append(
                    _problem(
                        f"Codex has mem's {entry.event} hook switched off ({entry.key})",
                        f"delete `enabled = false` under"
                        f" [hooks.state.{host_trust.toml_string(entry.key)}] in {path}",
                    )
                )
            elif status != "trusted":
                untrusted.append(entry)
        if untrusted:
            changed = any(statuses[e.key] == "modified" for e in untrusted)
            said = "changed since they were trusted" if changed else "not trusted yet"
            lines = [
                f'[hooks.state.{host_trust.toml_string(e.key)}]\ntrusted_hash = "{e.hash}"'
                for e in untrusted
            ]
            report["problems"].append(
                _problem(
                    f"Codex skips {len(untrusted)} of mem's hooks, {said}, without a word"
                    " (`codex exec` never asks)",
                    f"run `codex` in {top}, type /hooks and trust them, or have in {path}"
                    " (change a table that is there):\n" + "\n".join(lines),
                )
            )
    return report


def _gemini(root: str) -> dict[str, Any]:
    report = _report("gemini")
    installed = _installed(root, "gemini", report)
    if not installed:
        return report
    defaults, user_layer, system = (
        value if isinstance(value, dict) else {}
        for value in (
            _read(host_state.read_jsonc, settings_path, report)
            for _, settings_path in host_state.gemini_settings_paths()
        )
    )
    layers = [defaults, user_layer, system]
    enabled = host_trust.gemini_setting(layers, "security", "folderTrust", "enabled")
    folder_trust = enabled is not False
    path = host_state.gemini_trusted_folders_path()
    rules_value = _read(host_state.read_jsonc, path, report)
    rules = rules_value if isinstance(rules_value, dict) else {}
    for error in host_trust.gemini_trust_errors(rules):
        report["problems"].append(
            _problem(f"Gemini CLI refuses to start while {path} has {error}", f"fix it in {path}")
        )
    location = host_state.real_path(root)
    override = host_state.gemini_trust_override()
    if override is not None:
        trusted, source = (
            override,
            "environment (GEMINI_CLI_TRUST_WORKSPACE, GEMINI_RESTRICTED_MODE)",
        )
    elif not folder_trust:
        trusted, source = True, "folder trust is off (security.folderTrust.enabled = false)"
    else:
        parsed = [
            host_trust.GeminiRule(
                rule,
                level,
                host_state.real_path(os.path.dirname(rule) if level == "TRUST_PARENT" else rule),
            )
            for rule, level in rules.items()
            if level in host_trust.GEMINI_LEVELS
        ]
        trusted, source = host_trust.gemini_trusted(parsed, location) is True, path
    report["trust"] = {"file": path, "folder": location, "trusted": trusted, "source": source}
    project = any(not user for user, _ in installed)
    if not trusted and project:
        report["problems"].append(
            _problem(
                f"Gemini CLI does not trust {location}: it ignores"
                f" {hook_settings.PROJECT_FILES['gemini']} there, and `gemini -p` refuses to"
                " start (`--skip-trust` starts but still ignores the project's hooks)",
                f"run `gemini` in {location} and trust the folder, or add"
                f' "{location}": "TRUST_FOLDER" to {path}'
                " (headless only: export GEMINI_CLI_TRUST_WORKSPACE=true)",
            )
        )
    elif not trusted:
        report["notes"].append(
            f"Gemini CLI does not trust {location}: `gemini -p` refuses to start there"
            f' (add "{location}": "TRUST_FOLDER" to {path})'
        )
    workspace = next((settings for user, settings in installed if not user), {})
    layers = [defaults, user_layer, workspace if trusted else {}, system]
    if host_trust.gemini_setting(layers, "hooksConfig", "enabled") is False:
        report["problems"].append(
            _problem(
                "Gemini CLI's hooks are turned off (hooksConfig.enabled = false)",
                "set hooksConfig.enabled to true (or delete it) in the settings file that has it",
            )
        )
    disabled = {
        name
        for layer in layers
        for name in (host_trust.gemini_setting([layer], "hooksConfig", "disabled") or [])
        if isinstance(name, str)
    }
    for name in GEMINI_HOOK_NAMES:
        if name in disabled:
            report["problems"].append(
                _problem(
                    f"Gemini CLI has mem's hook {name} switched off (hooksConfig.disabled)",
                    f"take {name!r} out of hooksConfig.disabled",
                )
            )
    return report
