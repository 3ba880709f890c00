"""`mem init --agents --hooks`: mem's hooks merged into each host's settings, every other key
and hook kept, idempotent, `--remove` taking out only mem's; the instructions where each
host reads them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.cli import RunMem, mem_command

from mem.core.rules import hook_settings

pytestmark = pytest.mark.script

USERS_OWN = {
    "model": "opus",
    "env": {"FOO": "1"},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}],
    },
}
FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}


def _init(run_mem: RunMem, project: Path, *args: str) -> dict[str, object]:
    done = run_mem("init", "--agents", *args, "--json", "-d", str(project))
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _json(path: Path) -> dict[str, object]:
    value: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return value


def _ours(settings: dict[str, object]) -> list[dict[str, object]]:
    hooks = settings["hooks"]
    assert isinstance(hooks, dict)
    return [
        handler
        for groups in hooks.values()
        for group in groups
        for handler in group["hooks"]
        if hook_settings.is_ours(handler)
    ]


def test_the_hooks_go_into_every_hosts_settings_and_a_second_run_changes_nothing(
    run_mem: RunMem, project: Path
) -> None:
    result = _init(run_mem, project, "--hooks")
    assert {item["path"]: item["action"] for item in result["settings"]} == {
        path: "created" for path in FILES.values()
    }
    claude = _json(project / FILES["claude-code"])
    assert claude["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert [handler["timeout"] for handler in _ours(claude)] == [30, 5, 5]
    [pre_edit] = claude["hooks"]["PreToolUse"]
    assert pre_edit["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    [handler] = pre_edit["hooks"]
    assert handler["command"].endswith("/mem hook pre-edit --host claude-code")
    assert handler["timeout"] == 5
    codex = _json(project / FILES["codex"])
    assert set(codex) == {"hooks"}  # all that Codex accepts
    assert codex["hooks"]["PreToolUse"][0]["matcher"] == "apply_patch|Edit|Write"
    gemini = _json(project / FILES["gemini"])
    # Gemini CLI adds no context before a tool: the edit's memories come right after it.
    assert set(gemini["hooks"]) == {"SessionStart", "BeforeAgent", "AfterTool"}
    assert gemini["hooks"]["AfterTool"][0]["matcher"] == "^(write_file|replace)$"
    assert [handler["timeout"] for handler in _ours(gemini)] == [30000, 5000, 5000]  # ms
    before = {path: (project / path).read_bytes() for path in FILES.values()}
    again = _init(run_mem, project, "--hooks")
    assert {item["action"] for item in again["settings"]} == {"unchanged"}
    assert {path: (project / path).read_bytes() for path in FILES.values()} == before


@pytest.mark.parametrize("host", list(FILES))
def test_a_users_own_keys_and_hooks_are_kept_and_remove_restores_the_file(
    run_mem: RunMem, project: Path, host: str
) -> None:
    path = project / FILES[host]
    path.parent.mkdir(parents=True)
    own = dict(USERS_OWN) if host != "codex" else {"hooks": USERS_OWN["hooks"]}
    original = json.dumps(own, indent=2) + "\n"
    path.write_text(original, encoding="utf-8")
    _init(run_mem, project, "--hooks", "--host", host)
    merged = _json(path)
    for key in own:
        if key != "hooks":
            assert merged[key] == own[key]
    assert merged["hooks"]["PreToolUse"][0] == own["hooks"]["PreToolUse"][0]
    assert merged["hooks"]["SessionStart"][0] == own["hooks"]["SessionStart"][0]
    assert len(_ours(merged)) == 3
    result = _init(run_mem, project, "--hooks", "--host", host, "--remove")
    assert result["settings"] == [
        {"host": host, "path": FILES[host], "action": "removed", "warnings": []}
    ]
    assert path.read_text(encoding="utf-8") == original


def test_remove_deletes_what_it_created(run_mem: RunMem, project: Path) -> None:
    _init(run_mem, project, "--hooks")
    result = _init(run_mem, project, "--hooks", "--remove")
    assert {item["action"] for item in result["settings"]} == {"deleted"}
    for folder in (".claude", ".codex", ".gemini"):
        assert not (project / folder).exists()
    assert not (project / "AGENTS.md").exists()


def test_an_older_mem_hook_is_renewed_in_place(run_mem: RunMem, project: Path) -> None:
    path = project / FILES["claude-code"]
    path.parent.mkdir()
    old = {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup",
                    "hooks": [
                        {"type": "command", "command": "echo first"},
                        {"type": "command", "command": "/opt/bin/mem hook session-start --old"},
                    ],
                }
            ]
        }
    }
    path.write_text(json.dumps(old), encoding="utf-8")
    _init(run_mem, project, "--hooks", "--host", "claude-code")
    groups = _json(path)["hooks"]["SessionStart"]
    assert len(groups) == 1 and groups[0]["matcher"] == "startup"
    assert [handler["command"] for handler in groups[0]["hooks"]] == [
        "echo first",
        f"{mem_command()[0]} hook session-start --host claude-code",
    ]


def test_a_settings_file_mem_cannot_rewrite_is_refused_and_nothing_is_written(
    run_mem: RunMem, project: Path
) -> None:
    path = project / FILES["gemini"]
    path.parent.mkdir()
    path.write_text('{\n  // a comment Gemini CLI allows\n  "model": "x"\n}\n', encoding="utf-8")
    done = run_mem("init", "--agents", "--hooks", "-d", str(project))
    assert done.returncode == 1
    assert done.stderr.startswith("mem init: .gemini/settings.json: is not plain JSON")
    assert not (project / "AGENTS.md").exists() and not (project / ".claude").exists()


def test_codex_root_keys_it_would_refuse_are_kept_and_warned_about(
    run_mem: RunMem, project: Path
) -> None:
    path = project / FILES["codex"]
    path.parent.mkdir()
    path.write_text('{"hooks": {}, "notes": "mine"}\n', encoding="utf-8")
    result = _init(run_mem, project, "--hooks", "--host", "codex")
    (settings,) = result["settings"]
    assert settings["warnings"] == [
        "Codex refuses a hooks.json with root keys other than hooks and description: notes",
        "Codex runs a new or changed hook only once you trust it (`codex`, then /hooks);"
        " `mem doctor hooks` says what each host still needs",
    ]
    assert _json(path)["notes"] == "mine"


def test_user_settings_go_to_the_home_and_follow_a_dotfiles_link(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    dotfiles = isolated_env / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    (dotfiles / "settings.json").write_text('{"theme": "dark"}\n', encoding="utf-8")
    os.symlink(dotfiles, isolated_env / ".claude")
    result = _init(run_mem, project, "--hooks", "--user")
    assert [item["path"] for item in result["settings"]] == [
        "~/.claude/settings.json",
        "~/.codex/hooks.json",
        "~/.gemini/settings.json",
    ]
    assert (isolated_env / ".claude").is_symlink()
    assert _json(dotfiles / "settings.json")["theme"] == "dark"
    assert len(_ours(_json(dotfiles / "settings.json"))) == 3
    assert not (project / ".claude").exists()


def test_claude_md_imports_agents_md_rather_than_repeating_it(
    run_mem: RunMem, project: Path
) -> None:
    (project / "CLAUDE.md").write_text("# Team notes\n", encoding="utf-8")
    result = _init(run_mem, project)  # plain --agents: CLAUDE.md exists, so it is covered
    assert {item["path"]: item["action"] for item in result["files"]} == {
        "AGENTS.md": "created",
        "CLAUDE.md": "updated",
    }
    claude = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude.startswith("# Team notes\n\n<!-- BEGIN mem agents")
    assert "\n@AGENTS.md\n" in claude and "## Project memory" not in claude
    _init(run_mem, project, "--remove")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Team notes\n"


def test_a_claude_md_that_already_brings_agents_md_in_is_left_alone(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    (project / "CLAUDE.md").write_text("@AGENTS.md\n\nMore.\n", encoding="utf-8")
    other = tmp_path / "other"
    shutil.copytree(project, other)
    (other / "CLAUDE.md").unlink()
    (other / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    os.symlink("AGENTS.md", other / "CLAUDE.md")
    for root in (project, other):
        result = _init(run_mem, root, "--host", "claude-code")
        assert {item["path"]: item["action"] for item in result["files"]}["CLAUDE.md"] == "covered"
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "@AGENTS.md\n\nMore.\n"


def test_the_hosts_asked_for_get_their_instruction_file(run_mem: RunMem, project: Path) -> None:
    result = _init(run_mem, project, "--host", "gemini")
    assert [item["path"] for item in result["files"]] == ["AGENTS.md", "GEMINI.md"]
    assert "@./AGENTS.md" in (project / "GEMINI.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hooks"], "--hooks, --host, --user and --remove go with --agents"),
        (["--agents", "--user"], "--user places the hooks in your home's settings"),
        (["--agents", "--hooks", "--host", "cursor"], "--host must be one of claude-code"),
    ],
)
def test_usage_mistakes_are_refused(
    run_mem: RunMem, project: Path, args: list[str], message: str
) -> None:
    done = run_mem("init", *args, "-d", str(project))
    assert done.returncode == 1 and message in done.stderr


def test_gemini_cli_accepts_the_settings_it_is_given(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    gemini = os.environ.get("MEM_TEST_GEMINI") or shutil.which("gemini")
    if not gemini:
        pytest.skip(
            "Gemini CLI not installed (npm install -g @google/gemini-cli; or MEM_TEST_GEMINI)"
        )
    home = tmp_path / "gemini-home"
    home.mkdir()

    def validated(root: Path) -> str:
        done = subprocess.run(
            [gemini, "--version"],
            cwd=root,
            env={**os.environ, "HOME": str(home)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.stdout + done.stderr

    (project / ".gemini").mkdir()
    (project / ".gemini/settings.json").write_text('{"hooks": {"SessionStart": "x"}}\n')
    assert "Invalid configuration" in validated(project)  # the check is real
    (project / ".gemini/settings.json").write_text('{"model": {"name": "gemini-2.5-pro"}}\n')
    _init(run_mem, project, "--hooks", "--host", "gemini")
    assert "Invalid configuration" not in validated(project)


@pytest.mark.skip(
    reason="Claude Code and Codex check their settings only in a signed-in session: neither"
    " `claude --version` nor `codex doctor` reads the hooks (tried: claude 2.1.197, codex 0.171.0)"
)
def test_claude_code_and_codex_accept_the_settings_they_are_given() -> None:
    """The shape is held to each host's documentation in the tests above instead."""


