"""Reading a host's memory files: bounded, UTF-8, never through a link out of its folder;
and where each host keeps them."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from mem.files import host_memory_files
from mem.files.host_memory_files import HostFile


def test_a_memory_file_is_read_with_its_date(tmp_path: Path, isolated_env: Path) -> None:
    folder = isolated_env / "memory"
    folder.mkdir()
    (folder / "a.md").write_bytes(b"\xef\xbb\xbf# A\r\nbody\r\n")
    os.utime(folder / "a.md", (1_790_000_000, 1_790_000_000))
    assert host_memory_files.read(str(folder / "a.md"), str(folder)) == HostFile(
        str(folder / "a.md"), "~/memory/a.md", "# A\nbody\n", "2026-09-21"
    )


def test_a_link_inside_the_folder_is_read_and_one_out_of_it_is_not(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "a.md").write_text("a", encoding="utf-8")
    (folder / "same.md").symlink_to(folder / "a.md")
    (tmp_path / "secret.md").write_text("s", encoding="utf-8")
    (folder / "out.md").symlink_to(tmp_path / "secret.md")
    assert isinstance(host_memory_files.read(str(folder / "same.md"), str(folder)), HostFile)
    assert host_memory_files.read(str(folder / "out.md"), str(folder)) == (
        f"{folder}/out.md: skipped, a link out of {folder}"
    )


def test_a_missing_file_is_a_line_not_an_error(tmp_path: Path) -> None:
    assert host_memory_files.read(str(tmp_path / "gone.md"), str(tmp_path)) == (
        f"{tmp_path}/gone.md: skipped, No such file or directory"
    )


def test_markdown_files_are_listed_sorted_and_links_to_folders_not_entered(
    tmp_path: Path,
) -> None:
    (tmp_path / "b.md").write_text("b", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("n", encoding="utf-8")
    (tmp_path / "auth").mkdir()
    (tmp_path / "auth" / "a.md").write_text("a", encoding="utf-8")
    (tmp_path / "loop").symlink_to(tmp_path)
    listed = host_memory_files.markdown_files(str(tmp_path), recursive=True)
    assert listed == [f"{tmp_path}/auth/a.md", f"{tmp_path}/b.md"]
    assert host_memory_files.markdown_files(str(tmp_path)) == [f"{tmp_path}/b.md"]


def test_claude_code_follows_auto_memory_directory_from_local_then_user_settings(
    tmp_path: Path, isolated_env: Path
) -> None:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    default = host_memory_files.claude_memory_folder(str(root), "-slug")
    assert default == f"{isolated_env}/.claude/projects/-slug/memory"
    (isolated_env / ".claude").mkdir()
    (isolated_env / ".claude" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": "~/notes/claude"}), encoding="utf-8"
    )
    assert host_memory_files.claude_memory_folder(str(root), "-slug") == (
        f"{isolated_env}/notes/claude"
    )
    (root / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": "/srv/memory/"}), encoding="utf-8"
    )
    assert host_memory_files.claude_memory_folder(str(root), "-slug") == "/srv/memory"
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": "/checked/in"}), encoding="utf-8"
    )
    assert host_memory_files.claude_memory_folder(str(root), "-slug") == "/srv/memory"


def test_claude_config_dir_and_codex_home_are_honoured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert host_memory_files.claude_memory_folder(str(tmp_path), "-s") == (
        f"{tmp_path}/claude/projects/-s/memory"
    )
    assert host_memory_files.codex_memories() == f"{tmp_path}/codex/memories"


def test_gemini_private_memory_by_its_registry_then_the_older_hash(isolated_env: Path) -> None:
    root = "/home/ada/shop"
    older = f"{isolated_env}/.gemini/tmp/{hashlib.sha256(root.encode()).hexdigest()}/memory"
    assert host_memory_files.gemini_memory_folders(root) == [older]
    (isolated_env / ".gemini").mkdir()
    (isolated_env / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {root: "shop", "/elsewhere": "other"}}), encoding="utf-8"
    )
    assert host_memory_files.gemini_memory_folders(root) == [
        f"{isolated_env}/.gemini/tmp/shop/memory",
        older,
    ]


def test_vscode_finds_the_workspace_of_this_folder(isolated_env: Path) -> None:
    storage = isolated_env / ".config" / "Code" / "User" / "workspaceStorage"
    for name, folder in (("a1", "file:///home/ada/other"), ("b2", "file:///home/ada/my%20shop")):
        (storage / name).mkdir(parents=True)
        (storage / name / "workspace.json").write_text(json.dumps({"folder": folder}), "utf-8")
    assert host_memory_files.vscode_repo_memory_folders("/home/ada/my shop") == [
        f"{storage}/b2/GitHub.copilot-chat/memory-tool/memories/repo"
    ]
