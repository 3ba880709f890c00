"""`mem context --budget CHARS`: a brief that fits, whole entries only, the same bytes each time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import RunMem
from support.git import git

from mem.render import brief as brief_view


def _brief(run_mem: RunMem, project: Path, budget: int, *extra: str) -> str:
    done = run_mem("context", "--budget", str(budget), "-d", str(project), *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("budget", [400, 600, 900, 1500, 6000])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_the_brief_never_exceeds_its_budget(
    run_mem: RunMem, project: Path, budget: int, as_json: bool
) -> None:
    output = _brief(run_mem, project, budget, *(["--json"] if as_json else []))
    assert len(output) <= budget
    if as_json:
        brief = json.loads(output)
        assert brief["shown"] + brief["omitted"] == brief["total"]
        assert len(brief["entries"]) == brief["shown"]
    else:
        assert output.rstrip("\n").splitlines()[-1].split()[1] in ("entries", "entry")
        assert "left out" in output.rstrip("\n").splitlines()[-1]


def test_same_files_and_git_state_give_the_same_bytes(run_mem: RunMem, git_project: Path) -> None:
    first = _brief(run_mem, git_project, 2000)
    assert _brief(run_mem, git_project, 2000) == first
    assert _brief(run_mem, git_project, 2000, "--json") == _brief(
        run_mem, git_project, 2000, "--json"
    )


def test_memories_matching_the_branch_come_first(run_mem: RunMem, git_project: Path) -> None:
    git(git_project, "checkout", "-q", "-b", "fix/stripe-webhook-idempotency")
    entries = json.loads(_brief(run_mem, git_project, 6000, "--json"))["entries"]
    memories = [entry for entry in entries if "id" in entry]
    assert "Webhook retries need idempotency keys" in memories[0]["heading"]
    assert memories[0]["relevance"] > 0
    # The rest follow by recency: relevance first, then dated headings newest first.
    unmatched = [entry for entry in memories if entry["relevance"] is None]
    dated = [entry["heading"][:10] for entry in unmatched if entry["heading"][:4].isdigit()]
    assert dated == sorted(dated, reverse=True)


def test_changed_files_make_memories_relevant(run_mem: RunMem, git_project: Path) -> None:
    before = json.loads(_brief(run_mem, git_project, 6000, "--json"))["entries"]
    (git_project / "src" / "bullmq_jobs.py").write_text("QUEUE = 1\n", encoding="utf-8")
    after = json.loads(_brief(run_mem, git_project, 6000, "--json"))["entries"]

    def bullmq(entries: list[dict[str, object]]) -> dict[str, object]:
        return next(entry for entry in entries if "BullMQ" in str(entry.get("heading")))

    assert bullmq(before)["relevance"] is None
    assert bullmq(after)["relevance"] is not None
    assert after.index(bullmq(after)) < before.index(bullmq(before))


def test_the_brief_leads_with_context_and_the_handoffs_open_points(
    run_mem: RunMem, project: Path
) -> None:
    sessions = project / ".agents/memory/sessions"
    sessions.mkdir(parents=True)
    (sessions / "2026-10-17-auth.md").write_text(
        "# Auth refactor\n\n## Done\n- moved tokens\n\n## Open questions\n- rotate keys?\n",
        encoding="utf-8",
    )
    entries = json.loads(_brief(run_mem, project, 6000, "--json"))["entries"]
    assert [entry["kind"] for entry in entries[:2]] == ["context", "handoff"]
    assert entries[1]["text"] == "## Open questions\n- rotate keys?"
    assert "moved tokens" not in entries[1]["text"]


def test_retired_memories_are_left_out(run_mem: RunMem, project: Path) -> None:
    before = json.loads(_brief(run_mem, project, 6000, "--json"))
    gone = next(entry for entry in before["entries"] if "id" in entry)
    done = run_mem("retract", gone["id"], "--reason", "wrong", "-d", str(project))
    assert done.returncode == 0, done.stderr
    after = json.loads(_brief(run_mem, project, 6000, "--json"))
    assert gone["id"] not in {entry.get("id") for entry in after["entries"]}
    assert after["total"] == before["total"] - 1


@pytest.mark.parametrize("budget", ["399", "ten", "-5", "1e4", "10000001"])
def test_a_budget_out_of_range_is_refused(run_mem: RunMem, project: Path, budget: str) -> None:
    done = run_mem("context", "--budget", budget, "-d", str(project))
    assert done.returncode == 1
    assert done.stderr == (
        "mem context: --budget must be a whole number of characters from 400 to 10000000.\n"
    )


def _entry(kind: str, text: str, number: int) -> dict[str, object]:
    if kind in ("context", "handoff"):
        return {"kind": kind, "file": f"{kind}.md", "text": text}
    return {
        "kind": kind,
        "id": f"mem_{number:020x}",
        "file": ".agents/memory/decisions.md",
        "heading": text[:60],
        "summary": text,
        "relevance": None if number % 3 else number / 7,
    }


ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["context", "handoff", "decision", "lesson", "pattern"]),
        st.text(min_size=0, max_size=400),
    ),
    max_size=60,
).map(lambda items: [_entry(kind, text, number) for number, (kind, text) in enumerate(items)])


@settings(max_examples=300)
@given(
    entries=ENTRIES,
    extra=st.integers(min_value=0, max_value=200),
    smaller=st.integers(min_value=400, max_value=20_000),
    larger=st.integers(min_value=0, max_value=20_000),
    as_json=st.booleans(),
    kind=st.sampled_from(["brief", "prompt"]),
)
def test_a_larger_budget_holds_every_entry_of_a_smaller_one(
    entries: list[dict[str, object]],
    extra: int,
    smaller: int,
    larger: int,
    as_json: bool,
    kind: str,
) -> None:
    total = len(entries) + extra
    small, shown_small = brief_view.fit(entries, total, smaller, as_json=as_json, kind=kind)
    large, shown_large = brief_view.fit(
        entries, total, smaller + larger, as_json=as_json, kind=kind
    )
    assert len(small) <= smaller and len(large) <= smaller + larger
    assert shown_small <= shown_large
    if as_json:
        assert json.loads(large)["entries"][:shown_small] == json.loads(small)["entries"]
        assert json.loads(small)["omitted"] == total - shown_small


@settings(max_examples=15, deadline=None)
@given(
    notes=st.lists(
        st.tuples(
            st.sampled_from(["decisions.md", "lessons.md", "patterns.md"]),
            st.text(alphabet="abcdefgh pqrs-_é", min_size=1, max_size=40),
            st.text(alphabet="abcdefgh pqrs\n-é", max_size=300),
        ),
        max_size=40,
    ),
    budgets=st.lists(st.integers(min_value=400, max_value=8000), min_size=2, max_size=3),
)
def test_random_corpora_fit_every_budget_and_grow_by_prefix(
    tmp_path_factory: pytest.TempPathFactory,
    notes: list[tuple[str, str, str]],
    budgets: list[int],
) -> None:
    from mem.commands import context

    root = tmp_path_factory.mktemp("corpus")
    memory = root / ".agents/memory"
    memory.mkdir(parents=True)
    texts: dict[str, str] = {}
    for name, heading, body in notes:
        texts[name] = texts.get(name, "# Notes\n") + f"\n### {heading.strip() or 'x'}\n{body}\n"
    for name, text in texts.items():
        (memory / name).write_text(text, encoding="utf-8")
    shown = []
    for budget in sorted(budgets):
        output = context.brief(str(root), str(budget), as_json=True)
        assert len(output) <= budget
        shown.append(json.loads(output)["entries"])
        assert context.brief(str(root), str(budget), as_json=True) == output
    for smaller, larger in zip(shown, shown[1:], strict=False):
        assert larger[: len(smaller)] == smaller
