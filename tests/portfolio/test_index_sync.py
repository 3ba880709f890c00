"""The portfolio index stays equal to a fresh build however projects come and go."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.indexes import cache_at
from support.portfolios import NOW, audited_portfolio, event, register
from support.trees import age, write

from mem import clock, index
from mem.cli import app
from mem.domain import recall
from mem.index import location, portfolio

PROJECTS = 3
FILES = [".bmad/memory/decisions.md", ".agents/memory/lessons.md", ".bmad/memory/journal.ndjson"]
text = st.lists(st.sampled_from(["postgres", "pooling", "cache", "the"]), min_size=1, max_size=4)
operation = st.one_of(
    st.tuples(st.just("register"), st.integers(0, PROJECTS - 1), st.just("")),
    st.tuples(st.just("unregister"), st.integers(0, PROJECTS - 1), st.just("")),
    st.tuples(st.just("delete"), st.integers(0, PROJECTS - 1), st.just("")),
    st.tuples(st.just("edit"), st.integers(0, PROJECTS - 1), text.map(" ".join)),
    st.tuples(st.just("append"), st.integers(0, PROJECTS - 1), text.map(" ".join)),
    st.tuples(st.just("evidence"), st.integers(0, PROJECTS - 1), text.map(" ".join)),
    st.tuples(st.just("checkout"), st.integers(0, PROJECTS - 1), text.map(" ".join)),
    st.tuples(st.just("brain"), st.just(0), text.map(" ".join)),
    st.tuples(st.just("rename"), st.integers(0, PROJECTS - 1), text.map(" ".join)),
)


def _apply(base: Path, step: int, kind: str, number: int, payload: str) -> None:
    brain, root = base / "_brain", base / f"p{number}"
    entry = brain / "projects" / f"p{number}.yaml"
    if kind == "register":
        register(brain, root, entry=f"p{number}")
        age(entry, step)
    elif kind == "unregister":
        entry.unlink(missing_ok=True)
    elif kind == "delete":
        shutil.rmtree(root, ignore_errors=True)
    elif kind == "edit":
        write(root / FILES[step % 2], f"### {payload}\n{payload} body\n", step)
    elif kind == "append":
        journal = root / FILES[2]
        journal.parent.mkdir(parents=True, exist_ok=True)
        with journal.open("a", encoding="utf-8") as handle:
            handle.write(event(f"2026-10-{1 + step % 28:02d}T08:00:00.000Z", "forge", payload))
        age(journal, step)
    elif kind == "evidence":
        record = {
            "kind": "memory-evidence",
            "ts": NOW,
            "memory": {"id": "mem_x", "file": FILES[1], "heading": payload, "revision": "r"},
            "repo": "github.com/Org/Repo",
            "source": {
                "path": f"src/{payload.split()[0]}.py",
                "sha256": hashlib.sha256(b"").hexdigest(),
                "size": 0,
            },
            "batch": "b",
        }
        store = root / ".bmad/memory/evidence.ndjson"
        store.parent.mkdir(parents=True, exist_ok=True)
        with store.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        age(store, step)
    elif kind == "checkout":
        write(root / f"src/{payload.split()[0]}.py", payload, step)
    elif kind == "brain":
        write(brain / "lessons.md", f"### {payload}\nbrain {payload}\n", step)
    elif kind == "rename" and entry.exists():
        write(entry, f"path: {json.dumps(str(root))}\nname: {json.dumps(payload)}", step)


def _snapshot(brain: Path) -> dict[str, list[tuple[object, ...]]]:
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (conn, _):
        return portfolio.snapshot(conn)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow],
)
@given(st.lists(operation, min_size=1, max_size=12), text.map(" ".join))
def test_incremental_portfolio_sync_equals_a_fresh_build(
    operations: list[tuple[str, int, str]], query: str
) -> None:
    base = Path(tempfile.mkdtemp(prefix="mem-portfolio-"))
    try:
        write(base / "_brain" / "lessons.md", "### brain\npostgres pooling\n")
        request = recall.RecallRequest(
            query, scope="all", portfolio=str(base / "_brain"), limit="50"
        )
        with cache_at(str(base / "incremental")):
            for step, (kind, number, payload) in enumerate(operations, start=1):
                _apply(base, step, kind, number, payload)
                incremental = _snapshot(base / "_brain")
                answer = recall.recall(str(base), request, NOW, clock.local_offset_ms)
                with cache_at(str(base / f"fresh-{step}")):
                    assert incremental == _snapshot(base / "_brain")
                    assert recall.recall(str(base), request, NOW, clock.local_offset_ms) == answer
    finally:
        shutil.rmtree(base)


def test_an_unchanged_portfolio_plans_nothing(tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (_, first):
        pass
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (_, second):
        pass
    assert first.rebuilt and first.projects == 3
    assert second == portfolio.RootChanges()
    with (roots[1] / ".bmad/memory/journal.ndjson").open("a") as handle:
        handle.write(event("2026-10-10T08:00:00.000Z", "forge", "one more"))
    age(roots[1] / ".bmad/memory/journal.ndjson", 99)
    age(tmp_path)  # the cache directory was created in it just now
    with indexes.synced(str(brain.resolve()), index.PORTFOLIO) as (conn, third):
        count = conn.execute("SELECT count(*) FROM events WHERE project_name = 'project-1'")
        assert count.fetchone()[0] == 3
    assert (third.projects, third.files) == (1, 1)


def run(*args: str) -> object:
    return CliRunner(catch_exceptions=False).invoke(app.cli, list(args))


def test_index_path_check_and_rebuild_take_portfolio(tmp_path: Path) -> None:
    brain, _ = audited_portfolio(tmp_path)
    done = run("index", "path", "--portfolio", "--brain", str(brain))
    path = done.stdout.strip()  # type: ignore[attr-defined]
    assert path.endswith(".sqlite") and "/portfolio-" in path
    assert path == location.index_path(str(brain.resolve()), location.PORTFOLIO)
    checked = run("index", "check", "--portfolio", "--brain", str(brain))
    assert checked.stdout.startswith("mem index check: ok, ")  # type: ignore[attr-defined]
    conn = index.connect(path)
    assert conn is not None
    conn.execute("UPDATE records SET text = 'forged' WHERE ref = 'Pool connections'")
    conn.close()
    checked = run("index", "check", "--portfolio", "--brain", str(brain), "--json")
    assert checked.exit_code == 1  # type: ignore[attr-defined]
    assert json.loads(checked.stdout)["differenceCount"] == 6  # type: ignore[attr-defined]
    rebuilt = json.loads(
        run("index", "rebuild", "--portfolio", "--brain", str(brain), "--json").stdout  # type: ignore[attr-defined]
    )
    assert rebuilt["path"] == path
    assert run("index", "check", "--portfolio", "--brain", str(brain)).exit_code == 0  # type: ignore[attr-defined]
