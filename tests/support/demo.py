"""Memory ids of the demo project (fixtures/demo) that the evidence and lifecycle tests use."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mem.domain import memories
from support.cli import RunMem

LESSONS = ".agents/memory/lessons.md"
CACHE = memories.memory_id(LESSONS, "Cache contract")
RETRY = memories.memory_id(LESSONS, "Retry budget")


def record_cache_evidence(run_mem: RunMem, project: Path) -> subprocess.CompletedProcess[str]:
    """`Cache contract` rests on src/policy.py and src/limits.py (the git_project files)."""
    return run_mem(
        "evidence",
        "add",
        CACHE,
        "--source",
        "src/policy.py",
        "--source",
        "src/limits.py",
        cwd=project,
    )
