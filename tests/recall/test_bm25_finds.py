"""`recall --ranking bm25` finds what the lexical ranking misses (issue 25's table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import as_process

NOTES = """
### Use uuid-v7 ids
Ids are time-ordered, so inserts stay local.

### npm installs
Run npm install --legacy-peer-deps on the old lockfile.

### Pgbouncer settings
Set server_idle_timeout to 600 seconds.

### Config from the environment
We follow the 12-factor app for configuration.

### Pool Postgres connections
Every worker shares one pool.

### Sessions
La déconnexion efface le jeton de session.

### 冪等キーで重複を防ぐ
決済APIは冪等キーを必須にする。

### Миграции базы
Каждая ошибка миграции останавливает деплой.

### Música
Una canción por release.

### Filler one
Nothing to see in this note about lunch.

### Filler two
Another unrelated note about coffee and lunch.
"""

CASES = [
    ("uuid", "Use uuid-v7 ids"),
    ("legacy", "npm installs"),
    ("idle", "Pgbouncer settings"),
    ("factor", "Config from the environment"),
    ("pooling", "Pool Postgres connections"),
    ("deconnexion", "Sessions"),
    ("冪等キー", "冪等キーで重複を防ぐ"),
    ("決済", "冪等キーで重複を防ぐ"),
    ("миграции", "Миграции базы"),
    ("ошибка", "Миграции базы"),
    ("canción", "Música"),
]


@pytest.fixture(scope="module")
def notes_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bm25")
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("# Decisions\n" + NOTES, encoding="utf-8")
    return root


def _recall(root: Path, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    done = as_process("recall", *args, "--json", "--limit", "3", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
    return results


@pytest.mark.parametrize(("query", "heading"), CASES)
def test_bm25_puts_the_note_in_the_top_3(notes_project: Path, query: str, heading: str) -> None:
    refs = [entry["ref"] for entry in _recall(notes_project, query, "--ranking", "bm25")]
    assert heading in refs, refs


def test_mem_ranking_sets_the_default(notes_project: Path) -> None:
    assert _recall(notes_project, "uuid") == []
    found = _recall(notes_project, "uuid", env={"MEM_RANKING": "bm25"})
    assert found and found[0]["ref"] == "Use uuid-v7 ids"
