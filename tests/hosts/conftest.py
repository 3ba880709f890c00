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
import time
from pathlib import Path

import pytest
from support import hosts
from support.corpora import write_dated_notes
from support.mock_model import Edit, MockModel, Remember

from mem.core.rules import host_trust

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
    path = os.pathsep.join([str(mem.parent), str(Path(node).parent), "/usr/bin", "/bin"])
    env = hosts.scratch_env(scratch, home, path) | {"TZ": "UTC"}
    hosts.run([str(mem), "init", "--agents", "--hooks", "-d", str(project.root)], scratch, env)
    return env


def _claude_env(url: str) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-mock",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def _codex_config(config: Path, url: str, root: Path, extra: str = "") -> None:
    # gpt-5.5: a model Codex's catalog knows, so that it offers its apply_patch tool.
    config.write_text(
        'model = "gpt-5.5"\n'
        'model_provider = "mock"\n'
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        f"{extra}"
        "[model_providers.mock]\n"
        'name = "mock"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "MOCK_API_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n"
        f"[projects.{json.dumps(str(root))}]\n"
        'trust_level = "trusted"\n',
        encoding="utf-8",
    )


def _gemini_settings(home: Path, root: Path) -> None:
    settings = home / ".gemini"
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
        json.dumps({str(root): "TRUST_FOLDER"}), encoding="utf-8"
    )


