"""Deviation D8: a project directory that does not exist, or is not one, is refused by every
command with one clear error, exit 1, no traceback and nothing written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import FIXTURES
from support.cli import RunMem, mem_command
from support.trees import tree

MEMORY_ID = "mem_" + "0" * 20
# Every command with arguments it would accept, so the directory is the only problem.
COMMANDS = [
    ("recall", "postgres"),
    ("recall", "postgres", "--json"),
    ("write", "--agent", "forge", "--task", "t"),
    ("reinforce", "--pattern", "p", "--ci", "pass"),
    ("observe", "--input", "o.json"),
    ("outcomes",),
    ("status",),
    ("init",),
    ("index", "path"),
    ("index", "check"),
    ("index", "rebuild"),
    ("unlock",),
    ("patterns",),
    ("context",),
    ("audit",),
    ("evidence", "list", MEMORY_ID),
    ("evidence", "add", MEMORY_ID, "--source", "a.py"),
    ("supersede", MEMORY_ID, "--with", MEMORY_ID, "--reason", "r"),
    ("retract", MEMORY_ID, "--reason", "r"),
    ("consolidate",),
    ("promote", MEMORY_ID),
    ("archive", "journal", "--approve"),
    ("export", "--force"),
]


def refused(done: subprocess.CompletedProcess[str], args: tuple[str, ...], message: str) -> bool:
    if "--json" in args:
        return (
            done.returncode == 1
            and done.stdout == json.dumps({"error": message}, separators=(",", ":")) + "\n"
        )
    return (
        done.returncode == 1 and done.stdout == "" and done.stderr == f"mem {args[0]}: {message}\n"
    )


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args))
def test_every_command_refuses_a_directory_that_does_not_exist(
    args: tuple[str, ...], tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    missing = tmp_path / "no such project"
    before = tree(tmp_path, isolated_env)
    done = run_mem(*args, "-d", str(missing), cwd=tmp_path)
    assert refused(done, args, f"Project directory does not exist: {missing}"), done
    assert tree(tmp_path, isolated_env) == before


@pytest.mark.parametrize(
    "args", [("recall", "x"), ("write", "--agent", "a"), ("status",), ("init",), ("index", "path")]
)
def test_a_file_and_the_file_system_root_are_refused(
    args: tuple[str, ...], tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a project\n")
    before = tree(tmp_path, isolated_env)
    done = run_mem(*args, "-d", str(a_file), cwd=tmp_path)
    assert refused(done, args, f"Project directory is not a directory: {a_file}"), done
    done = run_mem(*args, "-d", "/", cwd=tmp_path)
    assert refused(done, args, "Project directory cannot be the file system root: /"), done
    assert not Path("/.bmad/memory/journal.ndjson").exists()
    assert tree(tmp_path, isolated_env) == before


def test_a_relative_directory_is_named_by_its_absolute_path(
    tmp_path: Path, run_mem: RunMem
) -> None:
    done = run_mem("write", "--agent", "a", "-d", "typo/dir", cwd=tmp_path)
    assert done.stderr == f"mem write: Project directory does not exist: {tmp_path}/typo/dir\n"
    assert list(tmp_path.iterdir()) == []


def test_a_removed_working_directory_is_refused(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, subprocess, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]);"
        " done = subprocess.run(sys.argv[2:], capture_output=True, text=True);"
        " sys.stdout.write(done.stderr); sys.exit(done.returncode)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(gone), *mem_command(), "write", "--agent", "a"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout == (
        "mem write: Project directory does not exist: the current directory was removed.\n"
    )


@pytest.mark.parametrize(
    "name", ["with space", "new\nline", "tab\there", "ünïcødé ☃", "日本語", "-starts-with-dash"]
)
def test_unusual_but_valid_names_work_and_missing_ones_are_named_on_one_line(
    name: str, tmp_path: Path, run_mem: RunMem
) -> None:
    project = tmp_path / name
    shutil.copytree(FIXTURES / "demo", project)
    done = run_mem("write", "--agent", "forge", "--task", "zebra crossing", "-d", str(project))
    assert done.returncode == 0, done.stderr
    found = run_mem("recall", "zebra", "--json", "-d", str(project))
    assert json.loads(found.stdout)["count"] == 1
    assert run_mem("status", "-d", str(project)).returncode == 0
    assert run_mem("index", "check", "-d", str(project)).returncode == 0

    missing = tmp_path / f"missing {name}"
    done = run_mem("recall", "zebra", "-d", str(missing))
    shown = str(missing).replace("\n", "\\n").replace("\t", "\\t")
    assert done.returncode == 1
    assert done.stderr == f"mem recall: Project directory does not exist: {shown}\n"
    assert not missing.exists()


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_directory_name_that_is_not_utf8_is_refused_clearly(tmp_path: Path) -> None:
    project = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(project)
    for args in (("recall", "x"), ("write", "--agent", "a"), ("status",)):
        done = subprocess.run(
            [*mem_command(), *args, "-d", os.fsdecode(project)],
            capture_output=True,
            check=False,
        )
        assert done.returncode == 1
        assert (
            done.stderr
            == (
                f"mem {args[0]}: Project directory path is not valid UTF-8: {tmp_path}/caf\\xe9\n"
            ).encode()
        )
    assert os.listdir(project) == []
