"""The index cache heals: no state of the cache directory gives a traceback or a stale answer.

Damage of every kind (zeroed pages, random bytes, undecodable text in `meta`, a directory
where the index or its lock should be, the cache folder removed under running recalls) is
discarded and rebuilt; every recall equals a recall from an empty cache. Freshness cannot
be fooled by an edit that restores the mtime, and `mem status` uses recall's own rule.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import RunMem

from mem import clock, index
from mem.domain import recall

NOW = "2026-10-18T09:30:00.000Z"
LESSONS = Path(".agents/memory/lessons.md")


def index_file(run_mem: RunMem, project: Path) -> Path:
    done = run_mem("index", "path", cwd=project)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
    return path


def zero_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[4096:] = bytes(len(data) - 4096)
    path.write_bytes(bytes(data))


def random_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[100:] = os.urandom(len(data) - 100)
    path.write_bytes(bytes(data))


def undecodable_meta(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE meta SET value = CAST(x'fffe80' AS TEXT) WHERE key = 'index_version'")


def truncated(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(1000)


def directory_instead(path: Path) -> None:
    path.unlink()
    (path / "inside").mkdir(parents=True)


def lock_directory(path: Path) -> None:
    lock = Path(f"{path}.lock")
    if lock.is_file():
        lock.unlink()
    (lock / "inside").mkdir(parents=True, exist_ok=True)


def cache_is_a_file(path: Path) -> None:
    shutil.rmtree(path.parent)
    path.parent.write_text("not a directory")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "zeroed pages": zero_pages,
    "random bytes": random_pages,
    "undecodable meta": undecodable_meta,
    "truncated": truncated,
    "empty file": lambda path: path.write_bytes(b""),
    "directory at the index": directory_instead,
    "directory at the lock": lock_directory,
    "cache folder removed": lambda path: shutil.rmtree(path.parent),
    "cache folder is a file": cache_is_a_file,
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_every_reader_answers_through_a_damaged_cache(
    damage: str, project: Path, run_mem: RunMem, isolated_env: Path
) -> None:
    expected = run_mem("recall", "postgres", "--json", cwd=project).stdout
    path = index_file(run_mem, project)
    DAMAGE[damage](path)
    # A file where the cache folder belongs leaves no place for an index: `index path` has
    # no path to print and `index check` keeps saying so (both exit 1); the rest answer.
    lasting = damage == "cache folder is a file"
    for args in (("status",), ("index", "check"), ("index", "path"), ("recall", "postgres")):
        done = run_mem(*args, cwd=project)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        allowed = {("index", "check"): (0, 1), ("index", "path"): (1,) if lasting else (0,)}
        assert done.returncode in allowed.get(args, (0,)), done
    done = run_mem("recall", "postgres", "--json", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    check = run_mem("index", "check", cwd=project)
    if lasting:
        assert check.returncode == 1 and "used a temporary index" in check.stdout
    else:
        assert check.returncode == 0, check.stdout  # healed for good


def test_index_check_reports_the_damage_it_healed(project: Path, run_mem: RunMem) -> None:
    undecodable_meta(index_file(run_mem, project))
    status = run_mem("status", cwd=project)
    assert "🗂  Index: damaged," in status.stdout
    done = run_mem("index", "check", cwd=project)
    assert done.returncode == 1
    assert "  index: damaged (" in done.stdout and "it was discarded and rebuilt" in done.stdout
    assert run_mem("index", "check", cwd=project).returncode == 0


def test_recalls_answer_while_the_cache_folder_keeps_disappearing(
    project: Path, run_mem: RunMem, isolated_env: Path
) -> None:
    expected = run_mem("recall", "postgres", cwd=project).stdout
    cache = isolated_env / "cache"
    stop = threading.Event()

    def remove_repeatedly() -> None:
        while not stop.is_set():
            shutil.rmtree(cache, ignore_errors=True)
            stop.wait(0.01)

    remover = threading.Thread(target=remove_repeatedly)
    remover.start()
    try:
        answers = [run_mem("recall", "postgres", cwd=project) for _ in range(8)]
    finally:
        stop.set()
        remover.join()
    assert [(done.returncode, done.stdout, done.stderr) for done in answers] == [
        (0, expected, "")
    ] * 8


def test_a_lock_held_past_the_busy_timeout_is_not_damage(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long history indexing holds the index's write lock for seconds: a reader that must
    sync meanwhile answers fresh, and the cached index outlives the wait."""
    from mem.index import connection, location

    root = str(project.resolve())

    def notes(open_index: Callable[..., index.Opened]) -> int:
        return open_index(root).conn.execute("SELECT count(*) FROM records").fetchone()[0]

    before = index.answer(notes)
    path = Path(location.index_path(root, location.PROJECT))
    inode = path.stat().st_ino
    with (project / LESSONS).open("a", encoding="utf-8") as handle:
        handle.write("\n### Zebra crossing\nA note written while the index was locked.\n")
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 100)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        assert index.answer(notes) == before + 1
        writer.execute("ROLLBACK")
    assert path.stat().st_ino == inode
    assert index.answer(notes) == before + 1


