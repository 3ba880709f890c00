"""`mem init --agents --hooks [--host HOST...] [--user] [--remove]`: mem's hooks in each
host's settings file (mem.core.rules.hook_settings says what is merged and what is taken out).

Every file is read and merged before any is written, so a refusal (a file that is not a
plain JSON object, a link in a project path) leaves all of them as they were.
"""

from __future__ import annotations

from typing import Any

from mem.core.rules import hook_settings, secrets
from mem.errors import MemError
from mem.files import host_settings, host_state

# Codex keeps a hash of each hook entry it was told to trust, and skips one that changed.
CODEX_TRUST = [
    "Codex runs a new or changed hook only once you trust it (`codex`, then /hooks);"
    " `mem doctor hooks` says what each host still needs"
]


def hosts_of(names: list[str]) -> list[str]:
    """The hosts asked for, each once in the order given; every host when none is named."""
    for name in names:
        if name not in hook_settings.HOSTS:
            raise MemError(f"--host must be one of {', '.join(hook_settings.HOSTS)}, not {name!r}")
    return list(dict.fromkeys(names)) or list(hook_settings.HOSTS)


def check(root: str, hosts: list[str], user: bool, removing: bool) -> None:
    """Refuse now what install or remove would refuse, before any instruction file is written."""
    for host in hosts:
        folder, relative = host_settings.location(root, host, user)
        label = host_settings.label(host, user)
        before = host_settings.read(folder, relative, label)
        if removing:
            hook_settings.without(before or {}, label)
        else:
            hook_settings.merged(before or {}, host, label)


def install(root: str, hosts: list[str], user: bool) -> list[dict[str, Any]]:
    """Merge mem's hooks into each file, run by the absolute path of this very `mem`: a host
    whose PATH lacks its virtual environment still starts it (docs/hooks.md)."""
    program = host_state.running_program()
    planned = []
    for host in hosts:
        folder, relative = host_settings.location(root, host, user)
        label = host_settings.label(host, user)
        before, style = host_settings.read_styled(folder, relative, label)
        after = hook_settings.merged(before or {}, host, label, program)
        wanted = hook_settings.wanted(host, program).values()
        commands = [handler["command"] for _, handler in wanted]
        secrets.refuse([("the hook command", command) for command in commands])
        planned.append((host, folder, relative, label, before, style, after))
    results = []
    for host, folder, relative, label, before, style, after in planned:
        if before is not None and host_settings.text_of(before) == host_settings.text_of(after):
            action = "unchanged"
        else:
            host_settings.write(folder, relative, after, style)
            action = "created" if before is None else "updated"
        results.append(
            {
                "host": host,
                "path": label,
                "action": action,
                "program": program,
                "warnings": hook_settings.warnings(after, host)
                + (CODEX_TRUST if host == "codex" and action != "unchanged" else []),
            }
        )
    return results


def remove(root: str, hosts: list[str], user: bool) -> list[dict[str, Any]]:
    planned = []
    for host in hosts:
        folder, relative = host_settings.location(root, host, user)
        label = host_settings.label(host, user)
        before, style = host_settings.read_styled(folder, relative, label)
        after = None if before is None else hook_settings.without(before, label)
        planned.append((host, folder, relative, label, before, style, after))
    results = []
    for host, folder, relative, label, before, style, after in planned:
        if before is None or not hook_settings.has_ours(before):
            action = "absent"
        elif after is None:
            host_settings.remove(folder, relative, user)
            action = "deleted"
        else:
            host_settings.write(folder, relative, after, style)
            action = "removed"
        results.append({"host": host, "path": label, "action": action, "warnings": []})
    return results
