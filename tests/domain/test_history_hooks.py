"""The project's commits in the brief and the hooks (mem.domain.brief, mem.domain.edits):
the prompt's through the notes' gate, the edit's by the lines it replaces, none with
`history = false`, none the session was given."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.git import GIT_ENV, commit_all, git
from support.trees import write

from mem.core.rules.edit_targets import Edit, edit_of, replaced_lines
from mem.domain import brief, edits, prompt_gate

DECISION = (
    "perf: keep exponential backoff in the limiter\n\n"
    "A linear retry storm took the payments API down in March: the limiter bans linear"
    " retries, so backoff stays exponential with jitter."
)
LIMITER = "def backoff(attempt):\n    return BASE * 2 ** attempt + jitter()\n"


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with no notes whose decision lives in a commit, among others."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "shop"
    (root / ".agents/memory").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write(root / "src/limiter.py", "BASE = 1\n")
    write(root / "src/orders.py", "ORDERS = []\n")
    commit_all(root, "Initial import")
    write(root / "src/limiter.py", "BASE = 1\n\n" + LIMITER)
    commit_all(root, DECISION)
    for number in range(6):
        write(root / "src/orders.py", f"ORDERS = {list(range(number + 1))}\n")
        commit_all(root, f"orders: list {number}\n\nThe order list holds {number} entries now.")
    write(root / "src/limiter.py", "BASE = 20\n\n" + LIMITER)
    commit_all(root, "limiter: a larger base\n\nThe base of the delay is 2 seconds.")
    return root


def _sha(root: Path, message_start: str) -> str:
    return git(root, "log", "--format=%H", f"--grep=^{message_start}").split()[0]


def test_a_prompt_brings_the_commit_that_decided_it(repository: Path) -> None:
    found = brief.prompt_commits(
        str(repository), "why does the limiter ban linear retries?", 0.25, set(), 8
    )
    sha = _sha(repository, "perf: keep")
    assert [entry.revision for entry in found] == [sha]
    shown = found[0].to_json()
    assert (shown["kind"], shown["id"], shown["sha"]) == ("commit", sha[:7], sha)
    assert shown["heading"] == "perf: keep exponential backoff in the limiter"
    assert shown["date"] == git(repository, "log", "-1", "--format=%cs", sha).strip()
    assert shown["summary"].startswith("A linear retry storm")


def test_an_unrelated_prompt_or_a_seen_commit_brings_nothing(repository: Path) -> None:
    root = str(repository)
    assert (
        brief.prompt_commits(root, "how do I configure kubernetes ingress?", 0.25, set(), 8) == []
    )
    prompt = "why does the limiter ban linear retries?"
    seen = {
        f"{entry.id} {entry.revision}"
        for entry in brief.prompt_commits(root, prompt, 0.25, set(), 8)
    }
    assert brief.prompt_commits(root, prompt, 0.25, seen, 8) == []


def test_history_false_in_the_settings_turns_the_commits_off(repository: Path) -> None:
    write(repository / ".agents/memory/mem.toml", "history = false\n")
    root = str(repository)
    assert (
        brief.prompt_commits(root, "why does the limiter ban linear retries?", 0.25, set(), 8) == []
    )
    edit = Edit([str(repository / "src/limiter.py")], "x", LIMITER)
    assert edits.governing_commits(root, edit, root, set(), 4) == []


def test_outside_git_there_are_no_commits(tmp_path: Path) -> None:
    (tmp_path / ".agents/memory").mkdir(parents=True)
    root = str(tmp_path)
    assert (
        brief.prompt_commits(root, "why does the limiter ban linear retries?", 0.25, set(), 8) == []
    )
    assert edits.governing_commits(root, Edit([f"{root}/a.py"], "x", "y"), root, set(), 4) == []


def test_an_edit_of_lines_a_commit_wrote_brings_that_commit_first(repository: Path) -> None:
    root = str(repository)
    edit = Edit([str(repository / "src/limiter.py")], "return 0", LIMITER)
    found = edits.governing_commits(root, edit, root, set(), 4)
    assert found[0].revision == _sha(repository, "perf: keep")
    # Without the lines it replaces, the newer commit of the file with a body comes first,
    # and the bare "Initial import" never.
    plain = edits.governing_commits(root, Edit([edit.paths[0]], ""), root, set(), 4)
    assert [entry.heading for entry in plain] == [
        "limiter: a larger base",
        "perf: keep exponential backoff in the limiter",
    ]


def test_after_the_edit_the_new_text_s_unchanged_lines_keep_their_commit(
    repository: Path,
) -> None:
    # Gemini CLI's AfterTool: the file holds the new text already; the replaced lines it
    # left unchanged are found one by one and keep their commit.
    new = "def backoff(attempt):\n    return BASE * 3 ** attempt + jitter()\n"
    write(repository / "src/limiter.py", "BASE = 20\n\n" + new)
    root = str(repository)
    edit = Edit([str(repository / "src/limiter.py")], new, LIMITER)
    found = edits.governing_commits(root, edit, root, set(), 4)
    assert found[0].revision == _sha(repository, "perf: keep")


def test_an_edit_of_a_file_in_a_subfolder_project_finds_its_commits(
    repository: Path,
) -> None:
    # The project's memory one folder down: paths are read relative to the repository's top.
    (repository / ".agents").rename(repository / "src/.agents")
    root = str(repository / "src")
    edit = Edit([str(repository / "src/limiter.py")], "", LIMITER)
    found = edits.governing_commits(root, edit, root, set(), 4)
    assert found and found[0].revision == _sha(repository, "perf: keep")


def test_the_brief_shows_commits_relevant_to_the_work(repository: Path) -> None:
    git(repository, "switch", "-q", "-c", "limiter-backoff")
    found = brief.gather(str(repository), 6000)
    commits = [entry for entry in found.entries if entry.kind == "commit"]
    assert commits and commits[0].heading.startswith(("perf: keep", "limiter: a larger"))
    assert found.total == len(found.entries)


def test_the_replaced_text_of_each_host_s_edit_is_read() -> None:
    assert edit_of(
        {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    ).replaced == ("x = 1")
    multi = {"file_path": "a.py", "edits": [{"old_string": "a", "new_string": "b"}]}
    assert edit_of(multi).replaced == "a"
    patch = "*** Begin Patch\n*** Update File: a.py\n@@ def f\n-    return 1\n+    return 2\n"
    assert edit_of({"command": ["apply_patch", patch]}).replaced == "    return 1"
    assert edit_of({"file_path": "a.py", "content": "all new"}).replaced == ""


def test_replaced_lines_are_found_whole_or_line_by_line() -> None:
    content = "a = 1\ndef backoff(attempt):\n    return BASE * 2\n}\n"
    assert replaced_lines(content, "def backoff(attempt):\n    return BASE * 2\n") == [(2, 3)]
    # Line by line (a patch's removed lines, reindented); a short line such as `}` counts not.
    assert replaced_lines(content, "  def backoff(attempt):\n}\n  return BASE * 2") == [(2, 3)]
    assert replaced_lines(content, "nothing of it") == []
    assert replaced_lines(content, "") == []


def test_a_prompt_reads_the_commits_as_it_reads_the_notes(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A word written whole finds the identifier a commit writes in parts (`retrypolicy`,
    # stemmed `retrypolici`), and an option's words weigh OPTION_WEIGHT: the commit on
    # --max-unhide outranks the one sharing more of the prompt's setup words.
    root = str(repository)
    write(repository / "src/policy.py", "class RetryPolicy: pass\n")
    commit_all(repository, "policy: one RetryPolicy for every client\n\nShared by all calls.")
    write(repository / "src/walk.py", "UNHIDE = True\n")
    commit_all(repository, "walk: list dot folders only with --max-unhide")
    write(repository / "src/config.py", "RULES = 'home'\n")
    commit_all(repository, "config: read global rules from the home directory of each machine")
    found = brief.prompt_commits(root, "where is the retrypolicy", 0.25, set(), 8)
    assert [entry.heading for entry in found] == ["policy: one RetryPolicy for every client"]
    report = (
        "Running with --max-unhide shows dot folders my rules name. Seen on my machine "
        "with global rules read from the home directory."
    )
    on_option = "walk: list dot folders only with --max-unhide"
    other = "config: read global rules from the home directory of each machine"
    assert [entry.heading for entry in brief.prompt_commits(root, report, 0.25, set(), 8)] == [
        on_option,
        other,
    ]
    monkeypatch.setattr(prompt_gate, "OPTION_WEIGHT", 1.0)
    assert [entry.heading for entry in brief.prompt_commits(root, report, 0.25, set(), 8)] == [
        other,
        on_option,
    ]
