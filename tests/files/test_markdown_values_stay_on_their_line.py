"""A name mem writes into Markdown cannot start a line of its own (issue 23, failure 14): a
folder, file or package name holding a line break adds no heading, row or section to the
brain, an export or `projects-index.md`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from support import FIXTURES
from support.cli import RunMem
from support.demo import CACHE

from mem.core.prose import templates
from mem.core.text import markdown

pytestmark = pytest.mark.script

INJECTED = "shop\n### Injected"


def blocks(text: str) -> tuple[list[str], list[str]]:
    """(headings, table rows) of Markdown, outside fenced code; lines end at CR, LF or CRLF,
    as CommonMark reads them."""
    headings: list[str] = []
    rows: list[str] = []
    fence = None
    for line in re.split(r"\r\n|\r|\n", text):
        opening = re.match(r"(`{3,})", line)
        if fence is not None:
            if opening and len(opening.group(1)) >= len(fence) and not line.strip("`").strip():
                fence = None
        elif opening:
            fence = opening.group(1)
        elif line.startswith("#"):
            headings.append(line)
        elif line.startswith("|"):
            rows.append(line)
    return headings, rows


def cells(row: str) -> int:
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_inline_spells_every_line_break_as_its_escape() -> None:
    assert markdown.inline("shop") == "shop"
    assert markdown.inline("a\nb\rc\x85d\u2028e\u2029f\x00g\th") == (
        "a\\nb\\rc\\x85d\\u2028e\\u2029f\\x00g\\th"
    )
    assert markdown.inline("café 日本 👩‍💻\u00a0x") == "café 日本 👩‍💻\u00a0x"  # not breaks
    assert markdown.table_cell("a|b\nc") == "a\\|b\\nc"
    assert markdown.fence("plain") == "```"
    assert markdown.fence("a\n````\nb ``` c") == "`````"


def test_promote_from_a_folder_named_with_a_heading_adds_no_heading(
    tmp_path: Path, run_mem: RunMem
) -> None:
    project = tmp_path / INJECTED
    shutil.copytree(FIXTURES / "demo", project, symlinks=True)
    brain = tmp_path / "brain"
    brain.mkdir()
    (brain / "lessons.md").write_text("# Lessons\n", encoding="utf-8")
    env = {"BMAD_PLUS_BRAIN": str(brain)}
    done = run_mem("promote", CACHE, "--approve", "--by", "alice", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    text = (brain / "lessons.md").read_text(encoding="utf-8")
    assert blocks(text)[0] == ["# Lessons", "### Cache contract"]
    assert "Promoted from shop\\n### Injected on 2026-10-18\n" in text
    recalled = run_mem("recall", "Injected", "--scope", "portfolio", "--json", cwd=project, env=env)
    assert [item["ref"] for item in json.loads(recalled.stdout)["results"]] == ["Cache contract"]


def test_export_keeps_file_names_and_file_contents_in_their_blocks(
    project: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    brain = isolated_env / ".bmad-plus" / "brain"
    (brain / "projects").mkdir(parents=True)
    (brain / "identity.yaml").write_text('name: "a"\n```\n## Injected from identity\n```\n')
    (brain / "lessons.md").write_text("# Lessons\n\n### Deploys\n````\n## Injected from lessons\n")
    (brain / "projects" / "a\n## Injected from a name.yaml").write_text('path: "/x"\n')
    done = run_mem("export", cwd=project)
    assert done.returncode == 0, done.stderr
    [exported] = project.glob("bmad-brain-export-*.md")
    headings, _ = blocks(exported.read_text(encoding="utf-8"))
    assert headings == [
        "# BMAD+ Brain Export",
        "## identity.yaml",
        "## lessons.md",
        "## Projects",
        "### a\\n## Injected from a name.yaml",
    ]


def _index_rows(brain: Path) -> list[str]:
    headings, rows = blocks((brain / "projects-index.md").read_text(encoding="utf-8"))
    assert headings == ["# Project Index"]
    assert all(cells(row) == 5 for row in rows), rows
    return rows


def test_portfolio_add_keeps_a_folder_name_in_its_row(tmp_path: Path, run_mem: RunMem) -> None:
    brain = tmp_path / "brain"
    brain.mkdir()
    folder = tmp_path / "shop | x\n### Injected"
    folder.mkdir()
    done = run_mem("portfolio", "add", str(folder), "--brain", str(brain), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = _index_rows(brain)
    assert len(rows) == 3 and "| shop \\| x\\n### Injected |" in rows[2]


def test_scan_keeps_a_package_name_in_its_row(
    tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    app = tmp_path / "work" / "app"
    app.mkdir(parents=True)
    (app / "package.json").write_text(json.dumps({"name": "app|x\r\n## Injected"}))
    done = run_mem("scan", str(tmp_path / "work"), "--yes", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = _index_rows(isolated_env / ".bmad-plus" / "brain")
    assert len(rows) == 3 and "| app\\|x\\r\\n## Injected |" in rows[2]


def test_consolidate_proposals_stay_on_one_line(tmp_path: Path, run_mem: RunMem) -> None:
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "demo", project, symlinks=True)
    brain = tmp_path / "brain\n### Injected"
    brain.mkdir()
    (brain / "lessons.md").write_text("# Lessons\n\n### Cache contract\nSame note.\n")
    env = {"BMAD_PLUS_BRAIN": str(brain)}
    result = json.loads(run_mem("consolidate", "--json", cwd=project, env=env).stdout)
    proposals = [finding["proposal"] for finding in result["findings"]]
    assert any("brain\\n### Injected" in proposal for proposal in proposals)
    assert not any("\n" in proposal for proposal in proposals)
    text = run_mem("consolidate", cwd=project, env=env).stdout.splitlines()
    assert text[0].startswith("mem consolidate: ")
    assert all(line.startswith("  ") for line in text[1:])


@pytest.mark.parametrize("topic", ["deploy", "a\n### Injected"])
def test_init_and_handoff_write_no_value_into_markdown(
    topic: str, tmp_path: Path, run_mem: RunMem
) -> None:
    project = tmp_path / INJECTED
    project.mkdir()
    assert run_mem("init", cwd=project).returncode == 0
    for name, text in templates.PROJECT_FILES.items():
        assert (project / ".agents/memory" / name).read_text(encoding="utf-8") == text
    handoff = "# Handoff\n\nDone.\n"
    done = run_mem("handoff", "--topic", topic, "--stdin", "--json", cwd=project, input=handoff)
    assert done.returncode == 0, done.stderr
    written = Path(json.loads(done.stdout)["path"])
    assert "\n" not in written.name
    assert written.read_text(encoding="utf-8") == handoff
