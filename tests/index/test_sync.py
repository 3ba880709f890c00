"""The index stays in step with the files: stat fast path, racy files, appends, removals."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from support import indexes
from support.plain import comparable, plain_recall
from support.trees import age, write

from mem import clock, index
from mem.domain import recall
from mem.index import building, freshness

NOW = "2026-10-18T09:30:00.000Z"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    write(project / ".agents/memory/decisions.md", "### Pooling\nuse pgbouncer for postgres\n")
    write(
        project / ".bmad/memory/journal.ndjson",
        '{"ts":"2026-10-01T00:00:00.000Z","agent":"a","task":"postgres"}\n',
    )
    return project


def test_second_sync_does_nothing(root: Path) -> None:
    first = indexes.changes(root)
    second = indexes.changes(root)
    assert first.rebuilt and first.added == 2
    assert second is None


def test_plan_trusts_only_unchanged_old_stats(root: Path) -> None:
    with indexes.synced(str(root)) as (conn, _):
        indexed = index.file_rows(conn)
    from mem.files import index_sources

    present = index_sources.stat_sources(str(root), freshness.PROJECT_SOURCES)
    assert freshness.plan(present, indexed).empty
    write(root / ".agents/memory/decisions.md", "### Pooling\nuse pgbouncer for postgres!\n", 5)
    present = index_sources.stat_sources(str(root), freshness.PROJECT_SOURCES)
    work = freshness.plan(present, indexed)
    assert [source.spec.relative for source in work.check] == [".agents/memory/decisions.md"]
    (root / ".bmad/memory/journal.ndjson").unlink()
    present = index_sources.stat_sources(str(root), freshness.PROJECT_SOURCES)
    assert freshness.plan(present, indexed).removed == [".bmad/memory/journal.ndjson"]


def test_racily_clean_rewrite_is_noticed(root: Path) -> None:
    note = root / ".agents/memory/decisions.md"
    note.write_text("### Pooling\nuse pgbouncer for postgres\n", encoding="utf-8")
    index.sync_project(str(root))
    before = os.stat(note)
    note.write_text("### Pooling\nuse pgbouncer for mariadbb\n", encoding="utf-8")  # same size
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    assert os.stat(note).st_size == before.st_size
    hits = recall.recall(
        str(root), recall.RecallRequest("mariadbb"), NOW, clock.local_offset_ms
    ).entries
    assert [hit["ref"] for hit in hits] == ["Pooling"]


def test_appended_events_are_parsed_alone_and_equal_a_rebuild(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index.sync_project(str(root))
    journal = root / ".bmad/memory/journal.ndjson"
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"ts":"2026-10-02T00:00:00.000Z","agent":"b","task":"redis sessions"}\n')
    age(journal, 10)
    assert indexes.changes(root).appended == 1
    assert indexes.snapshot(root) == indexes.fresh_snapshot(root, tmp_path / "fresh")


def test_a_torn_tail_is_reparsed_once_completed(root: Path) -> None:
    journal = root / ".bmad/memory/journal.ndjson"
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"ts":"2026-10-02T00:00:00.000Z","agent":"b","task":"half')
    age(journal, 3)
    assert (
        recall.recall(str(root), recall.RecallRequest("half"), NOW, clock.local_offset_ms).entries
        == []
    )
    with journal.open("a", encoding="utf-8") as handle:
        handle.write(' written"}\n')
    age(journal, 6)
    assert [
        hit["text"]
        for hit in recall.recall(
            str(root), recall.RecallRequest("half"), NOW, clock.local_offset_ms
        ).entries
    ] == ["b half written {}"]


def test_removed_sources_leave_the_index(root: Path) -> None:
    index.sync_project(str(root))
    (root / ".agents/memory/decisions.md").unlink()
    assert indexes.changes(root).removed == 1
    assert [
        hit["kind"]
        for hit in recall.recall(
            str(root), recall.RecallRequest("postgres"), NOW, clock.local_offset_ms
        ).entries
    ] == ["event"]


def test_a_symlinked_memory_dir_is_indexed_once(root: Path) -> None:
    (root / ".bmad/memory/decisions.md").symlink_to(root / ".agents/memory/decisions.md")
    hits = recall.recall(
        str(root), recall.RecallRequest("pgbouncer"), NOW, clock.local_offset_ms
    ).entries
    assert [hit["sourceFile"] for hit in hits] == [".bmad/memory/decisions.md"]


def test_a_corrupt_or_foreign_index_is_rebuilt(root: Path) -> None:
    expected = recall.recall(
        str(root), recall.RecallRequest("postgres"), NOW, clock.local_offset_ms
    ).entries
    path = index.index_path(str(root), "project")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = 'other' WHERE key = 'index_version'")
    assert (
        recall.recall(
            str(root), recall.RecallRequest("postgres"), NOW, clock.local_offset_ms
        ).entries
        == expected
    )
    building.remove(path)
    Path(path).write_bytes(b"this is not a database")
    assert (
        recall.recall(
            str(root), recall.RecallRequest("postgres"), NOW, clock.local_offset_ms
        ).entries
        == expected
    )


def test_unwritable_cache_answers_from_a_temporary_index(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be")
    monkeypatch.setenv("MEM_CACHE_DIR", str(blocked / "mem"))
    hits = recall.recall(
        str(root), recall.RecallRequest("postgres pgbouncer"), NOW, clock.local_offset_ms
    ).entries
    assert comparable(hits) == comparable(plain_recall(str(root), "postgres pgbouncer", NOW))


def test_index_lives_in_the_cache_not_the_project(root: Path, isolated_env: Path) -> None:
    before = sorted(str(path) for path in root.rglob("*"))
    recall.recall(str(root), recall.RecallRequest("postgres"), NOW, clock.local_offset_ms)
    assert sorted(str(path) for path in root.rglob("*")) == before
    assert index.index_path(str(root), "project").startswith(str(isolated_env / "cache"))


def test_an_upgrade_leaves_no_old_index_behind(root: Path) -> None:
    current = Path(index.index_path(str(root), "project"))
    current.parent.mkdir(parents=True, exist_ok=True)
    old = current.with_name(current.name.replace(f"-v{index.INDEX_VERSION}", "-v0000000000000000"))
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{old}{suffix}").write_bytes(b"an index of another mem version")
    other_project = current.with_name("project-0123456789abcdef0123-v0000000000000000.sqlite")
    other_project.write_bytes(b"another project's index")
    index.sync_project(str(root))
    assert current.exists()
    assert not [p for p in current.parent.iterdir() if p.name.startswith(old.name)]
    assert other_project.exists()
