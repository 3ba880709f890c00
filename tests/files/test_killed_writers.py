"""Writers killed at any instant lose nothing that was kept, and leave nothing that blocks.

A kept score update always has its promotion (the proposal is appended first), a killed
writer's temporary files are removed by the next writer, and `mem unlock` clears every
lock a killed writer can leave: one with a dead owner, or an empty one older than a few
seconds (killed between creating the file and recording itself).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.cli import RunMem

from mem.commands import unlock

MEMORY = Path(".bmad/memory")
LOCK = MEMORY / "writer.lock"
PATTERN = "chromadb batch ingestion"
ABANDONED_AGE_S = 10  # older than the grace an owner has to record itself


def backdate(path: Path, seconds: float) -> None:
    moment = time.time() - seconds
    os.utime(path, (moment, moment))


def test_an_empty_lock_blocks_until_unlock_clears_it_once_old(
    project: Path, run_mem: RunMem
) -> None:
    lock = project / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    done = run_mem("unlock", cwd=project)
    assert done.returncode == 1 and "its owner record is empty" in done.stderr
    assert lock.exists()  # a writer may be about to record itself
    backdate(lock, ABANDONED_AGE_S)
    done = run_mem("write", "--agent", "forge", cwd=project)
    assert done.returncode == 1 and "`mem unlock` can remove it." in done.stderr
    status = run_mem("status", cwd=project).stdout
    assert "🔒 writer.lock: held, its owner record is empty or unreadable (mem unlock" in status
    done = run_mem("unlock", cwd=project)
    assert (done.returncode, done.stdout) == (
        0,
        "mem unlock: removed writer.lock with an empty owner record"
        " (a writer was killed before recording itself)\n",
    )
    assert not lock.exists()
    assert run_mem("write", "--agent", "forge", cwd=project).returncode == 0


def test_an_old_unreadable_lock_is_cleared_too(project: Path, run_mem: RunMem) -> None:
    lock = project / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text('{"pid":')
    backdate(lock, ABANDONED_AGE_S)
    done = run_mem("unlock", "--json", cwd=project)
    assert json.loads(done.stdout) == {
        "lock": "removed",
        "removed": True,
        "owner": None,
        "ownerRecord": '{"pid":',
    }


def test_the_next_writer_removes_temporary_files_a_killed_writer_left(
    project: Path, run_mem: RunMem
) -> None:
    memory = project / MEMORY
    orphans = [
        memory / "pattern-scores.json.0b8f4c52-3d1e-4c4e-9a55-2f1c9e0d7a11.tmp",
        memory / "journal.ndjson.7d2e61c0-1a9b-4f0e-8c3d-5b6a4e2f9d10.tmp",
    ]
    kept = [memory / "notes.tmp", memory / "pattern-scores.json.tmp"]  # not a writer's name
    for path in orphans + kept:
        path.write_text("half")
    assert run_mem("write", "--agent", "forge", cwd=project).returncode == 0
    assert [path.exists() for path in orphans + kept] == [False, False, True, True]


def test_a_promotion_is_appended_before_its_score_is_kept(project: Path, run_mem: RunMem) -> None:
    promotions = project / MEMORY / "promotions.ndjson"
    promotions.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        run_mem("reinforce", "--pattern", PATTERN, "--ci", "pass", cwd=project)
    promotions.write_text('{"torn')  # the third call's proposal cannot be appended
    done = run_mem("reinforce", "--pattern", PATTERN, "--ci", "pass", cwd=project)
    assert done.returncode == 1 and "incomplete final line" in done.stderr
    scores = json.loads((project / MEMORY / "pattern-scores.json").read_text())
    assert scores[PATTERN]["updates"] == 2  # nothing kept without its proposal


# ---- killed at random instants


class Writers:
    """Writers forked from a warm parent (support/forked_mem.py): each starts at the command,
    so an instant picked at random falls in its work, not in Python's start-up."""

    def __init__(self) -> None:
        script = Path(__file__).parents[1] / "support" / "forked_mem.py"
        self.parent = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def start(self, project: Path, args: list[str]) -> int:
        assert self.parent.stdin is not None and self.parent.stdout is not None
        self.parent.stdin.write(json.dumps([str(project), args]) + "\n")
        self.parent.stdin.flush()
        return int(self.parent.stdout.readline())

    def wait(self) -> int:
        """The wait status of the writer started last, once it has ended."""
        assert self.parent.stdout is not None
        return int(self.parent.stdout.readline())

    def close(self) -> None:
        assert self.parent.stdin is not None and self.parent.stdout is not None
        self.parent.stdin.close()
        assert self.parent.wait() == 0
        self.parent.stdout.close()