@pytest.fixture
def claude_code(tmp_path: Path) -> hosts.HostRun:
    claude = _command("claude")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    with MockModel(edit=Edit(str(project.edited), EDIT[1], old=EDIT[0])) as model:
        env |= _claude_env(model.url)
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
        _codex_config(config, model.url, project.root)
        _trust_codex_hooks(codex, project.root, env, config)
        hosts.run(
            [codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", PROMPT],
            project.root,
            env,
        )
    return hosts.HostRun(project, model)


def _trust_codex_hooks(
    codex: str, root: Path, env: dict[str, str], config: Path, ours_checked: bool = True
) -> None:
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
    # (A test that runs the hooks through a shim has no entry `mem doctor hooks` knows.)
    assert not ours_checked or {entry.key: entry.hash for entry in ours} == {
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
    _gemini_settings(Path(env["HOME"]), project.root)
    with MockModel(edit=Edit(str(project.edited), EDIT[1], old=EDIT[0])) as model:
        env |= {"GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "mock"}
        # A model named: no routing question asked of the model first.
        hosts.run(
            [gemini, "-m", "gemini-2.5-flash", "--approval-mode", "auto_edit", "-p", PROMPT],
            project.root,
            env,
        )
    return hosts.HostRun(project, model)


# Issue 36: each host asked to remember, the mock model writing what its prompt asks where
# its prompt says (tests/support/mock_model.py's Remember), then `mem import` on the project.
REMEMBER = "Remember: integration tests here run against a real Postgres, never a mock."
CLAUDE_MEMORY = (
    (
        "feedback_real_database.md",
        "---\nname: real-database\ndescription: Integration tests run against a real"
        " Postgres\nmetadata:\n  type: feedback\n---\n\nNever a mocked one.\n"
        "**Why:** a mocked migration hid a broken release.\n",
    ),
    ("MEMORY.md", "- [Real database](feedback_real_database.md) — no mocks in integration\n"),
)
GEMINI_MEMORY = (("MEMORY.md", "- Integration tests run against a real Postgres.\n"),)
CODEX_MEMORY = (
    (
        "2026-12-07T18-40-00-real-database.md",
        "# Integration tests run against a real Postgres\n\nAdd: never a mocked one.\n",
    ),
)


@pytest.fixture
def claude_code_remembers(tmp_path: Path) -> hosts.Remembered:
    claude = _command("claude")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    with MockModel(remember=Remember(CLAUDE_MEMORY)) as model:
        env |= _claude_env(model.url)
        hosts.run([claude, "-p", REMEMBER, "--permission-mode", "acceptEdits"], project.root, env)
    return hosts.Remembered(project, model, env)


@pytest.fixture
def gemini_remembers(tmp_path: Path) -> hosts.Remembered:
    gemini = _command("gemini")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    _gemini_settings(Path(env["HOME"]), project.root)
    with MockModel(remember=Remember(GEMINI_MEMORY)) as model:
        env |= {"GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "mock"}
        # yolo: in auto_edit, Gemini CLI's policy denies a headless write outside the
        # workspace, and its private memory folder is outside it.
        command = [gemini, "-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", REMEMBER]
        hosts.run(command, project.root, env)
    return hosts.Remembered(project, model, env)


@pytest.fixture
def codex_remembers(tmp_path: Path) -> hosts.Remembered:
    codex = _command("codex")
    project = _project(tmp_path)
    env = _environment(tmp_path, project)
    codex_home = tmp_path / "codex-home"
    # Codex names its ad hoc notes folder to the model once a consolidated summary exists
    # (its phase 2 writes one, with a real model): seeded here.
    (codex_home / "memories_v2").mkdir(parents=True)
    (codex_home / "memories_v2" / "memory_summary.md").write_text(
        "v1\n\n## User Profile\n\n## User preferences\n\n## General Tips\n\n## What's in Memory\n",
        encoding="utf-8",
    )
    with MockModel(remember=Remember(CODEX_MEMORY)) as model:
        env |= {"CODEX_HOME": str(codex_home), "MOCK_API_KEY": "mock"}
        extra = "[features]\nmemories = true\n"
        _codex_config(codex_home / "config.toml", model.url, project.root, extra)
        hosts.run(
            [codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", REMEMBER],
            project.root,
            env,
        )
    return hosts.Remembered(project, model, env)


# Issue 35, a cold cache (test_first_hooks.py): a fresh clone of COLD_NOTES notes.
COLD_NOTES = int(os.environ.get("MEM_TEST_COLD_NOTES", "2000"))
# Words no generated note holds (tests/support/corpora.py's SUBJECT_WORDS are the others).
COLD_NOTE = "2020-01-02 — Quokka telemetry sampled by heliograph"
COLD_PROMPT = "How do we sample quokka telemetry with the heliograph?"


def _cold_project(scratch: Path) -> hosts.NotedProject:
    root = write_dated_notes(scratch / "project", COLD_NOTES)
    decisions = root / ".agents" / "memory" / "decisions.md"
    with decisions.open("a", encoding="utf-8") as file:
        file.write(
            f"\n### {COLD_NOTE}\n- **Decision**: sample quokka telemetry each heliograph tick\n"
        )
    # No scripted edit here: the note the prompt asks about stands in for the edit's fields.
    return hosts.NotedProject(root, COLD_NOTE, COLD_NOTE, decisions, "")


def _cold_environment(scratch: Path, project: hosts.NotedProject) -> tuple[dict[str, str], Path]:
    """mem's hooks installed, each hook's command run through a shim that logs its wall
    time, and mem's cache emptied (what `init` built is gone: a fresh clone)."""
    env = _environment(scratch, project)
    log = scratch / "hook-times.log"
    shim = scratch / "timed-mem"
    mem = shutil.which("mem", path=env["PATH"])
    assert mem
    shim.write_text(
        "#!/bin/sh\n"
        "start=$(date +%s%N)\n"
        f'"{mem}" "$@"\n'
        "status=$?\n"
        f'echo "$2 $(( start / 1000000 )) $(( ($(date +%s%N) - start) / 1000000 ))" >> "{log}"\n'
        "exit $status\n",
        encoding="utf-8",
    )
    shim.chmod(0o755)
    for settings in (".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"):
        path = project.root / settings
        if path.exists():
            timed = path.read_text(encoding="utf-8").replace(f'"{mem} hook', f'"{shim} hook')
            assert f'"{shim} hook' in timed, f"{settings} runs no hook through `{mem}`"
            path.write_text(timed, encoding="utf-8")
    shutil.rmtree(env["MEM_CACHE_DIR"], ignore_errors=True)
    return env, log


def _hook_times(log: Path, started_ms: int) -> list[str]:
    """ "<event> +<ms after the host started> <ms it took>" per hook, in the order they ended."""
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    fields = [line.split() for line in lines]
    return [f"{event} +{int(start) - started_ms} {took}" for event, start, took in fields]


def _timed_run(
    command: list[str], root: Path, env: dict[str, str], log: Path, model: MockModel
) -> hosts.ColdRun:
    """One headless run of a host on the cold project, with its hooks' times."""
    started, started_ms = time.monotonic(), time.time_ns() // 1_000_000
    hosts.run(command, root, env)
    return hosts.ColdRun(
        model, _hook_times(log, started_ms), time.monotonic() - started, COLD_NOTES, COLD_NOTE
    )


@pytest.fixture
def claude_code_cold(tmp_path: Path) -> hosts.ColdRun:
    claude = _command("claude")
    project = _cold_project(tmp_path)
    env, log = _cold_environment(tmp_path, project)
    with MockModel() as model:
        env |= _claude_env(model.url)
        return _timed_run([claude, "-p", COLD_PROMPT], project.root, env, log, model)


@pytest.fixture
def codex_cold(tmp_path: Path) -> hosts.ColdRun:
    codex = _command("codex")
    project = _cold_project(tmp_path)
    env, log = _cold_environment(tmp_path, project)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    with MockModel() as model:
        env |= {"CODEX_HOME": str(codex_home), "MOCK_API_KEY": "mock"}
        _codex_config(config, model.url, project.root)
        _trust_codex_hooks(codex, project.root, env, config, ours_checked=False)
        shutil.rmtree(env["MEM_CACHE_DIR"], ignore_errors=True)
        log.unlink(missing_ok=True)
        return _timed_run(
            [codex, "exec", "--skip-git-repo-check", "-s", "read-only", COLD_PROMPT],
            project.root,
            env,
            log,
            model,
        )


@pytest.fixture
def gemini_cold(tmp_path: Path) -> hosts.ColdRun:
    gemini = _command("gemini")
    project = _cold_project(tmp_path)
    env, log = _cold_environment(tmp_path, project)
    _gemini_settings(Path(env["HOME"]), project.root)
    with MockModel() as model:
        env |= {"GOOGLE_GEMINI_BASE_URL": model.url, "GEMINI_API_KEY": "mock"}
        return _timed_run(
            [gemini, "-m", "gemini-2.5-flash", "-p", COLD_PROMPT], project.root, env, log, model
        )
