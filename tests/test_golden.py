"""Every case recorded from the reference implementation, run through the real `mem` entry point.

The console script's `main` runs in this process (its fast paths, its streams, its exit
codes: the bytes a process of its own writes); a few cases run the installed console script
in processes of their own, so that the entry point a user runs answers them too.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from support import FIXTURES
from support.cli import console_script_in_process, mem_command

GOLDEN = FIXTURES / "golden"
CASES = sorted(path.name for path in GOLDEN.iterdir() if path.is_dir())
# The plain recall's fast path and click's (text and JSON), a write of non-ASCII text, usage
# errors: each in processes of their own as well.
IN_PROCESSES = ("01-recall-text", "02-recall-json", "15-write-truncation-ids", "25-usage-errors")


def _as_process(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*mem_command(), *args], cwd=cwd, env=env, capture_output=True, check=False
    )


def _tree(root: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(root))] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


def _same_output(actual: str, expected: str) -> bool:
    # Scores use V8's own log and pow (mem.jsmath), so even JSON doubles match to the bit.
    return actual == expected


@pytest.mark.parametrize(
    ("case", "run"),
    [(case, console_script_in_process) for case in CASES]
    + [pytest.param(case, _as_process, marks=pytest.mark.process) for case in IN_PROCESSES],
    ids=[*CASES, *(f"{case}-process" for case in IN_PROCESSES)],
)
def test_golden_case(
    case: str, run: Callable[..., subprocess.CompletedProcess[bytes]], tmp_path: Path
) -> None:
    source = GOLDEN / case
    lines = (source / "cmd").read_text(encoding="utf-8").split("\n")
    env_words = shlex.split(lines[0].removeprefix("# env:"))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "MEM_CACHE_DIR")}
    env.update(dict(word.split("=", 1) for word in env_words))
    env["HOME"] = str(home)
    work = tmp_path / "project"
    # git keeps no empty directories, so a case whose project is empty may arrive without one.
    if (source / "project").exists():
        shutil.copytree(source / "project", work, symlinks=True)
    else:
        work.mkdir()
    before = _tree(work)
    commands = [line for line in lines[1:] if line.strip() or line.startswith("mem")]
    for number, line in enumerate(commands, start=1):
        argv = shlex.split(line)
        assert argv[0] == "mem"
        done = run(*argv[1:], cwd=work, env=env)
        expected = source / "expected"
        stdout = (expected / f"{number}.stdout").read_bytes().decode()
        stderr_file = expected / f"{number}.stderr"
        stderr = stderr_file.read_bytes().decode() if stderr_file.exists() else ""
        where = f"{case} command {number}: {line}"
        assert _same_output(done.stdout.decode(), stdout), f"{where}\n{done.stdout.decode()}"
        assert done.stderr.decode() == stderr, where
        assert done.returncode == int((expected / f"{number}.exit").read_text()), where
    after = _tree(work)
    changed = {path: data for path, data in after.items() if before.get(path) != data}
    files = expected / "files"
    wanted = _tree(files) if files.exists() else {}
    assert sorted(changed) == sorted(wanted), case
    for path, data in wanted.items():
        assert _same_output(after[path].decode(), data.decode()), f"{case}: {path}"
    assert set(before) <= set(after), f"{case}: a file disappeared"
