"""A folder whose sources are all there as plain files is not watched, and no change is missed.

The freshness check stats a folder only where something can appear in it (a source that is
not there yet, archived journals, registry entries) or where a link or a second name could
make a path give another file. Every other change shows in the files' own stat data. The
property test below makes every kind of change in a portfolio whose files all count as
settled (as they do once nobody has written them for two seconds: the sync's clock is moved
an hour ahead), and after each one `recall --scope all` and the index equal a fresh build.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support import indexes
from support.indexes import cache_at
from support.portfolios import NOW, audited_portfolio, event, register
from support.trees import age, age_tree, write

from mem import clock, index, layout
from mem.domain import recall
from mem.errors import MemError
from mem.index import portfolio

PROJECTS = 2
NOTES = layout.NOTE_NAMES
STORES = [entry.path for entry in layout.PROJECT if entry.rank is not None]
BRAIN_NOTES = [entry.path for entry in layout.BRAIN if entry.rank is not None]
ARCHIVE = f"{layout.ARCHIVE_DIR}/journal-2026-0{{}}.ndjson"
LINK_TO = ["", "../.bmad/memory"]  # the folder moved aside, or another folder
FOLDERS = [".agents/memory", ".agents", ".bmad/memory", ".bmad/memory/archive", ".bmad"]
words = st.lists(st.sampled_from(["postgres", "pooling", "cache", "the"]), min_size=1, max_size=3)
project = st.integers(0, PROJECTS - 1)
operation = st.one_of(
    st.tuples(st.just("write"), project, st.sampled_from(STORES), words.map(" ".join)),
    st.tuples(st.just("same size"), project, st.sampled_from(STORES), st.just("")),
    st.tuples(st.just("delete"), project, st.sampled_from(STORES), st.just("")),
    st.tuples(st.just("rename over"), project, st.sampled_from(STORES), words.map(" ".join)),
    st.tuples(st.just("link"), project, st.sampled_from(STORES), st.sampled_from(STORES)),
    st.tuples(st.just("hard link"), project, st.sampled_from(STORES), st.sampled_from(STORES)),
    st.tuples(st.just("archive"), project, st.sampled_from("1234"), words.map(" ".join)),
    st.tuples(st.just("unarchive"), project, st.sampled_from("1234"), st.just("")),
    st.tuples(st.just("remove folder"), project, st.sampled_from(FOLDERS), st.just("")),
    st.tuples(st.just("link folder"), project, st.just(".agents/memory"), st.sampled_from(LINK_TO)),
    st.tuples(st.just("brain"), st.just(0), st.sampled_from(BRAIN_NOTES), words.map(" ".join)),
    st.tuples(st.just("unregister"), project, st.just(""), st.just("")),
    st.tuples(st.just("register"), project, st.just(""), st.just("")),
)


def _content(relative: str, text: str, step: int) -> str:
    if relative.endswith("journal.ndjson"):
        return event(f"2026-10-{1 + step % 28:02d}T08:00:00.000Z", "forge", text)
    if relative.endswith(".md"):
        return f"### {text} {step}\n{text} body\n"
    if relative.endswith(".json"):
        return json.dumps({"patterns": {text: {"score": step}}})
    return json.dumps({"ts": NOW, "note": text}) + "\n"


def _apply(base: Path, step: int, kind: str, number: int, target: str, payload: str) -> None:
    brain, root = base / "_brain", base / f"project-{number}"
    path = root / target
    if kind == "write":
        write(path, _content(target, payload, step), step)
    elif kind == "same size" and path.is_file() and path.stat().st_size:
        # Same size, same mtime: only the ctime moves.
        before = path.stat()
        with path.open("r+b") as handle:
            first = handle.read(1)
            handle.seek(0)
            handle.write(b"#" if first != b"#" else b"x")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif kind == "delete" and (path.is_file() or path.is_symlink()):
        path.unlink()
    elif kind == "rename over":
        spare = root / f"spare-{step}"
        write(spare, _content(target, payload, step), step)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(spare, path)
    elif kind in ("link", "hard link") and (root / payload).is_file() and payload != target:
        spare = root / f"spare-{step}"
        if kind == "link":
            spare.symlink_to(os.path.relpath(root / payload, path.parent.resolve()))
        else:
            os.link(root / payload, spare)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        os.replace(spare, path)
    elif kind == "archive":
        write(root / ARCHIVE.format(target), _content("journal.ndjson", payload, step), step)
    elif kind == "unarchive":
        (root / ARCHIVE.format(target)).unlink(missing_ok=True)
    elif kind == "remove folder":
        if path.is_symlink():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
    elif kind == "link folder" and path.is_dir() and not path.is_symlink():
        # A link takes the folder's place: to the folder itself, moved aside (the same
        # files at new real paths), or to another folder (whose files may be the same
        # files under other names: see the example below).
        moved = root / f".agents/moved-{step}"
        path.rename(moved)
        path.symlink_to(payload or moved.name)
    elif kind == "brain":
        write(brain / target, _content(target, payload, step), step)
    elif kind == "unregister":
        (brain / "projects" / f"project-{number}.yaml").unlink(missing_ok=True)
    elif kind == "register":
        age(register(brain, root, name=f"project-{number}", entry=f"project-{number}"), step)


def _full_portfolio(base: Path, projects: int = PROJECTS) -> Path:
    """audited_portfolio with every store and an archived journal: no folder needs a watch."""
    brain, roots = audited_portfolio(base, projects)
    for root in roots:
        for relative in STORES + [ARCHIVE.format(1)]:
            if not (root / relative).exists():
                write(root / relative, _content(relative, "postgres cache", 0))
    age_tree(base)
    return brain


def _later_clock() -> SimpleNamespace:
    """The sync's clock an hour ahead: every file counts as settled, so folders go unwatched."""
    return SimpleNamespace(time_ns=lambda: time.time_ns() + 3600 * 10**9)