def test_the_hooks_run_the_mem_that_wrote_them_from_a_path_without_it(
    project: Path, tmp_path: Path
) -> None:
    # A console script in a virtual environment the host's PATH does not hold: its #! line
    # names that environment's Python, as pip writes it.
    script = tmp_path / "elsewhere/.venv/bin/mem"
    script.parent.mkdir(parents=True)
    shutil.copy2(mem_command()[0], script)
    bare_path = {**os.environ, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [str(script), "init", "--agents", "--hooks", "--host", "claude-code", "-d", str(project)],
        env=bare_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"  the hooks run {script}: after moving it" in done.stdout
    command = _json(project / FILES["claude-code"])["hooks"]["SessionStart"][0]["hooks"][0]
    assert command["command"] == f"{script} hook session-start --host claude-code"
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    )

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["/bin/sh", "-c", command],
            input=payload,
            env=bare_path,
            capture_output=True,
            text=True,
            check=False,
        )

    answered = run(command["command"])
    assert answered.returncode == 0
    assert json.loads(answered.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert run("mem hook session-start --host claude-code").returncode == 127  # the bare name


@pytest.mark.parametrize(
    ("host", "layout"),
    [
        ("claude-code", {"separators": (",", ":")}),
        ("codex", {"indent": 2}),
        ("gemini", {"indent": 4}),
        ("claude-code", {"indent": "\t"}),
        ("codex", {"indent": 2, "final": ""}),
        ("gemini", {"indent": 2, "ensure_ascii": True}),
    ],
    ids=["compact", "2-spaces", "4-spaces", "tab", "no-final-newline", "escaped"],
)
def test_remove_after_install_gives_back_the_file_byte_for_byte(
    run_mem: RunMem, project: Path, host: str, layout: dict[str, Any]
) -> None:
    path = project / FILES[host]
    path.parent.mkdir(parents=True)
    own = {"hooks": USERS_OWN["hooks"]} if host == "codex" else {**USERS_OWN, "name": "Zoë"}
    final = layout.pop("final", "\n")
    original = json.dumps(own, ensure_ascii=layout.pop("ensure_ascii", False), **layout) + final
    path.write_text(original, encoding="utf-8")
    _init(run_mem, project, "--hooks", "--host", host)
    installed = path.read_text(encoding="utf-8")
    assert installed.startswith(original[:12]) and installed.endswith("}" + final)
    _init(run_mem, project, "--hooks", "--host", host, "--remove")
    assert path.read_text(encoding="utf-8") == original
