"""The bm25 ranking's postings are built by the first read that needs them, not by every sync.

A lexical read (plain `mem recall`, `status`, ...) builds and keeps an index without them: a
first sync costs what it cost before bm25. A bm25 read (`--ranking bm25`, the hooks' brief,
`context --budget`, findability) of such an index builds it again, with them, and from then
on every sync keeps them: the index equals a fresh build with bm25 from the start.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import indexes
from support.cli import RunMem
from support.portfolios import audited_portfolio

from mem import index
from mem.index import connection, snapshots

NOTE = "\n### 2026-10-01 — Pool the warehouse connections\nEvery loader shares one pool.\n"


def _bm25_rows(conn: index.Connection) -> tuple[bool, int]:
    postings = conn.execute("SELECT count(*) FROM bm25_postings").fetchone()[0]
    return connection.has_bm25(conn), postings


def _found(run_mem: RunMem, project: Path, *args: str) -> list[str]:
    done = run_mem("recall", "--json", *args, "-d", str(project))
    assert done.returncode == 0, done.stderr
    return [entry["ref"] for entry in json.loads(done.stdout)["results"]]


def test_a_lexical_read_builds_no_bm25_postings(run_mem: RunMem, project: Path) -> None:
    assert _found(run_mem, project, "postgres")
    with indexes.opened(project) as opened:
        assert _bm25_rows(opened.conn) == (False, 0)


def test_a_bm25_read_builds_them_once_and_every_sync_keeps_them(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    assert "2026-06-02 — Postgres connection pooling" in _found(run_mem, project, "pooling")
    assert _found(run_mem, project, "--ranking", "bm25", "pool")[0] == (
        "2026-06-02 — Postgres connection pooling"
    )
    with indexes.opened(project) as opened:  # a lexical read of it keeps them
        has, postings = _bm25_rows(opened.conn)
        assert has and postings > 0
    decisions = project / ".agents/memory/decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + NOTE, encoding="utf-8")
    assert "postgres" in " ".join(_found(run_mem, project, "postgres")).lower()  # lexical sync
    assert "2026-10-01 — Pool the warehouse connections" in _found(
        run_mem, project, "--ranking", "bm25", "warehouse"
    )
    with indexes.opened(project) as opened:
        kept = snapshots.snapshot(opened.conn)
    with indexes.cache_at(tmp_path / "fresh"), indexes.opened(project, bm25=True) as opened:
        assert snapshots.snapshot(opened.conn) == kept


def test_index_check_compares_like_with_like(run_mem: RunMem, project: Path) -> None:
    for args in (["postgres"], ["--ranking", "bm25", "postgres"]):
        _found(run_mem, project, *args)
        done = run_mem("index", "check", "--json", "-d", str(project))
        assert json.loads(done.stdout)["ok"], done.stdout


def test_a_rebuild_keeps_them(run_mem: RunMem, project: Path) -> None:
    _found(run_mem, project, "--ranking", "bm25", "postgres")
    assert run_mem("index", "rebuild", "-d", str(project)).returncode == 0
    with indexes.opened(project) as opened:
        has, postings = _bm25_rows(opened.conn)
        assert has and postings > 0


def test_a_portfolio_gets_them_on_its_first_bm25_read(run_mem: RunMem, tmp_path: Path) -> None:
    brain, roots = audited_portfolio(tmp_path)
    lexical = run_mem("recall", "--json", "--scope", "all", "pooling", "-d", str(roots[0]))
    assert lexical.returncode == 0, lexical.stderr
    with indexes.opened(brain, index.PORTFOLIO) as opened:
        assert _bm25_rows(opened.conn) == (False, 0)
    bm25 = run_mem(
        "recall", "--json", "--scope", "all", "--ranking", "bm25", "pool", "-d", str(roots[0])
    )
    assert bm25.returncode == 0, bm25.stderr
    assert json.loads(bm25.stdout)["results"]
    with indexes.opened(brain, index.PORTFOLIO) as opened:
        assert _bm25_rows(opened.conn)[0]
    done = run_mem("index", "check", "--portfolio", "--json", "-d", str(roots[0]))
    assert json.loads(done.stdout)["ok"], done.stdout
