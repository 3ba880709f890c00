"""Deviation D13: in team layout `mem note add` writes each note to a file of its own,
which recall, context and show read as a note of its kind."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem

SETTINGS = Path(".agents/memory/mem.toml")


def test_a_team_note_is_a_file_of_its_own_and_a_memory_of_its_kind(
    project: Path, run_mem: RunMem
) -> None:
    (project / SETTINGS).write_text('layout = "team"\n')
    classic = (project / ".agents/memory/decisions.md").read_bytes()
    args = ("note", "add", "decision", "--title", "Queue by BullMQ", "--stdin", "--json")
    done = run_mem(*args, cwd=project, input="- **Decision**: zebrafish queues.")
    assert done.returncode == 0, done.stderr
    added = json.loads(done.stdout)
    assert added["file"].startswith(".agents/memory/decisions/2026-10-18-queue-by-bullmq-")
    assert (project / added["file"]).read_text() == (
        "### 2026-10-18 — Queue by BullMQ\n- **Decision**: zebrafish queues.\n"
    )
    assert (project / ".agents/memory/decisions.md").read_bytes() == classic
    found = json.loads(run_mem("recall", "zebrafish", "--json", cwd=project).stdout)["results"]
    assert [(e["kind"], e["ref"]) for e in found] == [("note", "2026-10-18 — Queue by BullMQ")]
    shown = json.loads(run_mem("show", added["id"], "--json", cwd=project).stdout)
    assert shown["file"] == added["file"] and shown["status"] == "active"
    again = run_mem(*args[:-1], cwd=project, input="- again")
    assert again.returncode == 1
    assert f"{added['file']} already has a section headed" in again.stderr


def test_a_team_note_heading_the_classic_file_has_is_refused(
    project: Path, run_mem: RunMem
) -> None:
    (project / SETTINGS).write_text('layout = "team"\n')
    memories = json.loads(run_mem("context", "--json", cwd=project).stdout)["memories"]
    pattern = next(m for m in memories if m["file"] == ".agents/memory/patterns.md")
    done = run_mem("note", "add", "pattern", "--title", pattern["heading"], cwd=project)
    assert done.returncode == 1
    assert ".agents/memory/patterns.md already has a section headed" in done.stderr
    assert not (project / ".agents/memory/patterns").exists()
