"""Portfolios for tests: a brain, registry entries, projects with every kind of store."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mem import clock, index
from mem.core.rules import memory
from mem.domain import recall
from mem.index import location, portfolio
from support.trees import age_tree, write

NOW = "2026-10-18T09:30:00.000Z"


def register(brain: Path, project: Path, name: str | None = None, entry: str | None = None) -> Path:
    """A `projects/<entry>.yaml` entry as the reference writes it."""
    lines = [f"path: {json.dumps(str(project))}"]
    if name is not None:
        lines.append(f"name: {json.dumps(name)}")
    target = (
        brain
        / "projects"
        / f"{entry or hashlib.sha256(str(project).encode()).hexdigest()[:8]}.yaml"
    )
    write(target, "\n".join(lines))
    return target


def event(ts: str, agent: str, task: str) -> str:
    ident = hashlib.sha256(f"{ts}\0{agent}\0{task}".encode()).hexdigest()[:12]
    record = {"ts": ts, "agent": agent, "task": task, "signals": {}, "id": ident}
    return json.dumps(record, separators=(",", ":")) + "\n"


def section_text(heading: str, body: str) -> str:
    return f"{heading}\n{body}"


def memory_ref(file: str, heading: str, body: str) -> dict[str, str]:
    """The `{id, file, heading, revision}` of a section written as `### heading\\nbody\\n`."""
    return {
        "id": memory.memory_id(file, heading),
        "file": file,
        "heading": heading,
        "revision": memory.revision_of(section_text(heading, body)),
    }


def with_id(record: dict[str, object]) -> dict[str, object]:
    body = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    return {"id": hashlib.sha256(body.encode()).hexdigest(), **record}


def audited_project(root: Path, name: str) -> None:
    """A project holding notes, events, evidence (one source changed, one missing), a
    retraction, pattern scores and a receipt: every audit query has something to find."""
    lessons = ".agents/memory/lessons.md"
    kept, dropped = ("Pool connections", "use pgbouncer for postgres"), ("Old cache", "drop it")
    write(
        root / lessons,
        f"# Lessons\n\n### {kept[0]}\n{kept[1]}\n\n### {dropped[0]}\n{dropped[1]}\n",
    )
    write(
        root / ".bmad/memory/journal.ndjson",
        event("2026-10-01T08:00:00.000Z", "forge", f"{name} pgbouncer rollout")
        + event("2026-10-09T08:00:00.000Z", "scout", f"{name} review"),
    )
    write(root / "src/pool.py", "POOL = 20\n")
    recorded = hashlib.sha256(b"POOL = 10\n").hexdigest()
    evidence = [
        with_id(
            {
                "schemaVersion": 1,
                "kind": "memory-evidence",
                "ts": "2026-10-02T08:00:00.000Z",
                "memory": memory_ref(lessons, *kept),
                "repo": "github.com/Org/Repo",
                "source": {"path": path, "sha256": recorded, "size": 10},
                "batch": "b1",
            }
        )
        for path in ("src/pool.py", "src/gone.py")
    ]
    write(
        root / ".bmad/memory/evidence.ndjson",
        "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in evidence),
    )
    retraction = with_id(
        {
            "schemaVersion": 1,
            "kind": "retracted",
            "ts": "2026-10-03T08:00:00.000Z",
            "memory": memory_ref(lessons, *dropped),
            "with": None,
            "reason": "No longer true",
        }
    )
    write(
        root / ".bmad/memory/lifecycle.ndjson",
        json.dumps(retraction, separators=(",", ":"), ensure_ascii=False) + "\n",
    )
    scores = {
        "pgbouncer pooling": {
            "elo": 1216.0,
            "alpha": 1.9,
            "beta": 1.1,
            "mean": 0.6333,
            "updates": 1,
            "lastTs": "2026-10-04T08:00:00.000Z",
        }
    }
    write(root / ".bmad/memory/pattern-scores.json", json.dumps(scores))
    receipt = with_id(
        {
            "schemaVersion": 1,
            "kind": "accepted-outcome",
            "memory": {
                "file": lessons,
                "heading": kept[0],
                "textSha256": memory_ref(lessons, *kept)["revision"],
            },
            "scope": ["src"],
            "source": {"runId": "r", "taskId": "t", "attemptId": "a"},
            "supersedes": [],
            "contradicts": [],
        }
    )
    write(root / ".bmad/memory/outcomes.ndjson", json.dumps(receipt, separators=(",", ":")) + "\n")


def audited_portfolio(base: Path, projects: int = 3) -> tuple[Path, list[Path]]:
    """A brain with notes and `projects` registered projects built by audited_project."""
    brain = base / "_brain"
    write(brain / "lessons.md", "# Lessons\n\n### Brain pooling\npgbouncer everywhere\n")
    roots = []
    for number in range(projects):
        root = base / f"project-{number}"
        audited_project(root, f"project-{number}")
        register(brain, root, name=f"project-{number}")
        roots.append(root)
    age_tree(base)
    return brain, roots


def found_texts(brain: Path, query: str) -> set[tuple[str, str]]:
    """(project name, text) of every `recall --scope all` result."""
    request = recall.RecallRequest(query, scope="all", portfolio=str(brain), limit="1000")
    answer = recall.recall(str(brain), request, NOW, clock.local_offset_ms)
    return {(entry["projectName"], entry["text"]) for entry in answer.entries}


def stale_roots(brain: Path, cache: Path) -> set[str] | None:
    """The names of the roots the portfolio's freshness check finds stale, nothing synced:
    None when every root is fresh, an empty set when the brain changed (every root is
    then reconciled)."""
    conn = index.connect(location.index_path(str(brain.resolve()), location.PORTFOLIO, str(cache)))
    assert conn is not None
    try:
        names = {row.id: row.name for row in index.project_rows(conn)}
        stale = portfolio._stale_roots(conn, str(brain.resolve()))
    finally:
        conn.close()
    return None if stale is None else {names[root] for root in stale}
