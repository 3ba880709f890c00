"""Memory ids of the demo project (fixtures/demo) that the evidence and lifecycle tests use."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mem.domain import memories
from support.cli import RunMem

LESSONS = ".agents/memory/lessons.md"
CACHE = memories.memory_id(LESSONS, "Cache contract")
RETRY = memories.memory_id(LESSONS, "Retry budget")


def evidence_args(memory: str, *sources: str) -> list[str]:
    """`mem evidence add MEMORY --source SOURCE ...`'s arguments."""
    return [
        "evidence",
        "add",
        memory,
        *(part for source in sources for part in ("--source", source)),
    ]


def record_cache_evidence(run_mem: RunMem, project: Path) -> subprocess.CompletedProcess[str]:
    """`Cache contract` rests on src/policy.py and src/limits.py (the git_project files)."""
    return run_mem(
        *evidence_args(CACHE, "src/policy.py", "src/limits.py"),
        cwd=project,
    )
