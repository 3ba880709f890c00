"""`mem browse` as a process: its URL, its port, its stop, its snapshot, its refusals."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sqlite3
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.browse import browsing, environment
from support.cli import RunMem

from mem import index
from mem.cli import app
from mem.commands import browse
from mem.errors import MemError
from mem.index import browse_copy


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:  # loopback only
        return json.load(response)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    return environment(home)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_it_prints_the_url_and_serves_on_that_port_of_127_0_0_1_only(
    project: Path, env: dict[str, str]
) -> None:
    port = free_port()
    # browsing() passes `--port 0` first; the last --port given wins, as in click.
    with browsing(env, project, "--port", str(port)) as running:
        assert running.first_lines == (
            f"mem browse: a read-only snapshot of {os.path.realpath(project)}"
            f" (8 notes, 3 events) at\n  http://127.0.0.1:{port}/project\n"
        )
        rows = fetch(f"{running.url}/events.json?_shape=array")
        assert [row["agent"] for row in rows] == ["forge", "sentinel", "atelier"]
        # Every 127.x address reaches this host: a wildcard bind would answer this one too.
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.2", port), timeout=10)


def test_a_request_for_another_host_name_is_refused(project: Path, env: dict[str, str]) -> None:
    """A page elsewhere could reach the port through a DNS name rebound to 127.0.0.1."""
    with browsing(env, project) as running:
        for host, status in (
            (f"127.0.0.1:{running.port}", 200),
            (f"localhost:{running.port}", 200),
            (f"attacker.example:{running.port}", 403),
            ("127.0.0.1", 403),
        ):
            request = urllib.request.Request(f"{running.url}.json", headers={"Host": host})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    assert (host, response.status) == (host, status)
            except urllib.error.HTTPError as error:
                assert (host, error.code) == (host, status)
                assert b"only requests addressed to 127.0.0.1" in error.read()


def test_json_prints_one_line_then_serves(project: Path, env: dict[str, str]) -> None:
    with browsing(env, project, "--json") as running:
        line = json.loads(running.first_lines)
        assert line == {
            "url": running.url,
            "root": os.path.realpath(project),
            "portfolio": False,
            "projects": 1,
            "notes": 8,
            "events": 3,
            "problems": [],
        }
        assert fetch(f"{running.url}/notes.json?_shape=array&_size=1")[0]["heading"]


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_stops_it_cleanly_and_removes_the_snapshot(
    project: Path, env: dict[str, str], stop_signal: int
) -> None:
    scratch = Path(env["TMPDIR"])
    with browsing(env, project) as running:
        assert [path.name[:11] for path in scratch.iterdir()] == ["mem-browse-"]
        running.process.send_signal(stop_signal)
        assert running.process.wait(timeout=30) == 0, running.stderr()
        assert list(scratch.iterdir()) == []
        assert running.stderr() == "mem browse: stop with Ctrl-C.\n"


def test_a_resync_while_browsing_changes_nothing_served(
    project: Path, env: dict[str, str], run_mem: RunMem
) -> None:
    """Recall may re-sync, rebuild or lose the cache meanwhile: browse serves its own copy."""
    with browsing(env, project) as running:
        before = fetch(f"{running.url}/events.json?_shape=array")
        done = run_mem("write", "--agent", "late", "--task", "after browse started", cwd=project)
        assert done.returncode == 0, done.stderr
        assert run_mem("index", "rebuild", cwd=project, env=env).returncode == 0
        assert "after browse started" in run_mem("recall", "browse", cwd=project, env=env).stdout
        assert fetch(f"{running.url}/events.json?_shape=array") == before
        for cached in Path(env["MEM_CACHE_DIR"]).iterdir():
            cached.unlink()
        assert fetch(f"{running.url}/events.json?_shape=array") == before
    with browsing(env, project) as again:
        rows = fetch(f"{again.url}/events.json?_shape=array")
        assert [row["agent"] for row in rows][-1] == "late"


def test_a_busy_port_is_a_clear_error(project: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app.cli, ["browse", "--port", str(port), "-d", str(project)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"mem browse: 127.0.0.1:{port} is already in use;"
        " choose another --port (0: any free port).\n"
    )


@pytest.mark.parametrize("port", ["abc", "-1", "65536", "1.5", ""])
def test_the_port_must_be_an_integer_from_0_to_65535(project: Path, port: str) -> None:
    result = CliRunner().invoke(app.cli, ["browse", "--port", port, "-d", str(project), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "error": "--port must be an integer from 0 to 65535 (0: any free port)"
    }


def test_without_datasette_it_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "datasette", None)
    monkeypatch.setitem(sys.modules, "datasette.app", None)
    result = CliRunner().invoke(app.cli, ["browse", "-d", str(project)])
    assert result.exit_code == 1
    assert result.stderr.startswith("mem browse: Datasette is not installed.")
    assert result.stderr == (
        "mem browse: Datasette is not installed. Install the web extra:"
        " pipx inject mem-project 'datasette>=0.65,<1.0'"
        " (with pip: pip install './mem-project[web]')\n"
    )
    assert result.stdout == ""


def snapshot(root: Path, target: Path) -> Path:
    path = target / "project.sqlite"
    browse_copy.make(str(path), browse.gather_reviews, root=str(root))
    return path


def test_the_snapshot_cannot_be_written(project: Path, tmp_path: Path) -> None:
    path = snapshot(project, tmp_path)
    assert snapshot(project, tmp_path) == path  # a second copy replaces what was there
    assert path.stat().st_mode & 0o777 == 0o444
    assert not Path(f"{path}-wal").exists()
    conn = browse_copy.open_read_only(str(path))
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("DELETE FROM records")
        assert conn.execute("SELECT count(*) FROM notes").fetchone() == (8,)
    finally:
        conn.close()


def test_a_damaged_cache_is_healed_before_it_is_copied(project: Path, tmp_path: Path) -> None:
    snapshot(project, tmp_path)  # builds the cached index
    (cached,) = Path(index.cache_dir()).glob("project-*.sqlite")
    data = bytearray(cached.read_bytes())
    data[4096:8192] = bytes(4096)  # a zeroed page
    cached.write_bytes(bytes(data))
    path = snapshot(project, tmp_path)
    conn = browse_copy.open_read_only(str(path))
    try:
        assert conn.execute("SELECT count(*) FROM notes").fetchone() == (8,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_a_snapshot_that_cannot_be_written_is_a_clear_error(project: Path, tmp_path: Path) -> None:
    with pytest.raises(MemError, match=r"^Cannot write the snapshot .*/nowhere/project.sqlite: "):
        snapshot(project, tmp_path / "nowhere")


def test_a_write_canned_query_is_refused(project: Path, tmp_path: Path) -> None:
    from datasette.app import Datasette

    path = snapshot(project, tmp_path)
    metadata = browse.metadata(str(project))
    metadata["databases"]["project"]["queries"]["wipe"] = {
        "sql": "DELETE FROM records",
        "write": True,
    }
    served = Datasette(immutables=[str(path)], metadata=metadata)

    async def attempt() -> tuple[int, str, int]:
        refused = await served.client.post("/project/wipe", data={})
        rows = await served.client.get("/project/notes.json?_shape=array")
        return refused.status_code, refused.text, len(rows.json())

    status, text, notes = asyncio.run(attempt())
    assert status == 403 and "Database is immutable" in text
    assert notes == 8


def is_fts_shadow(name: str, fts_tables: set[str]) -> bool:
    return any(
        name == f"{table}_{suffix}"
        for table in fts_tables
        for suffix in ("data", "idx", "content", "docsize", "config")
    )


def test_every_table_and_column_has_a_description(project: Path, tmp_path: Path) -> None:
    path = snapshot(project, tmp_path)
    tables = browse.metadata(str(project))["databases"]["project"]["tables"]
    conn = sqlite3.connect(path)
    try:
        listed = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'view')"
        ).fetchall()
        fts = {name for name, sql in listed if re.search(r"USING\s+fts5\s*\(", sql or "", re.I)}
        for name, _ in listed:
            if is_fts_shadow(name, fts):
                continue  # SQLite's own storage of a full-text table: Datasette hides it
            assert tables[name]["description"], name
            columns = [row[1] for row in conn.execute(f"PRAGMA table_xinfo('{name}')")]
            hidden_fts_columns = {name, "rank"}  # FTS5's implicit columns
            for column in columns:
                if name in fts and column in hidden_fts_columns:
                    continue
                assert tables[name]["columns"].get(column), f"{name}.{column} is undescribed"
    finally:
        conn.close()


def test_facets_are_offered_where_the_columns_exist(project: Path) -> None:
    tables = browse.metadata(str(project))["databases"]["project"]["tables"]
    assert tables["events"]["facets"] == ["project_name", "agent", "file"]
    assert tables["notes"]["facets"] == ["project_name", "file"]
    assert tables["evidence"]["facets"] == ["memory_file"]
    assert "facets" not in tables["meta"]


def test_a_damaged_store_leaves_its_part_empty_and_warns(
    project: Path, env: dict[str, str]
) -> None:
    store = project / ".bmad" / "memory" / "lifecycle.ndjson"
    store.write_text('{"not": "a lifecycle event"}\n', encoding="utf-8")
    review = browse.gather_review(browse_copy.Root(str(project), "project"))
    assert review.problems == [
        (str(project), "lifecycle", "Lifecycle record integrity check failed at line 1.")
    ]
    assert {row.status for row in review.memories} == {None}
    with browsing(env, project) as running:
        assert running.stderr().startswith(
            "mem browse: warning: lifecycle: Lifecycle record integrity check failed at line 1.\n"
        )
        rows = fetch(f"{running.url}/review_problems.json?_shape=array")
        assert rows == [
            {
                "rowid": 1,
                "project": os.path.realpath(project),
                "part": "lifecycle",
                "problem": "Lifecycle record integrity check failed at line 1.",
            }
        ]


def test_brain_without_portfolio_is_a_usage_mistake(project: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app.cli, ["browse", "--brain", str(tmp_path), "-d", str(project)])
    assert result.exit_code == 1
    assert result.stderr == "mem browse: --brain needs --portfolio.\n"


def test_portfolio_without_a_brain_says_to_run_init(project: Path) -> None:
    result = CliRunner().invoke(app.cli, ["browse", "--portfolio", "-d", str(project)])
    assert result.exit_code == 1
    assert result.stderr == "mem browse: No brain is linked or detected; run `mem init` first.\n"


def test_a_temporary_directory_sqlite_cannot_open_is_a_clear_error(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weird = tmp_path / "tmp#1"
    weird.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(weird))
    result = CliRunner().invoke(app.cli, ["browse", "--port", "0", "-d", str(project)])
    assert result.exit_code == 1
    assert "set TMPDIR to another directory" in result.stderr
    assert list(weird.iterdir()) == []
