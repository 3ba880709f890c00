"""`mem note add` writes a well-formed, dated `###` section; `mem show` reads one back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.secret_samples import SAMPLES

pytestmark = pytest.mark.script


def _add(run_mem: RunMem, project: Path, *args: str, stdin: str | None = None) -> dict[str, str]:
    done = run_mem("note", "add", *args, "--json", "-d", str(project), input=stdin)
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, str] = json.loads(done.stdout)
    return result


def test_a_decision_is_appended_dated_and_recall_finds_it(run_mem: RunMem, project: Path) -> None:
    decisions = project / ".agents/memory/decisions.md"
    before = decisions.read_text(encoding="utf-8")
    body = "- **Decision**: pgbouncer in transaction mode\n- **Status**: active\n"
    result = _add(
        run_mem, project, "decision", "--title", "Pool in transaction mode", "--stdin", stdin=body
    )
    assert result["heading"] == "2026-10-18 — Pool in transaction mode"
    after = decisions.read_text(encoding="utf-8")
    assert after.startswith(before)
    assert after[len(before) :] == (
        "\n### 2026-10-18 — Pool in transaction mode\n"
        "- **Decision**: pgbouncer in transaction mode\n- **Status**: active\n"
    )
    found = json.loads(
        run_mem("recall", "transaction", "mode", "--json", "-d", str(project)).stdout
    )
    assert found["results"][0]["ref"] == result["heading"]
    shown = json.loads(run_mem("show", result["id"], "--json", "-d", str(project)).stdout)
    assert (shown["status"], shown["revision"]) == ("active", result["revision"])


def test_without_text_the_templates_fields_are_written(run_mem: RunMem, tmp_path: Path) -> None:
    result = _add(run_mem, tmp_path, "pattern", "--title", "Outbox")
    text = (tmp_path / ".agents/memory/patterns.md").read_text(encoding="utf-8")
    assert result["created"] and text.startswith("# Patterns\n")
    assert text.endswith(
        "\n### Outbox\n- **Problem**: …\n- **Shape**: …\n- **Trade-off**: …"
        "\n- **Status**: candidate\n"
    )


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["rule", "--title", "x"], None, "The kind must be decision, lesson or pattern"),
        (["lesson"], None, "--title must be one line of 1 to 200 characters."),
        (["lesson", "--title", "x" * 201], None, "--title must be one line"),
        (["lesson", "--title", "x", "--stdin"], "ok\n## Split\n", "line 2: a Markdown heading"),
        (["lesson", "--title", "x", "--body", "y" * 8001], None, "at most 8000 characters"),
        (["lesson", "--title", "x", "--body", "a", "--stdin"], "b", "not both"),
    ],
)
def test_bad_notes_are_refused_and_nothing_is_written(
    run_mem: RunMem, project: Path, args: list[str], stdin: str | None, message: str
) -> None:
    lessons = project / ".agents/memory/lessons.md"
    before = lessons.read_bytes()
    done = run_mem("note", "add", *args, "-d", str(project), input=stdin)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert lessons.read_bytes() == before


def test_a_second_note_with_the_same_heading_is_refused(run_mem: RunMem, project: Path) -> None:
    _add(run_mem, project, "lesson", "--title", "Same day, same title")
    done = run_mem("note", "add", "lesson", "--title", "Same day, same title", "-d", str(project))
    assert done.returncode == 1 and "already has a section headed" in done.stderr


def test_a_possible_secret_is_refused_unless_allowed(run_mem: RunMem, project: Path) -> None:
    kind, value = next(iter(SAMPLES.items()))
    done = run_mem(
        "note", "add", "lesson", "--title", "t", "--body", f"token {value}", "-d", str(project)
    )
    assert done.returncode == 1 and "secret" in done.stderr.lower()
    assert value not in (project / ".agents/memory/lessons.md").read_text(encoding="utf-8")


def test_a_note_added_to_a_crlf_file_keeps_its_line_endings(run_mem: RunMem, project: Path) -> None:
    decisions = project / ".agents/memory/decisions.md"
    decisions.write_bytes(b"# Decisions\r\n\r\n### Queue\r\nUse kafka.\r\nTwice.\r\n")
    done = run_mem(
        "note",
        "add",
        "decision",
        "--title",
        "Pool",
        "--body",
        "One pool.\nPer service.",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    data = decisions.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")  # no line ends in a bare LF
    listed = json.loads(run_mem("context", "--json", cwd=project).stdout)["memories"]
    for memory in listed:
        shown = run_mem("show", memory["id"], "--json", cwd=project)
        assert "\r" not in json.loads(shown.stdout)["text"]
        assert "\r" not in run_mem("show", memory["id"], cwd=project).stdout
