"""`recall --ranking bm25 --include-history`: the project's commits rank with its memories,
and nothing that does not ask for history sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import RunMem
from support.git import commit_all, git
from support.trees import write

BODY = "The limiter bans linear retries, so backoff stays exponential.\n\nDecision: keep jitter"


def _decision_commit(project: Path) -> str:
    write(project / "src/retry.py", "# retry\nVALUE = 2\n")
    return commit_all(project, f"perf: simplify retry loop\n\n{BODY}")


def test_a_word_of_a_commit_body_finds_it(run_mem: RunMem, git_project: Path) -> None:
    sha = _decision_commit(git_project)
    args = ("recall", "limiter exponential", "--ranking", "bm25", "-d", str(git_project))
    done = run_mem(*args, "--include-history")
    assert done.returncode == 0, done.stderr
    assert f"commit {sha[:7]} 2" in done.stdout
    assert "perf: simplify retry loop" in done.stdout
    shown = json.loads(run_mem(*args, "--include-history", "--json").stdout)
    commit = next(entry for entry in shown["results"] if entry["kind"] == "commit")
    assert commit["sha"] == sha
    assert commit["paths"] == ["src/retry.py"]
    assert commit["ref"] == "perf: simplify retry loop"
    explained = json.loads(run_mem(*args, "--include-history", "--json", "--explain").stdout)
    first = explained["results"][0]
    assert first["explain"]["kind"] == "commit"
    assert first["explain"]["score"] == first["score"]


def test_recall_without_history_is_unchanged_by_the_commits(
    run_mem: RunMem, git_project: Path
) -> None:
    _decision_commit(git_project)
    lexical = ("recall", "retry limiter postgres", "-d", str(git_project))
    bm25 = (*lexical, "--ranking", "bm25")
    before = [run_mem(*lexical).stdout, run_mem(*bm25).stdout]
    with_history = run_mem(*bm25, "--include-history")
    assert "commit " in with_history.stdout
    assert [run_mem(*lexical).stdout, run_mem(*bm25).stdout] == before
    assert "commit " not in before[0] + before[1]


def test_the_setting_turns_history_on_for_bm25_only(run_mem: RunMem, git_project: Path) -> None:
    _decision_commit(git_project)
    write(git_project / ".agents/memory/mem.toml", 'ranking = "bm25"\nhistory = true\n')
    commit_all(git_project, "settings")
    done = run_mem("recall", "limiter", "-d", str(git_project))
    assert "commit " in done.stdout, done.stderr
    lexical = run_mem("recall", "limiter", "--ranking", "lexical", "-d", str(git_project))
    assert lexical.returncode == 0 and "commit " not in lexical.stdout
    write(git_project / ".agents/memory/mem.toml", 'ranking = "bm25"\nhistory = false\n')
    assert "commit " not in run_mem("recall", "limiter", "-d", str(git_project)).stdout


def test_a_commit_made_between_two_recalls_is_found(run_mem: RunMem, git_project: Path) -> None:
    args = ("recall", "limiter", "--ranking", "bm25", "--include-history", "-d", str(git_project))
    assert "commit " not in run_mem(*args).stdout
    _decision_commit(git_project)
    assert "perf: simplify retry loop" in run_mem(*args).stdout


def test_outside_git_history_says_why_and_recall_answers(run_mem: RunMem, project: Path) -> None:
    done = run_mem(
        "recall", "postgres", "--ranking", "bm25", "--include-history", "-d", str(project)
    )
    assert done.returncode == 0
    assert done.stderr == "mem recall: warning: no commits ranked: not in a git work tree\n"
    assert "match(es)" in done.stdout


def test_history_needs_the_bm25_ranking(run_mem: RunMem, git_project: Path) -> None:
    done = run_mem("recall", "retry", "--include-history", "-d", str(git_project))
    assert done.returncode == 1
    assert done.stderr == "mem recall: recall: --include-history needs --ranking bm25\n"


def test_scope_all_ranks_every_registered_project_s_commits(
    run_mem: RunMem, git_project: Path, tmp_path: Path
) -> None:
    from support.git import make_repository
    from support.portfolios import register

    other = tmp_path / "billing"
    (other / ".agents/memory").mkdir(parents=True)
    make_repository(other)
    write(other / "src/retry.py", "# retry\nVALUE = 9\n")
    theirs = commit_all(other, f"retry: exponential limiter for invoices\n\n{BODY}")
    ours = _decision_commit(git_project)
    brain = tmp_path / "brain"
    register(brain, git_project, "shop")
    register(brain, other, "billing")
    args = ("recall", "limiter exponential", "--ranking", "bm25", "--scope", "all")
    args += ("--portfolio", str(brain), "-d", str(git_project), "--include-history")
    shown = json.loads(run_mem(*args, "--json").stdout)
    commits = {
        (entry["projectName"], entry["sha"])
        for entry in shown["results"]
        if entry["kind"] == "commit"
    }
    assert commits == {("shop", ours), ("billing", theirs)}
    text = run_mem(*args).stdout
    assert f"commit billing: {theirs[:7]} " in text and f"commit shop: {ours[:7]} " in text
    # Without --include-history, none; --scope portfolio (the brain's notes) has no history.
    assert "commit" not in run_mem(*args[:-1]).stdout
    portfolio = run_mem(
        "recall",
        "limiter",
        "--ranking",
        "bm25",
        "--scope",
        "portfolio",
        "--include-history",
        "-d",
        str(git_project),
    )
    assert portfolio.returncode == 1 and "--scope all" in portfolio.stderr


def test_index_check_compares_the_commits_too(run_mem: RunMem, git_project: Path) -> None:
    from mem import index

    _decision_commit(git_project)
    run_mem("recall", "limiter", "--ranking", "bm25", "--include-history", "-d", str(git_project))
    done = run_mem("index", "check", "-d", str(git_project))
    assert done.returncode == 0 and ", 2 commit(s) (" in done.stdout, done.stdout
    conn = index.connect(index.index_path(str(git_project), index.PROJECT))
    assert conn is not None
    conn.execute("UPDATE commits SET subject = 'tampered' WHERE subject LIKE 'perf:%'")
    conn.close()
    report = json.loads(run_mem("index", "check", "--json", "-d", str(git_project)).stdout)
    assert not report["ok"]
    assert any(line.startswith("commits: unexpected") for line in report["differences"])


@pytest.mark.process
def test_recalls_while_head_moves_answer_and_catch_up(run_mem: RunMem, git_project: Path) -> None:
    """Whole `mem recall` processes while commits, amends and resets land: each answers
    without a word on stderr, and the one after HEAD stops shows the last commit."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    stop = threading.Event()

    def move() -> None:
        for number in range(30):
            if stop.is_set():
                return
            git(git_project, "commit", "-q", "--allow-empty", "-m", f"limiter change {number}")
            if number % 4 == 3:
                git(
                    git_project,
                    "commit",
                    "-q",
                    "--amend",
                    "--allow-empty",
                    "-m",
                    f"limiter amended {number}",
                )
            if number % 6 == 5:
                git(git_project, "reset", "-q", "--hard", "HEAD~1")

    args = ("recall", "limiter", "--ranking", "bm25", "--include-history", "-d", str(git_project))
    with ThreadPoolExecutor(1) as pool:
        moving = pool.submit(move)
        try:
            for _ in range(6):
                done = run_mem(*args)
                assert (done.returncode, done.stderr) == (0, ""), done.stderr
        finally:
            stop.set()
        moving.result()
    subject = git(git_project, "log", "-1", "--format=%s").strip()
    assert subject in run_mem(*args, "--limit", "50").stdout


def test_a_shorter_limit_shows_the_first_of_the_longer_merge(
    run_mem: RunMem, git_project: Path
) -> None:
    """The commits' search stops at the limit-th memory's score (nothing under it is shown):
    each limit shows the first results of a longer one, commits and memories interleaved."""
    for number, words in enumerate(["retry limiter", "retry", "limiter backoff", "retry retry"]):
        write(git_project / f"src/f{number}.py", f"# {number}\n")
        commit_all(git_project, f"{words}: change {number}\n\nWhy: the {words} postgres pool")
    args = ("recall", "retry limiter postgres pool", "--ranking", "bm25", "--include-history")
    args += ("--json", "-d", str(git_project))

    def shown(limit: int) -> list[tuple[str, str, float]]:
        done = run_mem(*args, "--limit", str(limit))
        assert done.returncode == 0, done.stderr
        return [(e["kind"], e["ref"], e["score"]) for e in json.loads(done.stdout)["results"]]

    every = shown(20)
    kinds = [kind for kind, _, _ in every]
    first_commit = kinds.index("commit")
    assert kinds[:first_commit] == ["note"] * first_commit and "note" in kinds[first_commit:]
    for limit in range(1, len(every) + 1):
        assert shown(limit) == every[:limit]
