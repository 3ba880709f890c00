"""`mem import` of what each real host wrote when asked to remember (conftest.py): the mock
model writes where the host's own prompt says, with the host's own write tool, and mem
finds it there and offers it as a note of its kind, with its source. Serena needs no model:
its own `serena memories write` writes a memory as its MCP tool does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import hosts
from support.hosts import Remembered

# Resolved at import, as conftest's HOSTS_DIR: the autouse isolated_env fixture points HOME
# at a scratch directory, where `make hosts` installed nothing.
SERENA_DIR = hosts.serena_directory()

MEM = str(Path(sys.executable).with_name("mem"))


def _imported(run: Remembered, host: str) -> list[dict[str, Any]]:
    assert run.model.memory_folder, "the host's prompt named no memory folder"
    assert run.model.remember is not None
    assert run.model.remembered == len(run.model.remember.files)
    return _import(host, run.project.root, run.env)[0]


def _import(host: str, root: Path, env: dict[str, str]) -> tuple[list[dict[str, Any]], list[str]]:
    """What `mem import HOST` offered, and what it left."""
    done = subprocess.run(
        [MEM, "import", host, "--json", "-d", str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = json.loads(done.stdout)["hosts"]
    assert result["skipped"] == []
    return result["offered"], result["left"]


def test_claude_code_auto_memory_is_imported(claude_code_remembers: Remembered) -> None:
    run = claude_code_remembers
    home = run.env["HOME"]
    assert run.model.memory_folder is not None
    assert run.model.memory_folder.startswith(f"{home}/.claude/projects/")
    [memory] = _imported(run, "claude-code")
    assert (memory["title"], memory["kind"]) == (
        "Integration tests run against a real Postgres",
        "lesson",
    )
    folder = "~" + run.model.memory_folder.removeprefix(home)
    assert memory["source"] == f"{folder}/feedback_real_database.md"
    assert "**Why:** a mocked migration hid a broken release." in memory["text"]


def test_gemini_cli_private_project_memory_is_imported(gemini_remembers: Remembered) -> None:
    run = gemini_remembers
    assert run.model.memory_folder == f"{run.env['HOME']}/.gemini/tmp/project/memory"
    [memory] = _imported(run, "gemini")
    assert (memory["title"], memory["kind"], memory["source"]) == (
        "Integration tests run against a real Postgres.",
        "lesson",
        "~/.gemini/tmp/project/memory/MEMORY.md:1",
    )


def test_codex_ad_hoc_note_is_imported(codex_remembers: Remembered) -> None:
    run = codex_remembers
    assert run.model.memory_folder is not None
    assert run.model.memory_folder.endswith("/codex-home/memories_v2/extensions/ad_hoc/notes")
    [memory] = _imported(run, "codex")
    assert (memory["title"], memory["kind"]) == (
        "Integration tests run against a real Postgres",
        "lesson",
    )
    assert memory["source"].endswith(
        "/memories_v2/extensions/ad_hoc/notes/2026-12-07T18-40-00-real-database.md"
    )
    assert "Add: never a mocked one." in memory["text"]


def test_serena_memories_are_imported_and_its_guidelines_left(tmp_path: Path) -> None:
    folder = SERENA_DIR
    reason = hosts.serena_problem(folder)
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and Serena is missing: {reason}")
        pytest.skip(reason)
    serena = str(folder / "bin" / "serena")
    root = tmp_path / "project"
    (root / ".agents" / "memory").mkdir(parents=True)
    (root / "app.py").write_text("RETRIES = 3\n", encoding="utf-8")
    env = hosts.scratch_env(tmp_path, tmp_path / "home", "/usr/bin:/bin")
    hosts.run([serena, "project", "create", "--language", "python"], root, env)
    for name, content in (
        ("auth/token_refresh", "# Token refresh\n\nRefresh tokens rotate on every use.\n"),
        ("global/code_style", "Prefer small pure functions.\n"),
    ):
        hosts.run([serena, "memories", "write", name, "--content", content], root, env)
    hosts.run([serena, "memories", "initialize"], root, env)
    offered, left = _import("serena", root, env)
    assert {(c["title"], c["kind"], c["source"]) for c in offered} == {
        ("Token refresh", "lesson", f"{root}/.serena/memories/auth/token_refresh.md"),
        ("code style", "lesson", "~/.serena/memories/global/code_style.md"),
    }
    assert left == [
        f"{root}/.serena/memories/memory_maintenance.md: Serena's guidelines for its memories"
    ]
