"""`mem doctor hooks`: whether each host's mem hooks will run, read from trust files shaped
exactly as the real hosts write them, and each problem's fix.

The shapes were taken from the hosts themselves (Claude Code 2.1.197 accepting its trust
dialog in a terminal; Codex 0.171.0's `exec --trust` and the `config/batchWrite` its
/hooks screen sends; Gemini CLI 0.61.0 trusting a folder in its dialog), with the paths
put in place.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.cli import RunMem

from mem.core.rules import hook_settings, host_trust

HOST_VARIABLES = (
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "GEMINI_RESTRICTED_MODE",
)


@pytest.fixture(autouse=True)
def hosts_home(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hosts look only in the test's home (and never at this machine's /etc/gemini-cli)."""
    for name in HOST_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(isolated_env / "no-system.json"))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", str(isolated_env / "no-defaults.json"))
    return isolated_env


def _doctor(run_mem: RunMem, project: Path, env: dict[str, str] | None = None) -> tuple[int, Any]:
    done = run_mem("doctor", "hooks", "--json", "-d", str(project), env=env)
    assert done.stdout.count("\n") == 1, done.stdout  # one compact object
    return done.returncode, json.loads(done.stdout)


def _hosts(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {host["host"]: host for host in result["hosts"]}


def _install(run_mem: RunMem, project: Path, *args: str) -> None:
    done = run_mem("init", "--agents", "--hooks", *args, "-d", str(project))
    assert done.returncode == 0, done.stderr


def _trust_claude(home: Path, folder: Path) -> None:
    """~/.claude.json as Claude Code 2.1.197 left it after its trust dialog was accepted."""
    project = {
        "allowedTools": [],
        "mcpContextUris": [],
        "mcpServers": {},
        "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [],
        "hasTrustDialogAccepted": True,
        "projectOnboardingSeenCount": 1,
        "hasClaudeMdExternalIncludesApproved": False,
        "hasClaudeMdExternalIncludesWarningShown": False,
        "lastGracefulShutdown": True,
        "lastVersionBase": "2.1.197",
    }
    config = {
        "hasCompletedOnboarding": True,
        "projects": {str(folder): project},
        "firstStartTime": "2026-12-07T16:11:21.296Z",
        "migrationVersion": 13,
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2), encoding="utf-8")


def _codex_trust(project: Path, hooks_file: Path, settings: dict[str, Any]) -> str:
    """config.toml as Codex 0.171.0 writes it: `exec --trust`, then /hooks' trust."""
    lines = [
        'model = "gpt-5.5"',
        "",
        f'[projects."{project}"]',
        'trust_level = "trusted"',
    ]
    for entry in host_trust.codex_entries(settings, str(hooks_file)):
        lines += ["", f'[hooks.state."{entry.key}"]', f'trusted_hash = "{entry.hash}"']
    return "\n".join(lines) + "\n"


def _trust_codex(home: Path, top: Path, project: Path) -> None:
    hooks_file = project / ".codex/hooks.json"
    settings = json.loads(hooks_file.read_text(encoding="utf-8"))
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex/config.toml").write_text(_codex_trust(top, hooks_file, settings), "utf-8")


def _trust_gemini(home: Path, rules: dict[str, str]) -> None:
    """~/.gemini/trustedFolders.json as Gemini CLI 0.61.0 saves it: 2 spaces, no final newline."""
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini/trustedFolders.json").write_text(json.dumps(rules, indent=2))


def test_no_hooks_installed_is_no_problem_and_says_how(run_mem: RunMem, project: Path) -> None:
    done = run_mem("doctor", "hooks", "-d", str(project))
    assert done.returncode == 0
    assert "No host has mem's hooks: `mem init --agents --hooks` installs them." in done.stdout


