"""A store value holding a lone surrogate escape ("\\udcff" is valid JSON, and a JavaScript
string holds it) is read as the reference reads it: the record is kept, text output shows
U+FFFD (what Node writes for it), JSON output the escape. No reader tracebacks, and no such
project takes a portfolio's recall down."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import RunMem
from support.mcp_wire import FORKED_MEM, exchange, opening, recall_request, replies_of

pytestmark = pytest.mark.script

LINE = '{"ts":"2026-12-01T00:00:00Z","agent":"a","task":"hi \\udcff","id":"aaaaaaaaaaaa"}\n'
SCORES = '{\n  "\\ud800": {"elo": 1200, "alpha": 1, "beta": 1, "mean": 0.5, "updates": 0}\n}\n'
NOW = {"MEM_NOW": "2026-12-02T00:00:00.000Z"}


def damaged(project: Path) -> Path:
    memory = project / ".bmad" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    with (memory / "journal.ndjson").open("a", encoding="utf-8") as journal:
        journal.write(LINE)
    (memory / "pattern-scores.json").write_text(SCORES, encoding="utf-8")
    return project


def test_recall_keeps_the_event_as_the_reference_prints_it(run_mem: RunMem, project: Path) -> None:
    damaged(project)
    text = run_mem("recall", "hi", cwd=project, env=NOW)
    assert (text.returncode, text.stderr) == (0, "")
    assert "event journal.ndjson#aaaaaaaaaaaa\n     a hi \ufffd {}\n" in text.stdout
    answer = run_mem("recall", "hi", "--json", cwd=project, env=NOW)
    assert answer.returncode == 0
    assert '"text": "a hi \\udcff {}"' in answer.stdout
    assert '"task": "hi \\udcff"' in answer.stdout
    assert json.loads(answer.stdout)["results"][0]["ref"] == "aaaaaaaaaaaa"


def test_every_reader_answers(run_mem: RunMem, project: Path) -> None:
    damaged(project)
    for command in (["index", "check"], ["index", "rebuild"], ["status"], ["patterns"]):
        done = run_mem(*command, cwd=project, env=NOW)
        assert done.returncode == 0, (command, done.stderr)
        assert "Traceback" not in done.stderr


def test_one_such_project_does_not_take_the_portfolio_down(
    run_mem: RunMem, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    shutil.copytree(project, other)
    damaged(other)
    for root in (project, other):
        assert run_mem("init", cwd=root).returncode == 0
        assert run_mem("portfolio", "add", str(root), cwd=root).returncode == 0
    done = run_mem("recall", "hi", "--scope", "all", cwd=project, env=NOW)
    assert (done.returncode, "Traceback" in done.stderr) == (0, False)
    assert "other: journal.ndjson#aaaaaaaaaaaa" in done.stdout


def test_mcp_recall_answers_normally(project: Path) -> None:
    damaged(project)
    output, _ = exchange(
        [FORKED_MEM, "mcp", "-d", str(project)],
        opening(recall_request(2, "hi")),
        2,
    )
    reply = replies_of(output)[1]
    assert "error" not in reply
    # The text is the --json output, escape and all; the structured content has U+FFFD,
    # since the protocol's JSON (and the SDK) take no lone surrogate.
    assert '"text": "a hi \\udcff {}"' in reply["result"]["content"][0]["text"]
    assert reply["result"]["structuredContent"]["results"][0]["text"] == "a hi \ufffd {}"
