"""A first sync spread over several processes builds the index one process builds.

Same rows, the same postings, record ids in the same order (ties in recall follow it),
the same answers; a worker that fails fails the build, and leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.cli import RunMem, mem_command
from support.corpora import JOURNAL, NOTE_PATHS, events, write_files
from support.indexes import cache_at
from support.portfolios import audited_portfolio, register
from support.trees import age_tree

from mem import clock, index
from mem.domain import recall
from mem.errors import MemError
from mem.index import portfolio, records, segments, snapshots

NOW = "2026-10-18T09:30:00.000Z"
WORDS = ["postgres", "redis", "pool", "cache", "café", "x", "a-b", "İstanbul", "###", "the"]
ARCHIVED = ".bmad/memory/archive/journal-2026-01.ndjson"

words = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
section = st.tuples(
    st.sampled_from(["### ", "###\t", "#### ", "###", "## ", "### "]),
    words,
    st.lists(words, max_size=3).map("\n".join),
).map(lambda parts: f"{parts[0]}{parts[1]}\n{parts[2]}\n")
note_text = st.tuples(
    st.sampled_from(["", "# Lessons\n\n", "preamble ### x\n"]), st.lists(section, max_size=12)
).map(lambda parts: parts[0] + "".join(parts[1]))
# Most files are UTF-8; some hold a stray byte, and such a file is parsed whole.
note_bytes = st.tuples(note_text, st.sampled_from([b"", b"", b"", b"\xff\n"])).map(
    lambda parts: parts[0].encode() + parts[1]
)
event = events(words)
journal = st.lists(st.one_of(event, st.just("garbage\n"), st.just("\n")), max_size=10).map(
    lambda lines: "".join(lines + lines[:2]).encode()  # a repeated line counts once (D11)
)
corpus = st.fixed_dictionaries(
    {},
    optional={
        **{relative: note_bytes for relative in NOTE_PATHS},
        JOURNAL: journal,
        ARCHIVED: journal,
    },
)


def single_threaded(patch: pytest.MonkeyPatch) -> None:
    """A build forks only in a process without other threads; pytest-xdist's workers run
    a thread of their own, idle while a test runs, so the tests let builds fork there too."""
    patch.setattr(threading, "active_count", lambda: 1)


@contextmanager
def processes(count: int) -> Iterator[None]:
    """Builds use `count` processes, whatever the size of the project and the machine."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEM_BUILD_WORKERS", str(count))
        patch.setattr(segments, "cores", lambda: count)
        single_threaded(patch)
        yield


def built(root: Path, cache: Path, count: int) -> tuple[dict[str, object], list[object]]:
    """The snapshot of a first sync in `count` processes, and its records in id order."""
    with processes(count), cache_at(str(cache)), indexes.synced(str(root)) as (conn, _):
        order = conn.execute(
            "SELECT f.path, r.ordinal FROM records AS r JOIN files AS f ON f.id = r.file_id"
            " ORDER BY r.id"
        ).fetchall()
        return snapshots.snapshot(conn), order


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(corpus, st.integers(min_value=2, max_value=4), st.sampled_from(WORDS[:6]))
def test_a_parallel_first_sync_builds_what_one_process_builds(
    files: dict[str, bytes], count: int, query: str
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="mem-parallel-"))
    try:
        root = scratch / "project"
        root.mkdir()
        write_files(root, files)
        one, one_order = built(root, scratch / "one", 1)
        several, several_order = built(root, scratch / "several", count)
        assert several == one
        assert several_order == one_order
        answers = []
        for cache in ("one", "several"):
            with cache_at(str(scratch / cache)):
                found = recall.recall(
                    str(root), recall.RecallRequest(query, limit="1000"), NOW, clock.local_offset_ms
                ).entries
                answers.append(found)
        assert answers[0] == answers[1]
        leftovers = [path.name for path in (scratch / "several").iterdir()]
        assert not [name for name in leftovers if name.endswith(".tmp")]
    finally:
        shutil.rmtree(scratch)


def big_project(root: Path) -> None:
    lessons = "".join(f"### Lesson {n}\nthe cache {n} pooling\n" for n in range(400))
    write_files(root, {NOTE_PATHS[1]: lessons.encode(), NOTE_PATHS[4]: lessons.encode()})


