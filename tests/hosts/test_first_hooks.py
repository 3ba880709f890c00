"""Issue 35, "a cold cache misses the first prompt": a fresh clone of a project with many
notes and an EMPTY mem cache, run once in a real host. The host runs the session start hook
(which starts a detached index build) before the prompt hook; does the prompt's note reach
the model's first request all the same?

`MEM_TEST_COLD_NOTES` sets the project's size (default 2,000 notes, a few seconds of index
build; 10,000 for the issue's figure). Each hook runs through a shim that logs its wall time
to `hook-times.log` beside the project, printed with `-s`.
"""

from __future__ import annotations

import json
import os

from support.hosts import ColdRun

BRIEF = "Project memory (mem)"


def _first_request(run: ColdRun, host: str) -> str:
    requests = run.model.model_requests()
    assert requests, "the host asked the model nothing"
    first = requests[0].text()
    print(
        json.dumps(
            {
                "host": host,
                "notes": run.notes,
                "brief": BRIEF in first,
                "note": run.note in first,
                "hooks_ms": run.hook_times,
                "run_s": round(run.seconds, 1),
                "load": os.getloadavg()[0],
            }
        )
    )
    return first


def test_claude_code_cold_cache_first_prompt(claude_code_cold: ColdRun) -> None:
    first = _first_request(claude_code_cold, "claude-code")
    assert BRIEF in first
    assert claude_code_cold.note in first, (
        "the prompt's note missed the first request on a cold cache"
    )


def test_codex_cold_cache_first_prompt(codex_cold: ColdRun) -> None:
    first = _first_request(codex_cold, "codex")
    assert BRIEF in first
    assert codex_cold.note in first, "the prompt's note missed the first request on a cold cache"


def test_gemini_cli_cold_cache_first_prompt(gemini_cold: ColdRun) -> None:
    first = _first_request(gemini_cold, "gemini")
    assert BRIEF in first
    assert gemini_cold.note in first, "the prompt's note missed the first request on a cold cache"
