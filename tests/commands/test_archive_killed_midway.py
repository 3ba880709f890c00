"""`mem archive` killed (kill -9) at each step of its move: nothing counts twice, nothing is
lost, the store and its archive never stay one file, and the next writer finishes the move.

The real console script runs in a process that SIGKILLs itself when it reaches a step: an
audit hook (Python's own `sys.addaudithook`) set before the script starts, so mem itself
has no fault-injection code. The steps: the hard link to the archive name, the unlink of
the store's name, the creation of the new empty store.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import RunMem, mem_command
from support.demo import CACHE, RETRY

MEMORY = Path(".bmad/memory")

# Runs the console script after installing a hook that kills this process with SIGKILL
# when it is about to do `event` (an audit event name) to a path ending in `name`.
pytestmark = pytest.mark.script

KILLER = """
import os, runpy, signal, sys
event, name, script = sys.argv[1:4]
def hook(what, args):
    if what != event or not args or not str(args[0]).endswith(name):
        return
    if what == "open" and not (args[2] or 0) & os.O_EXCL:
        return  # the new store is created exclusively; its other opens are reads
    os.kill(os.getpid(), signal.SIGKILL)
sys.addaudithook(hook)
sys.argv = [script, *sys.argv[4:]]
runpy.run_path(script, run_name="__main__")
"""
STEPS = {
    "before the link": "os.link",
    "between the link and the unlink": "os.remove",
    "before the new store": "open",
}


def killed_at(step: str, project: Path, store: str) -> None:
    script = mem_command()[0]
    name = f"{store}.ndjson"
    args = [STEPS[step], name, script, "archive", store, "--approve"]
    done = subprocess.run(
        [sys.executable, "-c", KILLER, *args], cwd=project, capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def as_json(run_mem: RunMem, project: Path, *args: str) -> dict:  # type: ignore[type-arg]
    return json.loads(ok(run_mem(*args, "--json", cwd=project)).stdout)  # type: ignore[no-any-return]


def archives(project: Path) -> list[Path]:
    folder = project / MEMORY / "archive"
    return sorted(folder.iterdir()) if folder.exists() else []


def event_ids(run_mem: RunMem, project: Path, *options: str) -> list[str]:
    found = as_json(run_mem, project, "recall", "zebra", "--limit", "100", *options)["results"]
    return sorted(entry["ref"] for entry in found)


@pytest.mark.parametrize("step", STEPS)
def test_a_killed_journal_archive_counts_each_event_once_and_the_next_write_finishes_it(
    project: Path, run_mem: RunMem, step: str
) -> None:
    for number in range(3):
        ok(run_mem("write", "--agent", "forge", "--task", f"zebra {number}", cwd=project))
    journal = project / MEMORY / "journal.ndjson"
    before = journal.read_bytes()
    everything = event_ids(run_mem, project)
    killed_at(step, project, "journal")

    # Readers: each event once, from the live journal or from the archive, never both.
    assert event_ids(run_mem, project, "--include-archive") == everything
    moved = step != "before the link"
    assert event_ids(run_mem, project) == ([] if moved else everything)
    linked = step == "between the link and the unlink"
    archive = None
    if moved:
        (archive,) = archives(project)
        assert journal.exists() == linked
        assert not linked or os.path.samefile(journal, archive)  # one file, two names
    else:
        assert archives(project) == [] and journal.read_bytes() == before
    check = as_json(run_mem, project, "index", "check")
    assert check["ok"], check["differences"]
    interrupted = []
    if linked and archive is not None:
        shown = {
            "file": str(MEMORY / "journal.ndjson"),
            "archive": str(archive.relative_to(project)),
        }
        interrupted = [{"store": "journal", **shown}]
    assert check["interruptedArchives"] == interrupted
    assert as_json(run_mem, project, "status")["findings"]["interruptedArchives"] == interrupted
    if linked:
        assert "(an interrupted `mem archive`)" in ok(run_mem("status", cwd=project)).stdout

    # The next writer (once `mem unlock` cleared the killed one's lock) finishes the move.
    ok(run_mem("unlock", cwd=project))
    ok(run_mem("write", "--agent", "forge", "--task", "zebra after", cwd=project))
    after = [line for line in journal.read_text().splitlines() if "zebra after" in line]
    assert len(after) == 1
    if moved:
        assert archive is not None and archive.read_bytes() == before
        assert journal.read_text().splitlines() == after
        assert os.stat(journal).st_nlink == 1
    assert len(event_ids(run_mem, project, "--include-archive")) == len(everything) + 1
    assert as_json(run_mem, project, "index", "check")["interruptedArchives"] == []


def test_running_the_killed_archive_again_finishes_it(project: Path, run_mem: RunMem) -> None:
    journal = project / MEMORY / "journal.ndjson"
    before = journal.read_bytes()
    plan = as_json(run_mem, project, "archive", "journal")
    killed_at("between the link and the unlink", project, "journal")
    ok(run_mem("unlock", cwd=project))
    assert as_json(run_mem, project, "archive", "journal") == plan  # the plan it was carrying out
    done = as_json(run_mem, project, "archive", "journal", "--approve")
    assert done == {**plan, "approved": True}
    (archive,) = archives(project)
    assert str(archive).endswith(plan["archive"]) and archive.read_bytes() == before
    assert journal.read_bytes() == b"" and os.stat(archive).st_nlink == 1
    refused = run_mem("archive", "journal", "--approve", cwd=project)
    assert "is empty; there is nothing to archive" in refused.stderr


def test_a_killed_lifecycle_archive_applies_its_events_once(project: Path, run_mem: RunMem) -> None:
    """A store other than the journal: its events count in the archive, not the store."""
    ok(run_mem("retract", CACHE, "--reason", "wrong", cwd=project))
    lifecycle = project / MEMORY / "lifecycle.ndjson"
    before = lifecycle.read_bytes()
    killed_at("between the link and the unlink", project, "lifecycle")

    def statuses() -> dict[str, str]:
        memories = as_json(run_mem, project, "context")["memories"]
        return {m["id"]: m["status"] for m in memories if m["id"] in (CACHE, RETRY)}

    assert statuses() == {CACHE: "active", RETRY: "active"}  # as once the archive is done
    ok(run_mem("unlock", cwd=project))
    ok(run_mem("retract", RETRY, "--reason", "wrong too", cwd=project))
    assert statuses() == {CACHE: "active", RETRY: "retracted"}
    (archive,) = archives(project)
    assert archive.read_bytes() == before
    assert [json.loads(line)["memory"]["id"] for line in lifecycle.read_text().splitlines()] == [
        RETRY
    ]
    assert as_json(run_mem, project, "index", "check")["ok"]