def test_a_failing_worker_fails_the_build_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    big_project(root)
    builder = os.getpid()
    note_records = records.note_records

    def failing(*args: object, **kwargs: object) -> Iterator[index.RecordRow]:
        if os.getpid() != builder:
            raise MemError("a worker could not read its share")
        return note_records(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(records, "note_records", failing)
    # The build's own workers, by pid: a hook run in this test process earlier may have
    # left a detached child of its own (it outlives a hook by design), so "no child at all"
    # would be the wrong question.
    workers: list[int] = []
    fork = os.fork

    def recorded_fork() -> int:
        pid = fork()
        if pid:
            workers.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    cache = tmp_path / "cache"
    with processes(2), cache_at(str(cache)), pytest.raises(MemError, match="could not read"):
        with indexes.synced(str(root)):
            pass
    assert [path.name for path in cache.iterdir() if not path.name.endswith(".lock")] == []
    assert workers, "the build forked no worker"
    for pid in workers:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # every worker was waited for


def _alive_workers(marker: str, builder: int) -> list[int]:
    """Processes other than `builder` running mem on the project named by `marker` (Linux)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == builder:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in command and state != b"Z":
            found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
def test_workers_of_a_killed_build_stop_and_their_files_go(tmp_path: Path) -> None:
    root = tmp_path / "project"
    lessons = "".join(f"### Lesson {n}\nthe cache {n} pooling {n * 7}\n" for n in range(60000))
    write_files(root, {NOTE_PATHS[1]: lessons.encode(), NOTE_PATHS[4]: lessons.encode()})
    cache = Path(os.environ["MEM_CACHE_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEM_BUILD_WORKERS": "2"}
    command = [*mem_command(), "recall", "cache", "-d", str(root)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    # Two temporary files: the builder's copy and a worker's segment.
    while len([n for n in os.listdir(cache) if n.endswith(".tmp")]) < 2:
        assert process.poll() is None, "the build ended before a worker started"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    while _alive_workers(str(root), process.pid):
        assert time.monotonic() < deadline, "a worker outlived its builder"
        time.sleep(0.05)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert not [name for name in os.listdir(cache) if name.endswith(".tmp")]


def portfolio_built(brain: Path, directory: Path, count: int) -> tuple[object, list[object]]:
    """The portfolio snapshot of a fresh build in `count` processes, and its records in id
    order (the brain's first, then each project's in registry order)."""
    path = str(directory / "portfolio.sqlite")
    with processes(count):
        portfolio.build_portfolio(str(brain.resolve()), path)
    conn = index.connect(path)
    assert conn is not None
    try:
        order = conn.execute(
            "SELECT p.path, f.path, r.ordinal FROM records AS r JOIN files AS f"
            " ON f.id = r.file_id JOIN projects AS p ON p.id = f.project_id ORDER BY r.id"
        ).fetchall()
        return portfolio.snapshot(conn), order
    finally:
        conn.close()


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(st.lists(corpus, min_size=1, max_size=4), st.integers(min_value=2, max_value=3))
def test_a_parallel_portfolio_build_is_the_one_process_build(
    projects: list[dict[str, bytes]], count: int
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="mem-parallel-"))
    try:
        brain, _ = audited_portfolio(scratch / "base", projects=1)
        for number, files in enumerate(projects):
            root = scratch / "base" / f"random-{number}"
            write_files(root, files)
            register(brain, root, name=f"random-{number}")
        age_tree(scratch / "base")
        (scratch / "one").mkdir()
        (scratch / "several").mkdir()
        one = portfolio_built(brain, scratch / "one", 1)
        assert portfolio_built(brain, scratch / "several", count) == one
        assert [path.name for path in (scratch / "several").iterdir()] == ["portfolio.sqlite"]
    finally:
        shutil.rmtree(scratch)


def _no_fork() -> int:
    raise AssertionError("the build forked")


def test_small_projects_and_one_worker_build_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    big_project(root)
    monkeypatch.setattr(os, "fork", _no_fork)
    single_threaded(monkeypatch)
    monkeypatch.setattr(segments, "cores", lambda: 8)
    monkeypatch.delenv("MEM_BUILD_WORKERS", raising=False)
    with cache_at(str(tmp_path / "small")), indexes.synced(str(root)) as (_, report):
        assert report.rebuilt  # 30 KiB of notes: not worth a second process
    # A project worth several processes (at 64 KiB a worker, as below: 200 KiB builds in a
    # fraction of the time 3 MiB takes at the real 1 MiB), which the setting keeps in one.
    monkeypatch.setattr(segments, "BYTES_PER_WORKER", 64 * 1024)
    big = "".join(f"### Lesson {n}\nthe cache {n} pooling {n * 7}\n" for n in range(5000))
    assert segments.workers(len(big)) > 1
    write_files(root, {NOTE_PATHS[1]: big.encode()})
    monkeypatch.setenv("MEM_BUILD_WORKERS", "1")
    with cache_at(str(tmp_path / "one")), indexes.synced(str(root)) as (_, report):
        assert report.rebuilt


def test_a_big_project_builds_on_the_cores_it_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    # Big for a worker's share made small: about 200 KB, three shares of 64 KiB.
    monkeypatch.setattr(segments, "BYTES_PER_WORKER", 64 * 1024)
    big = "".join(f"### Lesson {n}\nthe cache {n} pooling {n * 7}\n" for n in range(5000))
    write_files(root, {NOTE_PATHS[1]: big.encode()})
    forks = []
    fork = os.fork

    def counted() -> int:
        forks.append(1)
        return fork()

    monkeypatch.setattr(os, "fork", counted)
    single_threaded(monkeypatch)
    monkeypatch.delenv("MEM_BUILD_WORKERS", raising=False)
    monkeypatch.setattr(segments, "cores", lambda: 1)
    with cache_at(str(tmp_path / "one-core")), indexes.synced(str(root)):
        assert forks == []
    monkeypatch.setattr(segments, "cores", lambda: 2)
    with cache_at(str(tmp_path / "two-cores")), indexes.synced(str(root)) as (conn, _):
        assert forks == [1]
        assert index.counts(conn)["records"] == 5000


@pytest.mark.parametrize("value", ["two", "0", "-1", "1.5"])
def test_a_malformed_worker_count_is_refused_with_its_name(
    tmp_path: Path, run_mem: RunMem, project: Path, value: str
) -> None:
    env = {"MEM_CACHE_DIR": str(tmp_path / "cache"), "MEM_BUILD_WORKERS": value}
    done = run_mem("recall", "cache", "-d", str(project), env=env)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"mem recall: MEM_BUILD_WORKERS must be a whole number of at least 1, not {value!r}.\n"
    )
    fixed = run_mem("recall", "cache", "-d", str(project), env={**env, "MEM_BUILD_WORKERS": "1"})
    assert fixed.returncode == 0 and "match(es)" in fixed.stdout