def _answer(brain: Path, query: str) -> tuple[object, object]:
    request = recall.RecallRequest(query, scope="all", portfolio=str(brain), limit="50")
    try:
        answer = recall.recall(str(brain.parent), request, NOW, clock.local_offset_ms)
    except MemError as error:
        # Links can make a loop (a note linked to its own path through a linked folder):
        # then a fresh build must refuse it in the same words.
        return str(error), None
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (conn, _):
        contents = portfolio.snapshot(conn)
    # Real paths are left out: a folder moved and linked back gives the same files, at the
    # same stat data, under another real path; what is read from them is the same.
    for table, rows in contents.items():
        if table.endswith(": files"):
            contents[table] = [row[:3] + row[4:] for row in rows]
    return answer, contents


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(st.lists(operation, min_size=1, max_size=8), words.map(" ".join))
# Each of .agents/memory's notes made a second name of its .bmad/memory namesake, then the
# folder replaced by a link to .bmad/memory: every path gives the same file at the same stat
# data, yet now two paths name one real file, read once. Only the folder's stat tells.
@example(
    [
        *[("hard link", 0, f".agents/memory/{name}", f".bmad/memory/{name}") for name in NOTES],
        ("link folder", 0, ".agents/memory", "../.bmad/memory"),
    ],
    "postgres",
)
# A note linked to its own path through a linked folder: a loop, refused alike either way.
@example(
    [
        ("link folder", 0, ".agents/memory", "../.bmad/memory"),
        ("write", 0, ".bmad/memory/journal.ndjson", "postgres"),
        ("link", 0, ".bmad/memory/decisions.md", ".agents/memory/decisions.md"),
    ],
    "postgres",
)
def test_every_change_to_a_settled_portfolio_is_seen(
    operations: list[tuple[str, int, str, str]], query: str
) -> None:
    base = Path(tempfile.mkdtemp(prefix="mem-unwatched-"))
    try:
        brain = _full_portfolio(base)
        with mock.patch.object(portfolio, "time", _later_clock()):
            with cache_at(str(base / "incremental")):
                _answer(brain, query)
            for step, (kind, number, target, payload) in enumerate(operations, start=1):
                _apply(base, step, kind, number, target, payload)
                with cache_at(str(base / "incremental")):
                    incremental = _answer(brain, query)
                with cache_at(str(base / f"fresh-{step}")):
                    assert incremental == _answer(brain, query), (kind, target, payload)
    finally:
        shutil.rmtree(base)


def _watch(brain: Path, project: Path) -> list[str]:
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (conn, _):
        rows = index.project_rows(conn)
    (row,) = [row for row in rows if row.path == str(project.resolve())]
    return (row.watch or "").split("\n")


def test_a_folder_whose_sources_are_plain_and_settled_is_not_watched(tmp_path: Path) -> None:
    brain = _full_portfolio(tmp_path, 3)
    roots = [tmp_path / f"project-{number}" for number in range(3)]
    # One project with a source missing from .agents/memory, one with a linked source in it;
    # the settings file is one (D13): a project without it keeps .agents/memory watched.
    (roots[0] / ".agents/memory/mem.toml").write_text('layout = "classic"\n')
    (roots[1] / ".agents/memory/patterns.md").unlink(missing_ok=True)
    linked = roots[2] / ".agents/memory/patterns.md"
    linked.unlink(missing_ok=True)
    linked.symlink_to("lessons.md")
    with cache_at(str(tmp_path / "cache")), mock.patch.object(portfolio, "time", _later_clock()):
        assert ".agents/memory" not in _watch(brain, roots[0])
        assert ".agents/memory/lessons.md" in _watch(brain, roots[0])
        assert ".agents/memory" in _watch(brain, roots[1])
        assert ".agents/memory" in _watch(brain, roots[2])
    # Files changed in the last two seconds keep their folder watched.
    with cache_at(str(tmp_path / "recent")):
        assert ".agents/memory" in _watch(brain, roots[0])
