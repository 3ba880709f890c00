"""The brief shows context.md only once someone wrote in it: a fresh project's template is
~300 characters of empty headings, and it made the brief say "2 of 2 entries" while listing
one memory (issue 35, the first hour)."""

from __future__ import annotations

from pathlib import Path

from support.cli import RunMem

from mem.domain import brief


def _kinds(root: Path) -> list[str]:
    return [entry.kind for entry in brief.gather(str(root), 6000).entries]


def test_the_template_of_context_md_is_left_out_until_it_is_filled_in(
    tmp_path: Path, run_mem: RunMem
) -> None:
    assert run_mem("init", cwd=tmp_path).returncode == 0
    added = run_mem(
        "note", "add", "decision", "--title", "Use postgres", "--body", "Pool.", cwd=tmp_path
    )
    assert added.returncode == 0, added.stderr
    assert _kinds(tmp_path) == ["decision"]
    context = tmp_path / ".agents/memory/context.md"
    context.write_text(context.read_text() + "\n## Stack\nPython 3.11 and postgres.\n")
    assert _kinds(tmp_path) == ["context", "decision"]
