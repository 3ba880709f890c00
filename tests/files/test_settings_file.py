"""Deviation D13: `.agents/memory/mem.toml`, the committed settings file that turns the team
layout on; `mem init --team` writes it, and a wrong key or value names the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem

SETTINGS = Path(".agents/memory/mem.toml")


def test_init_team_writes_the_settings_file_once(tmp_path: Path, run_mem: RunMem) -> None:
    done = run_mem("init", "--team", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(SETTINGS) in json.loads(done.stdout)["created"]
    assert 'layout = "team"' in (tmp_path / SETTINGS).read_text()
    again = run_mem("init", "--team", "--json", cwd=tmp_path)
    assert str(SETTINGS) in json.loads(again.stdout)["existing"]


def test_init_team_refuses_a_classic_settings_file(tmp_path: Path, run_mem: RunMem) -> None:
    (tmp_path / SETTINGS).parent.mkdir(parents=True)
    (tmp_path / SETTINGS).write_text('layout = "classic"\n')
    done = run_mem("init", "--team", cwd=tmp_path)
    assert done.returncode == 1
    assert "mem.toml exists without layout" in done.stderr
    assert (tmp_path / SETTINGS).read_text() == 'layout = "classic"\n'


def test_init_without_team_writes_no_settings_file(tmp_path: Path, run_mem: RunMem) -> None:
    assert run_mem("init", cwd=tmp_path).returncode == 0
    assert not (tmp_path / SETTINGS).exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('layout = "teams"\n', 'layout must be "classic" or "team", not "teams".'),
        ("layout = 1\n", 'layout must be "classic" or "team", not 1.'),
        ('rank = "bm25"\n', 'unknown setting "rank" (known: history, layout, ranking).'),
        ("history = 1\n", 'history must be "false" or "true", not 1.'),
        ("history = yes\n", "is not valid TOML"),
        ("layout = \n", "is not valid TOML"),
    ],
)
def test_a_wrong_setting_is_refused_naming_the_file(
    project: Path, run_mem: RunMem, text: str, message: str
) -> None:
    (project / SETTINGS).write_text(text)
    for args in (["recall", "policy"], ["write", "--agent", "a", "--task", "t"], ["status"]):
        done = run_mem(*args, cwd=project)
        assert done.returncode == 1, args
        assert f".agents/memory/mem.toml{'' if 'TOML' in message else ':'}" in done.stderr
        assert message in done.stderr


def test_a_classic_settings_file_answers_as_none(project: Path, run_mem: RunMem) -> None:
    before = run_mem("recall", "policy", "--json", cwd=project).stdout
    (project / SETTINGS).write_text('# nothing but the default\nlayout = "classic"\n')
    assert run_mem("recall", "policy", "--json", cwd=project).stdout == before
    run_mem("write", "--agent", "a", "--task", "policy retry", cwd=project)
    assert (project / ".bmad/memory/journal.ndjson").read_text().count("policy retry") == 1
    assert not (project / ".bmad/memory/journal.d").exists()


@pytest.mark.parametrize(
    "text",
    [
        'layout = "team"\n',
        '# c\n\nlayout="classic"   \n',
        'layout = "te\\u0061m"\n',  # beyond the simple form: tomllib reads it
        "layout = 'team' # literal\n",
    ],
)
def test_the_settings_read_as_tomllib_reads_them(text: str) -> None:
    import tomllib

    from mem.files import settings

    assert settings.parse_settings(text.encode()) == {**settings.DEFAULTS, **tomllib.loads(text)}


def test_a_linked_local_folder_is_refused(project: Path, run_mem: RunMem, tmp_path: Path) -> None:
    (project / SETTINGS).write_text('layout = "team"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".bmad/memory/.local").symlink_to(elsewhere)
    done = run_mem("write", "--agent", "a", "--task", "t", cwd=project)
    assert done.returncode == 1
    assert "Memory paths cannot follow symbolic links" in done.stderr
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("text", ['layout = "team"\n', 'layout = "team" # shared\n'])
def test_a_settings_file_with_a_byte_order_mark_is_read(
    tmp_path: Path, run_mem: RunMem, text: str
) -> None:
    """Notepad starts a UTF-8 file with a BOM; TOML's parsers refuse it at line 1, column 1."""
    assert run_mem("init", cwd=tmp_path).returncode == 0
    (tmp_path / SETTINGS).write_bytes(b"\xef\xbb\xbf" + text.encode())
    done = run_mem("status", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "noteFiles" in json.loads(done.stdout)["project"]  # the team layout, as written


def test_init_agents_team_is_refused_and_writes_nothing(tmp_path: Path, run_mem: RunMem) -> None:
    done = run_mem("init", "--agents", "--team", cwd=tmp_path)
    assert done.returncode == 1
    assert "--team cannot be combined with --agents (run mem init --team)." in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("history = true\n", "true"),
        ('history = false\nlayout = "classic"\n', "false"),
        ('history = "true"\n', "true"),
        ("history = true  # beyond the simple form: tomllib reads it\n", "true"),
    ],
)
def test_history_reads_as_a_toml_boolean_or_its_name(text: str, value: str) -> None:
    from mem.files import settings

    assert settings.parse_settings(text.encode())["history"] == value
