"""The real hosts (Claude Code, Codex, Gemini CLI) run headless in a scratch home, on a
project whose hooks `mem init --agents --hooks` installed, against tests/support/mock_model.py
on 127.0.0.1: what the model was sent is what these tests read.

A host not installed (`make hosts`) skips its test, saying why; under `CI=true` it fails it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import hosts
from support.mock_model import Edit, MockModel

from mem.core import host_trust

# Resolved at import: the autouse isolated_env fixture points HOME at a scratch directory.
HOSTS_DIR = hosts.directory()
PROMPT = "How should we configure postgres connection pooling?"
# The scripted edit: Claude Code's Edit (after its Read), Codex's apply_patch update,
# Gemini CLI's replace, of a file the project holds.
EDIT = ("RETRIES = 5\n", "RETRIES = 3\n")
FILLERS = 40  # notes newer than the two that matter: more than the session brief shows


def _command(name: str) -> str:
    """The host's executable, else the test skips (fails under CI=true) saying why."""
    reason = hosts.problem(name, HOSTS_DIR)
    if reason is None:
        return str(HOSTS_DIR / "node_modules" / ".bin" / name)
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and a host is missing: {reason}")
    pytest.skip(reason)


def _project(scratch: Path) -> hosts.NotedProject:
    """Two old notes the session brief leaves out (older than the 40 it shows first): one
    about pooling, one naming the file the model will edit."""
    root = scratch / "project"
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "retry_policy.py").write_text(EDIT[0], encoding="utf-8")
    pooling = "2020-01-02 — Postgres connection pooling"
    retries = "2020-01-01 — Outbound retries capped at three"
    fillers = "".join(
        f"### 2026-05-{day % 28 + 1:02d} — Widget colour {day}\n"
        f"- **Decision**: widget {day} is painted shade {day} of blue\n\n"
        for day in range(FILLERS)
    )
    (memory / "decisions.md").write_text(
        "# Decisions\n\n"
        f"### {retries}\n"
        "- **Decision**: `src/retry_policy.py` caps outbound retries at three, with jitter\n\n"
        f"### {pooling}\n"
        "- **Decision**: use pgbouncer in transaction mode for postgres connection pooling\n\n"
        + fillers,
        encoding="utf-8",
    )
    return hosts.NotedProject(root, pooling, retries, root / "src" / "retry_policy.py", EDIT[1])


def _environment(scratch: Path, project: hosts.NotedProject) -> dict[str, str]:
    """A scratch home and mem state, this venv's `mem` first on PATH, node's folder, a
    proxy that is a closed loopback port for anything but 127.0.0.1; mem's hooks installed."""
    home = scratch / "home"
    home.mkdir()
    node = shutil.which("node")
    assert node, "node is not on PATH"
    mem = Path(sys.executable).with_name("mem")
    assert mem.exists(), "the hooks run `mem`: install this venv's console script"
    closed = "http://127.0.0.1:9"
    env = {
        "PATH": os.pathsep.join([str(mem.parent), str(Path(node).parent), "/usr/bin", "/bin"]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "MEM_CACHE_DIR": str(scratch / "mem-cache"),
        "MEM_STATE_DIR": str(scratch / "mem-state"),
        "MEM_NOW": os.environ["MEM_NOW"],
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "NO_PROXY": "127.0.0.1,localhost",
    }
    hosts.run([str(mem), "init", "--agents", "--hooks", "-d", str(project.root)], scratch, env)
    return env


@pytest.fixture
def claude_code(tmp_path: Path) -> hosts.HostRun:
    claude = _command("claude")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    with MockModel(edit=Edit(str(project.edited), EDIT[1], old=EDIT[0])) as model:
        env |= {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-ant-mock",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        # -p runs the project's hooks without the folder-trust dialog.
        hosts.run([claude, "-p", PROMPT, "--permission-mode", "acceptEdits"], project.root, env)
    return hosts.HostRun(project, model)


@pytest.fixture
def codex(tmp_path: Path) -> hosts.HostRun:
    codex = _command("codex")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    with MockModel(edit=Edit(str(project.edited), EDIT[1], old=EDIT[0])) as model:
        env |= {"CODEX_HOME": str(codex_home), "MOCK_API_KEY": "mock"}
        # gpt-5.5: a model Codex's catalog knows, so that it offers its apply_patch tool.
        config.write_text(
            'model = "gpt-5.5"\n'
            'model_provider = "mock"\n'
            "check_for_update_on_startup = false\n"
            "[analytics]\nenabled = false\n"
            "[model_providers.mock]\n"
            'name = "mock"\n'
            f'base_url = "{model.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "MOCK_API_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
            f"[projects.{json.dumps(str(project.root))}]\n"
            'trust_level = "trusted"\n',
            encoding="utf-8",
        )
        _trust_codex_hooks(codex, project.root, env, config)
        hosts.run(
            [codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", PROMPT],
            project.root,
            env,
        )
    return hosts.HostRun(project, model)


def _trust_codex_hooks(codex: str, root: Path, env: dict[str, str], config: Path) -> None:
    """What trusting them in Codex's TUI does: `[hooks.state."<hooks.json>:<event>:<group>:
    <handler>"] trusted_hash`, the hash `codex app-server`'s `hooks/list` reports (`codex
    exec` skips an untrusted hook without a word)."""
    messages = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "mem", "version": "0"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwd": str(root)}},
    ]
    server = subprocess.Popen(
        [codex, "app-server"],
        cwd=root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(json.dumps(message) + "\n" for message in messages))
        server.stdin.flush()
        # It answers as it goes (stdin stays open until then); killed below whatever happens.
        listed = next(json.loads(line) for line in server.stdout if '"id":2' in line)
    finally:
        server.kill()
        server.communicate(timeout=30)
    listed_hooks = [hook for entry in listed["result"]["data"] for hook in entry["hooks"]]
    commands = [hook["command"] for hook in listed_hooks]
    assert any(command.endswith("hook session-start --host codex") for command in commands)
    # `mem doctor hooks` computes the hash of each of mem's entries as Codex itself does.
    hooks_file = root / ".codex" / "hooks.json"
    ours = host_trust.codex_entries(json.loads(hooks_file.read_text()), str(hooks_file))
    assert {entry.key: entry.hash for entry in ours} == {
        hook["key"]: hook["currentHash"] for hook in listed_hooks
    }
    with config.open("a", encoding="utf-8") as file:
        for hook in listed_hooks:
            file.write(
                f"[hooks.state.{json.dumps(hook['key'])}]\n"
                f"trusted_hash = {json.dumps(hook['currentHash'])}\n"
            )


@pytest.fixture
def gemini_cli(tmp_path: Path) -> hosts.HostRun:
    gemini = _command("gemini")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    settings = Path(env["HOME"]) / ".gemini"
    settings.mkdir()
    (settings / "settings.json").write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            }
        ),
        encoding="utf-8",
    )
    # Project hooks run only in a trusted folder.
    (settings / "trustedFolders.json").write_text(
        json.dumps({str(project.root): "TRUST_FOLDER"}), encoding="utf-8"
    )
    with MockModel(edit=Edit(str(project.edited), EDIT[1], old=EDIT[0])) as model:
        env |= {"GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "mock"}
        # A model named: no routing question asked of the model first.
        hosts.run(
            [gemini, "-m", "gemini-2.5-flash", "--approval-mode", "auto_edit", "-p", PROMPT],
            project.root,
            env,
        )
    return hosts.HostRun(project, model)