def killed_run(
    writers: Writers, project: Path, args: list[str], rng: random.Random, runtime: float
) -> None:
    """Start a writer and SIGKILL it at a random instant, or just as it takes writer.lock."""
    pid = writers.start(project, args)
    lock = project / LOCK
    if rng.random() < 0.5:
        time.sleep(rng.uniform(0, runtime * 1.1))
    else:
        # Aim at the few milliseconds the writer holds the lock: where a kill can hurt.
        deadline = time.monotonic() + runtime * 3
        while not lock.exists() and time.monotonic() < deadline:
            time.sleep(0.0002)  # far shorter than the lock is held; no core spent spinning
        time.sleep(rng.uniform(0, 0.004))
    with contextlib.suppress(ProcessLookupError):  # ended already, not yet reaped: a zombie
        os.kill(pid, signal.SIGKILL)
    writers.wait()


def recover(project: Path) -> bool:
    """Clear a lock the killed writer left, as `mem unlock` does; True when there was one.

    In-process to keep the campaign short: the command itself is tested above.
    """
    lock = project / LOCK
    if not lock.exists():
        return False
    if not lock.read_bytes():
        backdate(lock, ABANDONED_AGE_S)  # as it will be a few seconds later
    assert unlock.unlock(str(project))["removed"] is True
    assert not lock.exists()
    return True


def campaign(project: Path, args: list[str], runs: int, seed: int) -> int:
    rng = random.Random(seed)
    writers = Writers()
    try:
        started = time.monotonic()
        writers.start(project, args)
        assert writers.wait() == 0
        runtime = time.monotonic() - started
        cleared = 0
        for _ in range(runs):
            killed_run(writers, project, args, rng, runtime)
            cleared += recover(project)
    finally:
        writers.close()
    return cleared


@pytest.mark.slow
def test_writers_killed_at_random_instants_lose_nothing_they_kept(
    project: Path, run_mem: RunMem, tmp_path: Path
) -> None:
    journal_projects = [project, tmp_path / "journal-2"]
    shutil.copytree(project, journal_projects[1])
    reinforce_projects = [tmp_path / "reinforced-1", tmp_path / "reinforced-2"]
    for reinforced in reinforce_projects:
        (reinforced / ".agents/memory").mkdir(parents=True)
        (reinforced / ".agents/memory/patterns.md").write_text(f"### {PATTERN}\nbatches\n")
    write = ["write", "--agent", "forge", "--task", "killed"]
    reinforce = ["reinforce", "--pattern", PATTERN, "--ci", "pass"]
    jobs = [(root, write) for root in journal_projects] + [
        (root, reinforce) for root in reinforce_projects
    ]
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        # 30 kills per project: 60 of each writer.
        runs = [
            pool.submit(campaign, root, args, 30, seed) for seed, (root, args) in enumerate(jobs)
        ]
        for run in runs:
            run.result()

    for journal_project in journal_projects:
        check_journal(journal_project, run_mem, write)
    for reinforced in reinforce_projects:
        check_promotions(reinforced, run_mem, reinforce)


def check_journal(journal_project: Path, run_mem: RunMem, write: list[str]) -> None:
    """Every line whole except perhaps the last, and the journal writable again."""
    *whole, last = (journal_project / MEMORY / "journal.ndjson").read_bytes().split(b"\n")
    for line in whole:
        json.loads(line)
    done = run_mem(*write, cwd=journal_project)
    if last:  # a torn final line: refused until a person looks, never appended to
        assert "incomplete final line" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


def check_promotions(reinforce_project: Path, run_mem: RunMem, reinforce: list[str]) -> None:
    """Every kept score update from the third on has its proposal, and the stores writable
    again, except after a kill inside the append's write() (the kernel may stop it at a page
    boundary): then, as for the journal, the torn final line is refused until a person looks."""
    memory = reinforce_project / MEMORY
    promotions = memory / "promotions.ndjson"
    held = promotions.read_bytes() if promotions.exists() else b""
    torn = bool(held) and not held.endswith(b"\n")
    done = run_mem(*reinforce, cwd=reinforce_project)
    if torn:
        assert "incomplete final line" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
    *whole, _ = promotions.read_bytes().split(b"\n") if promotions.exists() else [b""]
    updates = json.loads((memory / "pattern-scores.json").read_text())[PATTERN]["updates"]
    proposed = {
        int(re.search(r"over (\d+) update", json.loads(line)["reason"]).group(1))  # type: ignore[union-attr]
        for line in whole
    }
    assert set(range(3, updates + 1)) <= proposed
    assert not [name for name in os.listdir(memory) if name.endswith(".tmp")]
    assert not (memory / "writer.lock").exists()
