"""A build killed half-way leaves its temporary copy in the cache; the next build removes it.

Without this, every `mem recall` killed during a first sync (an agent's timeout, Ctrl-C
on a big project) left a file as large as the index had grown, forever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support.cli import RunMem, mem_command

from mem import index

ORPHAN_HEX = "0123456789abcdef0123456789abcdef"


def _cache() -> Path:
    return Path(os.environ["MEM_CACHE_DIR"])


def _index_file(project: Path) -> Path:
    return Path(index.index_path(os.path.realpath(project), "project"))


def test_a_killed_builds_copy_is_removed_by_the_next_build(project: Path, run_mem: RunMem) -> None:
    final = _index_file(project)
    final.parent.mkdir(parents=True, exist_ok=True)
    orphan = Path(f"{final}.{ORPHAN_HEX}.tmp")
    orphan.write_bytes(b"\0" * 4096)
    # Not a build copy of this index: another root's, another name, a short id.
    kept = [
        final.parent / f"project-0000-v{index.INDEX_VERSION}.sqlite.{ORPHAN_HEX}.tmp",
        Path(f"{final}.{ORPHAN_HEX}.bak"),
        Path(f"{final}.abc.tmp"),
    ]
    for path in kept:
        path.write_bytes(b"x")

    done = run_mem("recall", "cache", "-d", str(project), "--json")

    assert done.returncode == 0, done.stderr
    assert final.exists()
    assert not orphan.exists()
    assert all(path.exists() for path in kept)


def test_an_index_rebuild_removes_them_too(project: Path, run_mem: RunMem) -> None:
    assert run_mem("recall", "cache", "-d", str(project)).returncode == 0
    orphan = Path(f"{_index_file(project)}.{ORPHAN_HEX}.tmp")
    orphan.write_bytes(b"\0" * 4096)
    assert run_mem("index", "rebuild", "-d", str(project)).returncode == 0
    assert not orphan.exists()


@pytest.mark.slow
def test_recalls_killed_during_first_syncs_leave_one_index(tmp_path: Path, project: Path) -> None:
    notes = project / ".agents/memory/lessons.md"
    notes.write_text(
        "# Lessons\n" + "".join(f"\n### Lesson {n}\nthe cache {n} pooling\n" for n in range(20000)),
        encoding="utf-8",
    )
    for delay in (0.3, 0.5, 0.7, 0.9):
        process = subprocess.Popen(
            [*mem_command(), "recall", "cache", "-d", str(project)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
    done = subprocess.run(
        [*mem_command(), "recall", "cache", "-d", str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not [name for name in os.listdir(_cache()) if name.endswith(".tmp")]
