"""Progress lines for checks that take minutes (issue 35: `mem check findability` on 89,750
notes ran 300 s with nothing on stderr when not on a terminal)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.trees import write

from mem.cli import progress


def test_lines_come_each_tenth_after_the_first_seconds_on_any_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    stream = io.StringIO()  # not a terminal
    lines = progress.Lines("mem check findability", "note checks", stream)
    lines(0, 1000)
    now[0] += 1
    lines(150, 1000)  # within the first seconds: quiet
    now[0] += 2
    for done in range(150, 1000, 10):
        lines(done, 1000)
    shown = stream.getvalue().splitlines()
    assert shown[0] == "mem check findability: 15 % (150 of 1,000 note checks, 3 s)"
    assert [line.split(":")[1].split("%")[0].strip() for line in shown] == [
        "15",
        "20",
        "30",
        "40",
        "50",
        "60",
        "70",
        "80",
        "90",
    ]


def test_a_slow_tenth_still_gets_a_line_every_ten_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    stream = io.StringIO()
    lines = progress.Lines("mem check findability", "note checks", stream)
    for done in range(1, 40):
        now[0] += 1
        lines(done, 1000)
    assert len(stream.getvalue().splitlines()) == 4  # at 2 s (first), then 12, 22, 32 s


def test_check_findability_writes_its_lines_to_stderr_off_a_terminal(
    run_mem: RunMem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress.Lines, "FIRST_SECONDS", 0.0)  # a big project's check
    notes = "".join(f"### Pool {n} connections\npgbouncer {n}.\n\n" for n in range(3))
    write(tmp_path / ".agents/memory/decisions.md", "# Decisions\n\n" + notes)
    done = run_mem("check", "findability", "--json", "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].startswith(
        "mem check findability: 0 % (0 of 6 note checks, "
    )
    assert json.loads(done.stdout)["notes"] == 3  # stdout holds the report alone