def test_hooks_no_host_trusts_yet_are_each_a_problem_with_its_fix(
    run_mem: RunMem, project: Path, hosts_home: Path
) -> None:
    _install(run_mem, project)
    code, result = _doctor(run_mem, project)
    assert code == 1
    hosts = _hosts(result)
    assert [item["file"] for item in hosts["codex"]["installed"]] == [".codex/hooks.json"]
    assert all(command["runs"] for command in hosts["codex"]["installed"][0]["commands"])
    (claude,) = hosts["claude-code"]["problems"]
    assert f'set projects["{project}"].hasTrustDialogAccepted to true in' in claude["fix"]
    assert str(hosts_home / ".claude.json") in claude["fix"]
    project_trust, hook_trust = hosts["codex"]["problems"]
    assert f'[projects."{project}"]\ntrust_level = "trusted"' in project_trust["fix"]
    assert hook_trust["problem"].startswith("Codex skips 3 of mem's hooks, not trusted yet")
    settings = json.loads((project / ".codex/hooks.json").read_text(encoding="utf-8"))
    for entry in host_trust.codex_entries(settings, str(project / ".codex/hooks.json")):
        assert f'[hooks.state."{entry.key}"]\ntrusted_hash = "{entry.hash}"' in hook_trust["fix"]
    (gemini,) = hosts["gemini"]["problems"]
    assert f'"{project}": "TRUST_FOLDER"' in gemini["fix"]
    assert "`--skip-trust` starts but still ignores the project's hooks" in gemini["problem"]
    assert result["problems"] == 4
    text = run_mem("doctor", "hooks", "-d", str(project)).stdout
    assert "  problem   codex: .codex/hooks.json (project)\n" in text
    assert text.endswith("4 problem(s): those hooks will not run until fixed.\n")


def test_every_host_trusting_the_project_and_mem_s_hooks_is_exit_0(
    run_mem: RunMem, git_project: Path, hosts_home: Path
) -> None:
    inner = git_project / "service"  # a project in a subfolder: Codex trusts the work tree's top
    inner.mkdir()
    (git_project / ".agents").rename(inner / ".agents")
    _install(run_mem, inner)
    _trust_claude(hosts_home, git_project)
    _trust_codex(hosts_home, git_project, inner)
    _trust_gemini(hosts_home, {str(git_project / "service"): "TRUST_FOLDER"})
    code, result = _doctor(run_mem, inner)
    assert (code, result["problems"]) == (0, 0), result
    assert {status["status"] for status in _hosts(result)["codex"]["trust"]["hooks"]} == {"trusted"}
    text = run_mem("doctor", "hooks", "-d", str(inner)).stdout
    for host in ("claude-code", "codex", "gemini"):
        assert f"  ok        {host}: " in text


def test_codex_skips_an_entry_changed_since_it_was_trusted_and_one_switched_off(
    run_mem: RunMem, project: Path, hosts_home: Path
) -> None:
    _install(run_mem, project, "--host", "codex")
    _trust_codex(hosts_home, project, project)
    assert _doctor(run_mem, project)[0] == 0
    hooks_file = project / ".codex/hooks.json"
    settings = json.loads(hooks_file.read_text(encoding="utf-8"))
    settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 9
    hooks_file.write_text(json.dumps(settings), encoding="utf-8")
    key = f"{hooks_file}:session_start:0:0"
    config = hosts_home / ".codex/config.toml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n'
        ),
        encoding="utf-8",
    )
    code, result = _doctor(run_mem, project)
    off, changed = _hosts(result)["codex"]["problems"]
    assert code == 1
    assert off["problem"] == f"Codex has mem's SessionStart hook switched off ({key})"
    assert changed["problem"].startswith(
        "Codex skips 1 of mem's hooks, changed since they were trusted"
    )


