"""Deviation D10: plain recall leaves out notes whose current revision is superseded or
retracted; `--include-retired` lists them with their status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import RunMem

from mem import clock
from mem.commands import retract
from mem.domain import memories, recall

NOW = "2026-10-18T09:30:00.000Z"
DECISIONS = ".agents/memory/decisions.md"
LESSONS = ".agents/memory/lessons.md"
POOLING = memories.memory_id(DECISIONS, "2026-06-02 — Postgres connection pooling")
REDIS = memories.memory_id(".bmad/memory/decisions.md", "2026-07-10 — Move sessions to redis")
RETRY = memories.memory_id(LESSONS, "Retry budget")


def refs(run_mem: RunMem, project: Path, *args: str) -> list[tuple[str, str | None]]:
    done = run_mem("recall", *args, "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return [(entry["ref"], entry.get("status")) for entry in json.loads(done.stdout)["results"]]


def test_retired_notes_are_left_out_and_listed_on_request(project: Path, run_mem: RunMem) -> None:
    before = run_mem("recall", "postgres", cwd=project).stdout
    assert (
        run_mem("supersede", POOLING, "--with", RETRY, "--reason", "r", cwd=project).returncode == 0
    )
    assert run_mem("retract", REDIS, "--reason", "gone", cwd=project).returncode == 0

    assert refs(run_mem, project, "postgres") == [
        ("Retry budget", None),
        ("5367648f4864", None),
    ]
    assert refs(run_mem, project, "postgres", "--include-retired") == [
        ("2026-06-02 — Postgres connection pooling", "superseded"),
        ("Retry budget", "active"),
        ("2026-07-10 — Move sessions to redis", "retracted"),
        ("5367648f4864", None),
    ]
    listed = run_mem("recall", "postgres", "--include-retired", cwd=project).stdout
    assert listed.replace(f" [superseded by {RETRY}]", "").replace(" [retracted]", "") == before
    assert (
        f"note decisions.md § 2026-06-02 — Postgres connection pooling [superseded by {RETRY}]\n"
        in listed
    )
    assert "note decisions.md § 2026-07-10 — Move sessions to redis [retracted]\n" in listed
    entry = json.loads(
        run_mem("recall", "pgbouncer", "--include-retired", "--json", cwd=project).stdout
    )["results"][0]
    assert (entry["status"], entry["supersededBy"]) == ("superseded", RETRY)


def test_the_limit_counts_only_what_is_listed(project: Path, run_mem: RunMem) -> None:
    run_mem("retract", POOLING, "--reason", "gone", cwd=project)
    assert refs(run_mem, project, "postgres", "--limit", "1") == [("Retry budget", None)]
    assert refs(run_mem, project, "postgres", "pooling", "--limit", "1") == [("5367648f4864", None)]


def test_an_edited_note_is_a_new_revision_and_active_again(project: Path, run_mem: RunMem) -> None:
    run_mem("retract", RETRY, "--reason", "gone", cwd=project)
    assert ("Retry budget", None) not in refs(run_mem, project, "postgres")
    lessons = project / LESSONS
    lessons.write_text(lessons.read_text().replace("capped at 5", "capped at 6"))
    assert ("Retry budget", None) in refs(run_mem, project, "postgres")


def test_a_damaged_lifecycle_store_never_stops_lexical_recall(
    project: Path, run_mem: RunMem
) -> None:
    run_mem("retract", RETRY, "--reason", "gone", cwd=project)
    store = project / ".bmad/memory/lifecycle.ndjson"
    store.write_text(store.read_text().replace('"gone"', '"edited"') + "{torn\n")
    # A record whose id no longer matches its content retires nothing; recall goes on.
    assert ("Retry budget", None) in refs(run_mem, project, "postgres")
    assert run_mem("context", cwd=project).returncode == 1  # strict readers still refuse it


def test_without_lifecycle_records_every_note_is_active(project: Path, run_mem: RunMem) -> None:
    plain = run_mem("recall", "postgres", cwd=project).stdout
    assert run_mem("recall", "postgres", "--include-retired", cwd=project).stdout == plain
    statuses = {status for _, status in refs(run_mem, project, "postgres", "--include-retired")}
    assert statuses == {"active", None}


HEADINGS = [f"Decision {letter}" for letter in "abcdefgh"]


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    bodies=st.lists(
        st.lists(st.sampled_from(["cache", "redis", "pool", "deploy"]), min_size=1, max_size=5),
        min_size=len(HEADINGS),
        max_size=len(HEADINGS),
    ),
    retired=st.sets(st.integers(0, len(HEADINGS) - 1)),
    limit=st.integers(1, 10),
)
def test_plain_recall_is_the_listed_recall_without_retired_notes(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    bodies: list[list[str]],
    retired: set[int],
    limit: int,
) -> None:
    root = tmp_path_factory.mktemp("retired")
    monkeypatch.setenv("MEM_CACHE_DIR", str(root / "cache"))
    notes = root / DECISIONS
    notes.parent.mkdir(parents=True)
    notes.write_text(
        "".join(
            f"### {heading}\n{' '.join(body)}\n"
            for heading, body in zip(HEADINGS, bodies, strict=True)
        )
    )
    for position in sorted(retired):
        retract.retract(str(root), memories.memory_id(DECISIONS, HEADINGS[position]), "r", NOW)
    query = "cache redis pool"
    plain = recall.recall(
        str(root), recall.RecallRequest(query=query, limit=str(limit)), NOW, clock.local_offset_ms
    ).entries
    listed = recall.recall(
        str(root),
        recall.RecallRequest(query=query, limit="1000", include_retired=True),
        NOW,
        clock.local_offset_ms,
    ).entries
    expected = [
        {key: value for key, value in entry.items() if key != "status"}
        for entry in listed
        if entry["status"] == "active"
    ][:limit]
    assert plain == expected
    assert {entry["ref"] for entry in listed if entry["status"] == "retracted"} == {
        HEADINGS[position] for position in retired if set(bodies[position]) & set(query.split())
    }