# ---- freshness


def test_an_edit_that_restores_the_mtime_is_seen(project: Path, run_mem: RunMem) -> None:
    lessons = project / LESSONS
    old = 1_700_000_000_000_000_000  # long before any racily-clean window
    os.utime(lessons, ns=(old, old))
    assert "zebra" not in run_mem("recall", "zebra", cwd=project).stdout.split('"')[2]
    status = run_mem("status", "--json", cwd=project).stdout
    assert '"state": "fresh"' in status
    inode = lessons.stat().st_ino
    with lessons.open("r+b") as handle:  # in place: same inode, same size
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b"Retry budget", b"Zebra budget"))
    os.utime(lessons, ns=(old, old))  # as `touch -r` would
    assert (lessons.stat().st_ino, lessons.stat().st_size) == (inode, len(data))
    assert '"state": "stale"' in run_mem("status", "--json", cwd=project).stdout
    assert "§ Zebra budget" in run_mem("recall", "zebra", cwd=project).stdout
    assert '"state": "fresh"' in run_mem("status", "--json", cwd=project).stdout


def test_status_calls_fresh_what_recall_would_not_change(project: Path, run_mem: RunMem) -> None:
    assert run_mem("write", "--agent", "forge", "--task", "zebra", cwd=project).returncode == 0
    assert run_mem("recall", "zebra", cwd=project).returncode == 0
    # The journal is racily clean (written just now) but hashes as indexed: nothing to do.
    assert '"state": "fresh"' in run_mem("status", "--json", cwd=project).stdout
    with (project / ".bmad/memory/journal.ndjson").open("a") as handle:
        handle.write('{"ts":"2026-10-01T00:00:00.000Z","agent":"x","task":"okapi"}\n')
    assert '"state": "stale"' in run_mem("status", "--json", cwd=project).stdout


# ---- hypothesis: damage interleaved with edits


def fresh_recall(root: Path, query: str, scratch: Path) -> list[dict[str, object]]:
    previous = os.environ["MEM_CACHE_DIR"]
    os.environ["MEM_CACHE_DIR"] = str(scratch)
    try:
        return recall.recall(
            str(root), recall.RecallRequest(query=query, limit="20"), NOW, clock.local_offset_ms
        ).entries
    finally:
        os.environ["MEM_CACHE_DIR"] = previous
        shutil.rmtree(scratch, ignore_errors=True)


EDITS = st.one_of(
    st.tuples(st.just("note"), st.sampled_from(["cache pool", "redis deploy", "pool pool"])),
    st.tuples(st.just("event"), st.sampled_from(["cache", "redis pool", "deploy"])),
    st.tuples(st.just("damage"), st.sampled_from(sorted(DAMAGE))),
    st.tuples(st.just("drop"), st.sampled_from(["", "-wal", "-shm", ".lock"])),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
    ],
)
@given(steps=st.lists(EDITS, min_size=1, max_size=8))
def test_every_recall_equals_a_recall_from_an_empty_cache(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    steps: list[tuple[str, str]],
) -> None:
    root = tmp_path_factory.mktemp("healing")
    cache = root / "cache"
    monkeypatch.setenv("MEM_CACHE_DIR", str(cache))
    (root / ".agents/memory").mkdir(parents=True)
    (root / ".bmad/memory").mkdir(parents=True)
    notes = root / LESSONS
    journal = root / ".bmad/memory/journal.ndjson"
    notes.write_text("### First\ncache redis\n")
    query = "cache redis pool deploy"
    for number, (kind, value) in enumerate(steps):
        path = Path(index.index_path(str(root), "project"))
        if kind == "note":
            with notes.open("a") as handle:
                handle.write(f"### Note {number}\n{value}\n")
        elif kind == "event":
            with journal.open("a") as handle:
                ts = f"2026-10-{number + 1:02d}T00:00:00.000Z"
                handle.write(json.dumps({"ts": ts, "agent": "a", "task": value}) + "\n")
        elif kind == "damage" and path.is_file():
            with contextlib.suppress(sqlite3.Error):
                with contextlib.closing(sqlite3.connect(path)) as conn:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            DAMAGE[value](path)
        elif kind == "drop":
            target = Path(f"{path}{value}")
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)
        answer = recall.recall(
            str(root), recall.RecallRequest(query=query, limit="20"), NOW, clock.local_offset_ms
        ).entries
        assert answer == fresh_recall(root, query, root / f"scratch-{number}")
        if cache.is_file():
            cache.unlink()  # the user fixes their cache setting between steps
