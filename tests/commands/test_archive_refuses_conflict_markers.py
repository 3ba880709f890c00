"""`mem archive` refuses a store that still holds merge conflict markers, as every writer
does: with and without --approve, text and JSON, and nothing moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem

pytestmark = pytest.mark.script

MEMORY = Path(".bmad/memory")
CONFLICTED = "Memory store has unresolved merge conflict markers; resolve them before writing."


def test_archive_refuses_a_store_with_conflict_markers(project: Path, run_mem: RunMem) -> None:
    journal = project / MEMORY / "journal.ndjson"
    text = journal.read_text()
    journal.write_text(f"{text}<<<<<<< HEAD\n{text.splitlines()[0]}\n=======\n{{}}\n>>>>>>> b\n")
    (project / MEMORY / "lifecycle.ndjson").write_text("<<<<<<< ours\n=======\n>>>>>>> theirs\n")
    before = sorted(path.name for path in (project / MEMORY).iterdir())
    for store in ("journal", "lifecycle"):
        for approve in ((), ("--approve",)):
            done = run_mem("archive", store, *approve, cwd=project)
            assert (done.returncode, done.stdout, done.stderr) == (
                1,
                "",
                f"mem archive: {CONFLICTED}\n",
            )
            done = run_mem("archive", store, *approve, "--json", cwd=project)
            assert (done.returncode, json.loads(done.stdout)) == (1, {"error": CONFLICTED})
    assert sorted(path.name for path in (project / MEMORY).iterdir()) == before


def test_promote_refuses_conflict_markers_before_it_writes_the_brain(
    project: Path, run_mem: RunMem
) -> None:
    """promote writes two files: the store is checked before the brain is touched."""
    from support.demo import CACHE

    ok = run_mem("init", cwd=project)
    assert ok.returncode == 0, ok.stderr
    brain = Path(json.loads((project / ".agents/memory/.brain-link").read_text())["linked_brain"])
    before = {path: path.read_bytes() for path in brain.rglob("*") if path.is_file()}
    (project / MEMORY / "promotions.ndjson").write_text("<<<<<<< ours\n=======\n>>>>>>> b\n")
    done = run_mem("promote", CACHE, "--approve", "--by", "tester", cwd=project)
    assert (done.returncode, done.stderr) == (1, f"mem promote: {CONFLICTED}\n")
    assert {path: path.read_bytes() for path in brain.rglob("*") if path.is_file()} == before
