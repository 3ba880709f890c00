"""`mem check findability`: which notes the queries a user could type for them find."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.portfolios import register
from support.trees import write

from mem.core.rules import memory as memory_ids


def _report(run_mem: RunMem, root: Path, *args: str) -> dict:
    done = run_mem("check", "findability", "--json", "-d", str(root), *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _notes(root: Path, text: str) -> None:
    write(root / ".agents/memory/decisions.md", "# Decisions\n\n" + text)


def test_a_note_its_own_words_find_is_found_first(run_mem: RunMem, tmp_path: Path) -> None:
    _notes(
        tmp_path,
        "### Use uuid-v7 ids\nKeys sort by time.\n\n### Pool Postgres connections\npgbouncer.\n",
    )
    found = _report(run_mem, tmp_path)
    assert (found["notes"], found["queries"]) == (2, 3)
    lexical = found["rankings"]["lexical"]
    assert lexical["notesTop1"] == lexical["queriesTop5"] == 1.0
    assert lexical["unfound"] == lexical["shadowed"] == []


def test_notes_nothing_finds_and_notes_shadowed_are_named(run_mem: RunMem, tmp_path: Path) -> None:
    short = "".join(f"### Cache {n}\ncache\n\n" for n in range(5))
    long = "### Cache rules\n" + "cache " + "words " * 200 + "\n"
    _notes(tmp_path, short + long)
    lexical = _report(run_mem, tmp_path)["rankings"]["lexical"]
    assert lexical["unfound"] == [{"file": ".agents/memory/decisions.md", "heading": "Cache rules"}]
    # "Cache 1".."Cache 4" each rank below "Cache 0" (same score, earlier section) for "cache".
    shadowed = {note["heading"]: note["by"]["heading"] for note in lexical["shadowed"]}
    assert shadowed == {f"Cache {n}": "Cache 0" for n in range(1, 5)} | {"Cache rules": "Cache 0"}
    assert lexical["notesTop1"] == round(1 / 6, 4)
    text = run_mem("check", "findability", "-d", str(tmp_path))
    assert "not in the top 5 of any of their queries (lexical):\n" in text.stdout
    assert "  .agents/memory/decisions.md: Cache rules\n" in text.stdout


def test_min_recall_fails_the_check_below_it(run_mem: RunMem, tmp_path: Path) -> None:
    short = "".join(f"### Cache {n}\ncache\n\n" for n in range(5))
    _notes(tmp_path, short + "### Cache rules\ncache " + "words " * 200 + "\n")
    passed = run_mem("check", "findability", "--min-recall", "0.8", "-d", str(tmp_path))
    assert passed.returncode == 0, passed.stdout
    failed = run_mem("check", "findability", "--min-recall", "0.9", "-d", str(tmp_path))
    assert failed.returncode == 1
    assert failed.stdout.endswith("lexical: notes in the top 5 83.3 %, below --min-recall 0.9\n")
    as_json = run_mem("check", "findability", "--min-recall", "0.9", "--json", "-d", str(tmp_path))
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["belowMinRecall"] == ["lexical"]
    wrong = run_mem("check", "findability", "--min-recall", "2", "-d", str(tmp_path))
    assert wrong.returncode != 0 and "--min-recall" in wrong.stderr


def test_retired_notes_are_not_measured(run_mem: RunMem, tmp_path: Path) -> None:
    _notes(tmp_path, "### Old pooling\nuse pgpool\n\n### New pooling\nuse pgbouncer\n")
    before = _report(run_mem, tmp_path)
    assert before["notes"] == 2
    memory = memory_ids.memory_id(".agents/memory/decisions.md", "Old pooling")
    done = run_mem("retract", memory, "--reason", "wrong", "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    after = _report(run_mem, tmp_path)
    assert after["notes"] == 1


def test_scope_all_checks_each_project_and_lists_near_duplicates(
    run_mem: RunMem, tmp_path: Path
) -> None:
    brain = tmp_path / "brain"
    shop, blog = tmp_path / "shop", tmp_path / "blog"
    _notes(shop, "### Pool Postgres connections\nwith pgbouncer\n\n### Cache carts\nredis\n")
    _notes(blog, "### Postgres connections pool\nwith pgbouncer too\n")
    register(brain, shop, "shop")
    register(brain, blog, "blog")
    found = _report(run_mem, shop, "--scope", "all", "--brain", str(brain))
    assert (found["projects"], found["notes"]) == (2, 3)
    assert found["rankings"]["lexical"]["notesTop1"] == 1.0
    [pair] = found["nearDuplicates"]
    assert [note["project"] for note in pair["notes"]] == [
        str(blog.resolve()),
        str(shop.resolve()),
    ]


def test_a_project_without_notes_passes_any_min_recall(run_mem: RunMem, tmp_path: Path) -> None:
    done = run_mem("check", "findability", "--min-recall", "1", "--json", "-d", str(tmp_path))
    assert done.returncode == 0, done.stdout
    found = json.loads(done.stdout)
    assert (found["notes"], found["rankings"]["lexical"]["notesTop5"]) == (0, None)


def test_a_team_projects_note_files_are_measured(run_mem: RunMem, tmp_path: Path) -> None:
    write(tmp_path / ".agents/memory/mem.toml", 'layout = "team"\n')
    done = run_mem("note", "add", "decision", "--title", "Use uuid-v7 ids", "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    found = _report(run_mem, tmp_path)
    assert found["notes"] == 1
    assert found["rankings"]["lexical"]["notesTop1"] == 1.0


def test_a_note_in_another_script_is_reported_as_not_found_by_lexical(
    run_mem: RunMem, tmp_path: Path
) -> None:
    """The reference's tokenizer keeps Latin letters only: such a note has queries, and
    the report says lexical recall cannot find it."""
    _notes(tmp_path, "### Ошибка миграции\nоткат\n\n### Pool Postgres connections\npgbouncer\n")
    found = _report(run_mem, tmp_path)
    assert found["unqueried"] == []
    lexical = found["rankings"]["lexical"]
    assert lexical["unfound"] == [
        {"file": ".agents/memory/decisions.md", "heading": "Ошибка миграции"}
    ]
    assert lexical["notesTop1"] == 0.5


def test_with_history_on_the_commits_above_a_note_take_its_place(
    run_mem: RunMem, git_project: Path
) -> None:
    from support.git import commit_all

    _notes(git_project, "### Pool Postgres connections\npgbouncer in front of postgres.\n")
    commit_all(git_project, "notes")
    for number in range(30):  # six say the note's words more often than it does
        write(git_project / f"src/pool{number}.py", "VALUE = 1\n")
        words = "Pool Postgres connections" if number % 5 == 0 else f"Other change {number}"
        commit_all(git_project, f"{words} {number}\n\n{words}.")
    without = _report(run_mem, git_project)
    assert without["commitsRanked"] is False
    assert without["rankings"]["bm25"]["notesTop5"] == 1.0
    write(git_project / ".agents/memory/mem.toml", "history = true\n")
    found = _report(run_mem, git_project)
    assert found["commitsRanked"] is True
    assert found["rankings"]["bm25"]["notesTop5"] < 1.0
    assert found["rankings"]["lexical"] == without["rankings"]["lexical"]