@pytest.mark.parametrize(
    ("rules", "env", "settings", "trusted"),
    [
        ({"{parent}": "TRUST_FOLDER"}, {}, {}, True),
        ({"{project}/.agents": "TRUST_PARENT"}, {}, {}, True),
        ({"{parent}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, {}, {}, False),
        ({}, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, {}, True),
        ({"{project}": "TRUST_FOLDER"}, {"GEMINI_CLI_TRUST_WORKSPACE": "false"}, {}, False),
        ({}, {}, {"security": {"folderTrust": {"enabled": False}}}, True),
    ],
    ids=["parent-folder", "trust-parent", "do-not-trust", "env-true", "env-false", "trust-off"],
)
def test_gemini_trust_as_gemini_cli_decides_it(
    run_mem: RunMem,
    project: Path,
    hosts_home: Path,
    rules: dict[str, str],
    env: dict[str, str],
    settings: dict[str, Any],
    trusted: bool,
) -> None:
    _install(run_mem, project, "--host", "gemini")
    names = {"parent": str(project.parent), "project": str(project)}
    _trust_gemini(hosts_home, {path.format(**names): level for path, level in rules.items()})
    (hosts_home / ".gemini/settings.json").write_text(json.dumps(settings), encoding="utf-8")
    code, result = _doctor(run_mem, project, env)
    assert _hosts(result)["gemini"]["trust"]["trusted"] is trusted
    assert code == (0 if trusted else 1)


def test_gemini_refusing_its_trust_file_or_mem_s_hook_names_is_a_problem(
    run_mem: RunMem, project: Path, hosts_home: Path
) -> None:
    _install(run_mem, project, "--host", "gemini")
    _trust_gemini(hosts_home, {str(project): "TRUST_FOLDER", "/elsewhere": "YES"})
    user = {"hooksConfig": {"disabled": ["mem-prompt"]}}
    (hosts_home / ".gemini/settings.json").write_text(json.dumps(user), encoding="utf-8")
    code, result = _doctor(run_mem, project)
    refused, disabled = (problem["problem"] for problem in _hosts(result)["gemini"]["problems"])
    assert code == 1
    assert "has trust level 'YES'" in refused
    assert disabled == "Gemini CLI has mem's hook mem-prompt switched off (hooksConfig.disabled)"


def test_a_command_the_host_cannot_start_is_a_problem_fixed_by_init(
    run_mem: RunMem, project: Path, hosts_home: Path, tmp_path: Path
) -> None:
    (project / ".claude").mkdir()
    handler = {"type": "command", "command": "mem hook prompt --host claude-code"}
    bare = {"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}}
    (project / ".claude/settings.json").write_text(json.dumps(bare), encoding="utf-8")
    _trust_claude(hosts_home, project)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    code, result = _doctor(run_mem, project, {"PATH": str(empty)})
    (problem,) = _hosts(result)["claude-code"]["problems"]
    assert code == 1
    assert problem["problem"] == (
        ".claude/settings.json: `mem hook prompt --host claude-code` cannot start:"
        f" mem is not on this shell's PATH ({empty})"
    )
    assert problem["fix"].startswith("run `mem init --agents --hooks` again")
    _install(run_mem, project, "--host", "claude-code")
    assert _doctor(run_mem, project, {"PATH": str(empty)})[0] == 0


def test_user_hooks_are_keyed_under_codex_home(
    run_mem: RunMem, project: Path, hosts_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = hosts_home / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    _install(run_mem, project, "--host", "codex", "--user")
    code, result = _doctor(run_mem, project)
    (problem,) = _hosts(result)["codex"]["problems"]  # no project trust needed for these
    assert code == 1
    assert f'[hooks.state."{codex_home}/hooks.json:session_start:0:0"]' in problem["fix"]
    settings = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))
    entries = host_trust.codex_entries(settings, str(codex_home / "hooks.json"))
    (codex_home / "config.toml").write_text(
        "".join(f'[hooks.state."{e.key}"]\ntrusted_hash = "{e.hash}"\n' for e in entries),
        encoding="utf-8",
    )
    assert _doctor(run_mem, project)[0] == 0
    assert hook_settings.has_ours(settings)


def test_host_files_that_are_broken_or_not_files_are_problems_not_tracebacks(
    run_mem: RunMem, project: Path, hosts_home: Path
) -> None:
    _install(run_mem, project)
    (hosts_home / ".claude.json").write_bytes(b"\xff{not json")
    (hosts_home / ".codex").mkdir()
    (hosts_home / ".codex/config.toml").write_text('[projects."x"\n', encoding="utf-8")
    (hosts_home / ".gemini").mkdir()
    os.mkfifo(hosts_home / ".gemini/trustedFolders.json")  # a plain open would hang
    code, result = _doctor(run_mem, project)
    problems = [p["problem"] for host in result["hosts"] for p in host["problems"]]
    assert code == 1
    assert f"{hosts_home / '.claude.json'} is not valid JSON" in problems[0]
    assert any(f"{hosts_home / '.codex/config.toml'} is not valid TOML" in p for p in problems)
    assert any("trustedFolders.json cannot be read: Not a regular file" in p for p in problems)


def test_gemini_settings_with_comments_are_read_as_gemini_cli_reads_them(
    run_mem: RunMem, project: Path, hosts_home: Path
) -> None:
    _install(run_mem, project, "--host", "gemini")
    path = project / ".gemini/settings.json"
    path.write_text("// mem's hooks, by hand\n" + path.read_text(encoding="utf-8"), "utf-8")
    _trust_gemini(hosts_home, {str(project): "TRUST_FOLDER"})
    (hosts_home / ".gemini/settings.json").write_text(
        '{\n  // folder trust stays on\n  "security": {"folderTrust": {"enabled": true}}\n}\n',
        encoding="utf-8",
    )
    code, result = _doctor(run_mem, project)
    assert (code, _hosts(result)["gemini"]["installed"][0]["file"]) == (0, ".gemini/settings.json")
