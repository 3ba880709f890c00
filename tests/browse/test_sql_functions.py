"""`mem browse` pages run any SELECT a user types: none may leak the process's memory layout."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from support.browse import browsing, environment


@pytest.mark.parametrize(
    "sql", ["select fts3_tokenizer('simple')", "select fts3_tokenizer('x', zeroblob(8))"]
)
def test_fts3_tokenizer_cannot_be_called(project: Path, tmp_path: Path, sql: str) -> None:
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    with browsing(environment(home), project) as running:
        query = urllib.parse.urlencode({"sql": sql, "_shape": "array"})
        try:
            with urllib.request.urlopen(f"{running.url}.json?{query}", timeout=30) as response:
                answer = response.read().decode()
        except urllib.error.HTTPError as error:
            answer = error.read().decode()
        assert "user-defined function raised exception" in json.loads(answer)["error"], answer
