"""A disk that is full when a writer starts: a clean error, and nothing left behind that
blocks the next writer (an empty writer.lock) or reads as memory (an empty handoff)."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script


def fill(disk: Path) -> Path:
    """Take every free block of the disk; remove the returned file to free them."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as error:
        assert error.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def refused(done: subprocess.CompletedProcess[str], action: str) -> None:
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"mem {action}: Cannot "), done.stderr
    assert "No space left on device" in done.stderr


def test_a_full_disk_while_taking_the_lock_leaves_no_lock(tiny_disk: Path, run_mem: RunMem) -> None:
    project = tiny_disk / "project"
    (project / ".bmad/memory").mkdir(parents=True)
    filler = fill(tiny_disk)
    refused(run_mem("write", "--agent", "forge", "--task", "full", cwd=project), "write")
    assert not (project / ".bmad/memory/writer.lock").exists()
    filler.unlink()
    done = run_mem("write", "--agent", "forge", "--task", "room again", cwd=project)
    assert done.returncode == 0, done.stderr  # not blocked until `mem unlock`


def test_a_full_disk_during_handoff_leaves_no_session_file(
    tiny_disk: Path, run_mem: RunMem
) -> None:
    project = tiny_disk / "project"
    sessions = project / ".agents/memory/sessions"
    sessions.mkdir(parents=True)
    filler = fill(tiny_disk)
    text = "Next: the login form.\n" * 50
    done = run_mem("handoff", "--topic", "auth", "--stdin", input=text, cwd=project)
    assert list(sessions.iterdir()) == []
    refused(done, "handoff")
    assert "nothing was written" in done.stderr
    filler.unlink()
    context = run_mem("context", cwd=project)
    assert "## handoff: missing" in context.stdout, context.stdout


def test_a_full_disk_during_init_and_export_leaves_no_empty_file(
    tiny_disk: Path, run_mem: RunMem, isolated_env: Path
) -> None:
    (isolated_env / ".bmad-plus/brain").mkdir(parents=True)
    (isolated_env / ".bmad-plus/brain/identity.yaml").write_text("name: me\n")
    project = tiny_disk / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Mine\n")
    fill(tiny_disk)
    runs = [("init",), ("init", "--agents"), ("export",), ("export", "--force")]
    done = [run_mem(*args, cwd=project) for args in runs]
    files = [path.relative_to(project) for path in project.rglob("*") if path.is_file()]
    assert files == [Path("AGENTS.md")]
    assert (project / "AGENTS.md").read_text() == "# Mine\n"
    for args, result in zip(runs, done, strict=True):
        refused(result, args[0])


@pytest.mark.parametrize("room_kib", [4, 8])
def test_a_team_clones_first_write_on_a_full_disk_leaves_no_writer_id(
    run_mem: RunMem, tiny_disk: Path, room_kib: int
) -> None:
    project = tiny_disk / "project"
    (project / ".bmad/memory").mkdir(parents=True)
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/mem.toml").write_text('layout = "team"\n')
    fill = tiny_disk / "fill"
    with open(fill, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 1024)
        except OSError:
            pass
    os.truncate(fill, fill.stat().st_size - room_kib * 1024)  # room for a folder or two
    for args in (
        ("write", "--agent", "a", "--task", "t"),
        ("note", "add", "lesson", "--title", "T"),
    ):
        done = run_mem(*args, "-d", str(project))
        assert done.returncode == 1
        assert "No space left on device; nothing was" in done.stderr, done.stderr
    local = project / ".bmad/memory/.local"
    assert not (local / "writer").exists()
    assert [path.name for path in local.glob("*.tmp")] == []
