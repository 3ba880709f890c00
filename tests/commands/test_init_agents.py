"""`mem init --agents`: the memory protocol block in AGENTS.md and friends, and nothing else."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.cli import RunMem

from mem.core.prose import agents_block

# Text a person may have around the block: any characters, CRLF, no final newline...
person_text = st.text(
    alphabet=st.sampled_from(["a", "#", " ", "\n", "\r", "\t", "é", "<", "!", "-", "\u2028"]),
    max_size=40,
)


@given(before=person_text, after=person_text)
def test_adding_then_removing_gives_back_the_bytes(before: str, after: str) -> None:
    with_block = agents_block.with_block(before, "AGENTS.md")
    assert agents_block.with_block(with_block, "AGENTS.md") == with_block
    assert agents_block.without_block(with_block, "AGENTS.md") == before
    # The person writes below the block: their text survives an update and a removal.
    edited = with_block + after
    assert agents_block.with_block(edited, "AGENTS.md") == edited
    removed = agents_block.without_block(edited, "AGENTS.md")
    assert removed is not None and removed.endswith(after) and removed.startswith(before)
    if not before or before.endswith("\n"):
        assert removed == before + after


def test_default_file_is_agents_md_and_a_second_run_changes_nothing(
    tmp_path: Path, run_mem: RunMem
) -> None:
    first = run_mem("init", "--agents", "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["files"] == [{"path": "AGENTS.md", "action": "created"}]
    agents = tmp_path / "AGENTS.md"
    written = agents.read_bytes()
    stamp = agents.stat()
    second = run_mem("init", "--agents", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "current   AGENTS.md" in second.stdout
    assert agents.read_bytes() == written
    assert (agents.stat().st_mtime_ns, agents.stat().st_ino) == (stamp.st_mtime_ns, stamp.st_ino)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["AGENTS.md"]


def test_the_block_teaches_the_protocol_and_the_guardrails(tmp_path: Path, run_mem: RunMem) -> None:
    run_mem("init", "--agents", "CLAUDE.md", "GEMINI.md", cwd=tmp_path)
    for name in ("CLAUDE.md", "GEMINI.md"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text == agents_block.BLOCK
        for needle in (
            "mem context --json",
            "mem recall",
            "mem write --agent",
            "mem handoff",
            "decisions.md",
            "lessons.md",
            "patterns.md",
            "| G1 Think Before Coding | State assumptions; if uncertain, ask. | Check"
            " `decisions.md` before deciding again",
            "| G2 Simplicity First |",
            "Check `patterns.md` for an existing solution.",
            "| G3 Surgical Changes |",
            "Log surprises in `lessons.md`.",
            "| G4 Goal-Driven Execution |",
            "Log non-obvious decisions in `decisions.md`.",
        ):
            assert needle in text, needle
    assert not (tmp_path / "AGENTS.md").exists()


def test_the_persons_text_around_the_block_is_kept_byte_for_byte(
    tmp_path: Path, run_mem: RunMem
) -> None:
    agents = tmp_path / "AGENTS.md"
    original = b"# Our rules\r\n\r\nUse tabs.\tAlways.\r\nCaf\xc3\xa9.\r\n"
    agents.write_bytes(original)
    os.chmod(agents, 0o640)
    assert run_mem("init", "--agents", cwd=tmp_path).returncode == 0
    installed = agents.read_bytes()
    assert installed.startswith(original + b"\n<!-- BEGIN mem agents")
    # The person adds text below the block and an old mem left an older block body.
    old_body = installed.replace(b"## Project memory", b"## An older block")
    agents.write_bytes(old_body + b"\nTheir later note.\n")
    done = run_mem("init", "--agents", "--json", cwd=tmp_path)
    assert json.loads(done.stdout)["files"] == [{"path": "AGENTS.md", "action": "updated"}]
    assert agents.read_bytes() == installed + b"\nTheir later note.\n"
    assert agents.stat().st_mode & 0o777 == 0o640
    removed = run_mem("init", "--agents", "--remove", cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert agents.read_bytes() == original + b"\nTheir later note.\n"


def test_remove_restores_the_original_file(tmp_path: Path, run_mem: RunMem) -> None:
    agents = tmp_path / "AGENTS.md"
    original = "# Rules\n\nBe brief, no final newline."
    agents.write_text(original, encoding="utf-8")
    run_mem("init", "--agents", "AGENTS.md", "CLAUDE.md", cwd=tmp_path)
    done = run_mem(
        "init",
        "--agents",
        "--remove",
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        "--json",
        cwd=tmp_path,
    )
    assert json.loads(done.stdout)["files"] == [
        {"path": "AGENTS.md", "action": "removed"},
        {"path": "CLAUDE.md", "action": "deleted"},
        {"path": "GEMINI.md", "action": "absent"},
    ]
    assert agents.read_text(encoding="utf-8") == original
    assert sorted(path.name for path in tmp_path.iterdir()) == ["AGENTS.md"]


def test_a_damaged_block_is_refused_and_no_file_is_written(tmp_path: Path, run_mem: RunMem) -> None:
    (tmp_path / "AGENTS.md").write_text("intro\n", encoding="utf-8")
    damaged = f"x\n{agents_block.BEGIN}\nhalf a block, no end marker\n"
    (tmp_path / "CLAUDE.md").write_text(damaged, encoding="utf-8")
    done = run_mem("init", "--agents", "AGENTS.md", "CLAUDE.md", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("mem init: CLAUDE.md: the mem agents block is damaged")
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == "intro\n"
    assert (tmp_path / "CLAUDE.md").read_text(encoding="utf-8") == damaged


def test_links_escapes_and_misuse_are_refused(tmp_path: Path, run_mem: RunMem) -> None:
    (tmp_path / "AGENTS.md").write_text("shared\n", encoding="utf-8")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    linked = run_mem("init", "--agents", "CLAUDE.md", cwd=tmp_path)
    assert linked.returncode == 1 and "symbolic link" in linked.stderr
    escape = run_mem("init", "--agents", "../AGENTS.md", "--json", cwd=tmp_path)
    assert escape.returncode == 1
    assert "normalized project-relative path" in json.loads(escape.stdout)["error"]
    misuse = run_mem("init", "CLAUDE.md", cwd=tmp_path)
    assert misuse.returncode == 1 and "go with --agents" in misuse.stderr
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == "shared\n"
    assert not (tmp_path / ".agents").exists()  # plain init never ran


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: os.mkfifo(path), "is not a regular file."),
        (lambda path: path.mkdir(), "is not a regular file."),
        (lambda path: path.write_bytes(b"caf\xe9\n"), "is not valid UTF-8; mem leaves it alone."),
        (
            lambda path: path.write_bytes(b"a" * (2 * 1024 * 1024 + 1)),
            "is larger than 2 MiB; mem leaves it alone.",
        ),
    ],
    ids=["fifo", "directory", "latin-1", "over-2-MiB"],
)
def test_what_is_not_a_small_text_file_is_left_alone(
    tmp_path: Path, run_mem: RunMem, make: Callable[[Path], object], message: str
) -> None:
    target = tmp_path / "AGENTS.md"
    make(target)
    done = run_mem("init", "--agents", "--json", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)) == (1, {"error": f"AGENTS.md: {message}"})
