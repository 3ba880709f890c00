"""`mem import` of what each real host wrote when asked to remember (conftest.py): the mock
model writes where the host's own prompt says, with the host's own write tool, and mem
finds it there and offers it as a note of its kind, with its source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.hosts import Remembered

MEM = str(Path(sys.executable).with_name("mem"))


def _imported(run: Remembered, host: str) -> list[dict[str, Any]]:
    assert run.model.memory_folder, "the host's prompt named no memory folder"
    assert run.model.remember is not None
    assert run.model.remembered == len(run.model.remember.files)
    done = subprocess.run(
        [MEM, "import", host, "--json", "-d", str(run.project.root)],
        env=run.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = json.loads(done.stdout)["hosts"]
    assert result["skipped"] == []
    offered: list[dict[str, Any]] = result["offered"]
    return offered


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
