"""Which ranking a recall uses when none is asked for: --ranking, then $MEM_RANKING, then the
project's mem.toml, then the user's ~/.config/mem/config.toml, then the reference's lexical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.trees import write


def _ranking(run_mem: RunMem, project: Path, *args: str, **env: str) -> str:
    done = run_mem("recall", "postgres", "--json", *args, "-d", str(project), env=env)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["ranking"])


def _user_file(text: str) -> None:
    import os

    write(Path(os.environ["HOME"]) / ".config/mem/config.toml", text)


def test_without_any_setting_recall_is_lexical(run_mem: RunMem, project: Path) -> None:
    assert _ranking(run_mem, project) == "lexical"


def test_each_setting_gives_way_to_the_one_before_it(run_mem: RunMem, project: Path) -> None:
    _user_file('ranking = "bm25"\n')
    assert _ranking(run_mem, project) == "bm25"
    write(project / ".agents/memory/mem.toml", 'ranking = "lexical"\n')
    assert _ranking(run_mem, project) == "lexical"
    assert _ranking(run_mem, project, MEM_RANKING="bm25") == "bm25"
    assert _ranking(run_mem, project, "--ranking", "lexical", MEM_RANKING="bm25") == "lexical"


@pytest.mark.process
def test_the_console_script_and_mcp_read_the_same_settings(run_mem: RunMem, project: Path) -> None:
    write(project / ".agents/memory/mem.toml", 'ranking = "bm25"\n')
    assert _ranking(run_mem, project) == "bm25"


def test_a_user_file_names_only_a_persons_settings(run_mem: RunMem, project: Path) -> None:
    _user_file('layout = "team"\n')
    done = run_mem("recall", "postgres", "-d", str(project))
    assert done.returncode == 1
    assert 'config.toml: unknown setting "layout" (known: ranking).' in done.stderr
    _user_file('ranking = "fast"\n')
    done = run_mem("recall", "postgres", "-d", str(project))
    assert 'ranking must be "lexical" or "bm25" or "evidence", not "fast".' in done.stderr


def test_an_unknown_mem_ranking_is_named_as_the_source(run_mem: RunMem, project: Path) -> None:
    done = run_mem("recall", "postgres", "-d", str(project), env={"MEM_RANKING": "foo"})
    assert done.returncode == 1
    assert done.stderr == (
        'mem recall: MEM_RANKING must be "lexical" or "bm25" or "evidence", not "foo".\n'
    )
    # an explicit --ranking does not read it
    assert _ranking(run_mem, project, "--ranking", "lexical", MEM_RANKING="foo") == "lexical"
