"""`mem import` brings each host's memories into the inbox; `mem inbox` accepts or rejects them."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import FIXTURES
from support.cli import RunMem
from support.secret_samples import SAMPLES, leaks

from mem.core.rules.host_memories import claude_slug
from mem.files.settings import SETTINGS

HOSTS = FIXTURES / "hosts"


def _claude_folder(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / claude_slug(str(project.resolve())) / "memory"


def install(host: str, home: Path, project: Path) -> Path:
    """The fixture of `host` copied to where the host keeps it; returns its memory folder."""
    root = str(project.resolve())
    if host == "claude-code":
        target = _claude_folder(home, project)
        shutil.copytree(HOSTS / "claude-code" / "memory", target)
    elif host == "codex":
        target = home / ".codex" / "memories"
        shutil.copytree(HOSTS / "codex" / "memories", target)
        index = target / "MEMORY.md"
        index.write_text(index.read_text(encoding="utf-8").replace("@PROJECT@", root), "utf-8")
    elif host == "gemini":
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "projects.json").write_text(
            json.dumps({"projects": {root: "project"}}), encoding="utf-8"
        )
        target = home / ".gemini" / "tmp" / "project" / "memory"
        shutil.copytree(HOSTS / "gemini" / "memory", target)
        shutil.copy(HOSTS / "gemini" / "GEMINI.md", project / "GEMINI.md")
    elif host == "serena":
        target = project / ".serena" / "memories"
        shutil.copytree(HOSTS / "serena" / "memories", target)
    else:
        storage = home / ".config" / "Code" / "User" / "workspaceStorage" / "0a1b2c"
        storage.mkdir(parents=True)
        (storage / "workspace.json").write_text(
            json.dumps({"folder": f"file://{root}"}), encoding="utf-8"
        )
        target = storage / "GitHub.copilot-chat" / "memory-tool" / "memories" / "repo"
        shutil.copytree(HOSTS / "vscode" / "repo", target)
    return target


def mem_json(run_mem: RunMem, project: Path, *args: str) -> Any:
    done = run_mem(*args, "--json", "-d", str(project))
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def offered(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [candidate for host in result["hosts"] for candidate in host["offered"]]


def skipped(result: dict[str, Any]) -> list[str]:
    return [line for host in result["hosts"] for line in host["skipped"]]


def state_files(home: Path) -> list[Path]:
    return sorted((home / ".local" / "state").rglob("*"))


def test_claude_code_memories_become_candidates_of_their_kind_with_their_source(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    install("claude-code", isolated_env, project)
    result = mem_json(run_mem, project, "import", "claude-code")
    kinds = {candidate["title"]: candidate["kind"] for candidate in offered(result)}
    assert kinds == {
        "Integration tests must hit a real database, not mocks": "lesson",
        "Merge freeze from Thursday noon in a release week": "decision",
        "Pipeline bugs are tracked in the Linear project INGEST": "decision",
        "The user is a data scientist, new to the Go side of the code": "lesson",
    }
    freeze = next(c for c in offered(result) if c["kind"] == "decision" and "freeze" in c["title"])
    assert freeze["source"].startswith("~/.claude/projects/")
    assert freeze["text"].endswith(
        f"\n- **Imported**: from claude-code, {freeze['source']}, {freeze['text'][-10:]}"
    )
    assert "**Why:** the mobile team needs a stable branch" in freeze["text"]
    assert result["inbox"].startswith(str(isolated_env / ".local" / "state" / "mem" / "inbox"))
    assert not (project / ".agents" / "memory" / "decisions").exists()


def test_accepting_writes_the_notes_as_note_add_does_and_a_second_import_offers_nothing(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    install("claude-code", isolated_env, project)
    lessons = project / ".agents/memory/lessons.md"
    before = lessons.read_text(encoding="utf-8")
    mem_json(run_mem, project, "import", "claude-code")
    accepted = mem_json(run_mem, project, "inbox", "accept", "--all")
    assert len(accepted["changed"]) == 4
    after = lessons.read_text(encoding="utf-8")
    assert after.startswith(before)
    assert "\n### 2026-10-18 — Integration tests must hit a real database, not mocks\n" in after
    real = next(c for c in accepted["changed"] if c["title"].startswith("Integration"))
    shown = mem_json(run_mem, project, "show", real["memory"])
    assert "- **Imported**: from claude-code, ~/.claude/projects/" in shown["text"]
    again = mem_json(run_mem, project, "import", "claude-code")
    assert offered(again) == []
    assert again["hosts"][0]["duplicates"] == 4
    assert mem_json(run_mem, project, "inbox", "list")["candidates"] == []
    done = run_mem("inbox", "accept", real["id"], "-d", str(project))
    assert done.returncode == 0
    assert done.stdout == f"mem inbox: {real['id']} was already accepted\n"
    assert lessons.read_text(encoding="utf-8") == after


def test_rejected_candidates_are_not_offered_again_and_reject_is_idempotent(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    install("serena", isolated_env, project)
    first = offered(mem_json(run_mem, project, "import", "serena"))
    assert len(first) == 2
    ids = [candidate["id"] for candidate in first]
    rejected = mem_json(run_mem, project, "inbox", "reject", *ids)
    assert [c["id"] for c in rejected["changed"]] == ids
    twice = mem_json(run_mem, project, "inbox", "reject", *ids)
    assert twice["changed"] == [] and [c["id"] for c in twice["unchanged"]] == ids
    assert offered(mem_json(run_mem, project, "import", "serena")) == []
    kept = mem_json(run_mem, project, "inbox", "accept", ids[0])
    assert kept["changed"] == [] and kept["kept"][0]["why"] == "it was rejected"
    listed = mem_json(run_mem, project, "inbox", "list", "--all")["candidates"]
    assert {c["state"] for c in listed} == {"rejected"}


def test_dry_run_writes_nothing(run_mem: RunMem, project: Path, isolated_env: Path) -> None:
    install("claude-code", isolated_env, project)
    done = run_mem("import", "claude-code", "--dry-run", "-d", str(project))
    assert done.returncode == 0
    assert "would offer 4" in done.stdout and "Dry run: nothing was written." in done.stdout
    assert state_files(isolated_env) == []
    assert mem_json(run_mem, project, "inbox", "list")["candidates"] == []


def test_accept_in_team_layout_writes_a_file_per_note(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    (project / SETTINGS).write_text('layout = "team"\n')
    install("claude-code", isolated_env, project)
    mem_json(run_mem, project, "import", "claude-code")
    accepted = mem_json(run_mem, project, "inbox", "accept", "--all")
    files = sorted(path.name for path in (project / ".agents/memory/decisions").iterdir())
    assert any(name.startswith("2026-10-18-merge-freeze") for name in files), files
    freeze = next(c for c in accepted["changed"] if "freeze" in c["title"])
    assert mem_json(run_mem, project, "show", freeze["memory"])["file"].startswith(
        ".agents/memory/decisions/"
    )


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        (
            "codex",
            {
                ("payments service / webhook retries", "lesson"),
                ("run-migrations", "pattern"),
            },
        ),
        (
            "gemini",
            {
                ("The API answers in UTC; convert to local time only in the UI.", "lesson"),
                ("Staging deploy", "lesson"),
                ("The CSV exporter must keep the column order of the v1 API.", "lesson"),
                ("Feature flags live in config/flags.yaml.", "lesson"),
            },
        ),
        (
            "serena",
            {("Suggested commands", "lesson"), ("token refresh", "lesson")},
        ),
        ("vscode", {("Repository conventions", "lesson")}),
    ],
)
def test_each_host_offers_its_memories_of_this_project(
    run_mem: RunMem, project: Path, isolated_env: Path, host: str, expected: set[tuple[str, str]]
) -> None:
    install(host, isolated_env, project)
    result = mem_json(run_mem, project, "import", host)
    assert {(c["title"], c["kind"]) for c in offered(result)} == expected
    assert all(f"- **Imported**: from {host}, " in c["text"] for c in offered(result))
    assert skipped(result) == []


# Written by the real hosts (fixtures/hosts/real/README.md): what they write, mem reads.
REAL = HOSTS / "real"
REAL_SOURCES = {
    "claude-code": "~/.claude/projects/{slug}/memory/",
    "codex": "~/.codex/memories_v2/extensions/ad_hoc/notes/",
    "gemini": "~/.gemini/tmp/project/memory/",
    "serena": "",  # a project memory's path, or a global one's
}


def install_real(host: str, home: Path, project: Path) -> None:
    """What the real host wrote, copied to where it wrote it."""
    if host == "claude-code":
        shutil.copytree(REAL / "claude-code" / "memory", _claude_folder(home, project))
    elif host == "codex":
        shutil.copytree(REAL / "codex" / "memories_v2", home / ".codex" / "memories_v2")
    elif host == "serena":
        shutil.copytree(REAL / "serena" / "memories", project / ".serena" / "memories")
        shutil.copytree(REAL / "serena" / "global", home / ".serena" / "memories" / "global")
    else:
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "projects.json").write_text(
            json.dumps({"projects": {str(project.resolve()): "project"}}), encoding="utf-8"
        )
        shutil.copytree(REAL / "gemini" / "memory", home / ".gemini" / "tmp" / "project" / "memory")


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        (
            "claude-code",
            {
                (
                    "Integration tests must hit a real database, not mocks",
                    "lesson",
                    "feedback_integration_tests.md",
                ),
                (
                    "Merge freeze on main from 2026-12-15 for the 2026-12-18 release",
                    "decision",
                    "project_deploy_freeze.md",
                ),
                # Claude Code wrote this description as a double-quoted scalar with `\"`.
                (
                    'Pin image tags: never "latest" in deploy manifests',
                    "decision",
                    "reference_image_tags.md",
                ),
                (
                    "The user maintains the billing service and the invoicing jobs and reviews"
                    " every change to the payment provider integration before it ships",
                    "lesson",
                    "user_role.md",
                ),
            },
        ),
        (
            "codex",
            {
                (
                    "Integration tests use a real database",
                    "lesson",
                    "2026-12-07T18-40-00-integration-tests-real-database.md",
                ),
            },
        ),
        (
            "gemini",
            {
                (
                    "On this machine the local Postgres listens on port 5433, not 5432.",
                    "lesson",
                    "MEMORY.md:1",
                ),
                ("Local release checklist", "lesson", "release-checklist.md"),
            },
        ),
        (
            "serena",
            {
                ("Suggested commands", "lesson", "{root}/.serena/memories/suggested_commands.md"),
                ("Token refresh", "lesson", "{root}/.serena/memories/auth/token_refresh.md"),
                ("code style", "lesson", "~/.serena/memories/global/code_style.md"),
            },
        ),
    ],
)
def test_the_files_each_real_host_wrote_become_candidates_of_their_kind_with_their_source(
    run_mem: RunMem,
    project: Path,
    isolated_env: Path,
    host: str,
    expected: set[tuple[str, str, str]],
) -> None:
    install_real(host, isolated_env, project)
    result = mem_json(run_mem, project, "import", host)
    root = str(project.resolve())
    folder = REAL_SOURCES[host].format(slug=claude_slug(root))
    assert {(c["title"], c["kind"], c["source"]) for c in offered(result)} == {
        (title, kind, folder + name.format(root=root)) for title, kind, name in expected
    }
    assert skipped(result) == []
    for candidate in offered(result):
        line = f"- **Imported**: from {host}, {candidate['source']}, "
        last = candidate["text"].rsplit("\n", 1)[-1]
        assert last.startswith(line)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", last.removeprefix(line))
        # What the host added to the front matter (Claude Code's node_type and
        # originSessionId) is not the memory.
        assert "originSessionId" not in candidate["text"]
        assert "node_type" not in candidate["text"]


def test_the_real_hosts_files_accepted_then_imported_again_offer_nothing(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    for host in REAL_SOURCES:
        install_real(host, isolated_env, project)
    first = mem_json(run_mem, project, "import", "all")
    assert len(offered(first)) == 10
    [serena] = [host for host in first["hosts"] if host["host"] == "serena"]
    assert serena["left"] == [
        f"{project.resolve()}/.serena/memories/memory_maintenance.md:"
        " Serena's guidelines for its memories"
    ]
    # Codex's note restates Claude Code's memory in other words: offered as its amendment.
    amending = {c["title"]: (c["amends"] or {}).get("heading") for c in offered(first)}
    assert {title: near for title, near in amending.items() if near} == {
        "Integration tests use a real database": (
            "Integration tests must hit a real database, not mocks"
        )
    }
    accepted = mem_json(run_mem, project, "inbox", "accept", "--all")
    assert len(accepted["changed"]) == 10
    decisions = (project / ".agents/memory/decisions.md").read_text(encoding="utf-8")
    assert (
        "\n### 2026-10-18 — Merge freeze on main from 2026-12-15 for the 2026-12-18 release\n"
        in decisions
    )
    assert "**How to apply:** open pull requests against `release/2026-12`" in decisions
    again = mem_json(run_mem, project, "import", "all")
    assert offered(again) == []
    assert sum(host["duplicates"] for host in again["hosts"]) == 10


def test_serena_global_memories_follow_serena_home(
    run_mem: RunMem, project: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = isolated_env / "serena-home"
    shutil.copytree(REAL / "serena" / "global", elsewhere / "memories" / "global")
    monkeypatch.setenv("SERENA_HOME", str(elsewhere))
    result = mem_json(run_mem, project, "import", "serena")
    assert [c["source"] for c in offered(result)] == ["~/serena-home/memories/global/code_style.md"]


def test_codex_leaves_the_task_groups_of_other_folders(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    install("codex", isolated_env, project)
    result = mem_json(run_mem, project, "import", "codex")
    assert result["hosts"][0]["left"] == [
        "~/.codex/memories/MEMORY.md: 1 task groups of other folders"
    ]
    assert not any("starship" in c["text"] for c in offered(result))


def test_nothing_found_says_where_it_looked(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    done = run_mem("import", "all", "-d", str(project))
    assert done.returncode == 0
    slug = claude_slug(str(project.resolve()))
    assert (
        f"mem import: claude-code: no memories found; looked in ~/.claude/projects/{slug}/memory,"
        in done.stdout
    )
    assert (
        "mem import: codex: no memories found; looked in ~/.codex/memories,"
        " ~/.codex/memories_v2/extensions/ad_hoc/notes\n" in done.stdout
    )
    assert len(re.findall(r"no memories found", done.stdout)) == 5


def test_an_unknown_host_is_refused(run_mem: RunMem, project: Path) -> None:
    done = run_mem("import", "cursor", "-d", str(project))
    assert done.returncode == 1
    assert (
        "The host must be one of claude-code, codex, gemini, serena, vscode or all" in done.stderr
    )


def test_a_memory_with_a_secret_is_refused_and_never_reaches_the_inbox(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = install("serena", isolated_env, project)
    sample = SAMPLES["aws-access-key-id"]
    (folder / "deploy_keys.md").write_text(f"# Deploy keys\n\n{sample}\n", encoding="utf-8")
    result = mem_json(run_mem, project, "import", "serena")
    assert len(offered(result)) == 2
    (line,) = skipped(result)
    assert "deploy_keys.md: skipped, a possible secret (aws-access-key-id)" in line
    assert not leaks(Path(result["inbox"]).read_text(encoding="utf-8"), "aws-access-key-id")


def test_exact_duplicates_are_skipped_and_near_ones_offered_as_amendments(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = install("vscode", isolated_env, project)
    conventions = (folder / "conventions.md").read_text(encoding="utf-8")
    (folder / "copy.md").write_text(conventions, encoding="utf-8")
    (folder / "amended.md").write_text(
        conventions.replace("an example.", "an example and its type hints."), encoding="utf-8"
    )
    result = mem_json(run_mem, project, "import", "vscode")
    first, second = offered(result)
    assert result["hosts"][0]["duplicates"] == 1
    assert second["amends"]["id"] == first["id"] or first["amends"]["id"] == second["id"]


# ---- bad input: one clear line per file skipped, nothing lost, no traceback


def test_each_bad_file_is_one_line_and_the_good_ones_are_still_offered(
    run_mem: RunMem, project: Path, isolated_env: Path, tmp_path: Path
) -> None:
    folder = install("claude-code", isolated_env, project)
    (folder / "listy.md").write_text("---\nname: x\ntags:\n  - a\n---\nbody\n", "utf-8")
    (folder / "open.md").write_text("---\nname: x\nbody\n", "utf-8")
    (folder / "latin1.md").write_bytes(b"# Caf\xe9\n")
    with open(folder / "huge.md", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\nnot a memory of this host\n", encoding="utf-8")
    (folder / "link.md").symlink_to(outside)
    os.mkfifo(folder / "pipe.md")
    done = run_mem("import", "claude-code", "-d", str(project))
    assert done.returncode == 0 and done.stderr == ""
    lines = [line for line in done.stdout.splitlines() if ": skipped, " in line]
    shown = f"~/.claude/projects/{claude_slug(str(project.resolve()))}/memory"
    assert sorted(lines) == sorted(
        [
            f"mem import: claude-code: {shown}/listy.md: skipped, front matter line 4 is not a"
            " plain `key: value`",
            f"mem import: claude-code: {shown}/open.md: skipped, its front matter has no"
            " closing `---`",
            f"mem import: claude-code: {shown}/latin1.md: skipped, not UTF-8 (byte 5)",
            f"mem import: claude-code: {shown}/huge.md: skipped, 52428800 bytes (a memory is at"
            " most 1048576)",
            f"mem import: claude-code: {shown}/link.md: skipped, a link out of {shown}",
            f"mem import: claude-code: {shown}/pipe.md: skipped, Not a regular file",
        ]
    )
    assert "offered 4, 0 already known, 6 skipped" in done.stdout
    assert (folder / "latin1.md").read_bytes() == b"# Caf\xe9\n"  # nothing lost


def test_a_folder_of_ten_thousand_memories_is_read_whole(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = _claude_folder(isolated_env, project)
    folder.mkdir(parents=True)
    for number in range(10_000):
        (folder / f"m{number:05}.md").write_text(
            f"---\nname: m{number}\ndescription: Rule {number} of the queue\ntype: feedback\n"
            f"---\nThe queue's rule {number} holds {hashlib.md5(bytes(number)).hexdigest()}\n",
            encoding="utf-8",
        )
    (folder / "m00007.md").write_bytes(b"\xff\xfe")
    result = mem_json(run_mem, project, "import", "claude-code", "--dry-run")
    assert len(offered(result)) == 9_999
    assert skipped(result) == [
        f"~/.claude/projects/{claude_slug(str(project.resolve()))}/memory/m00007.md: skipped,"
        " not UTF-8 (byte 0)"
    ]


# ---- the property: import, accept all, import again offers nothing

_line = st.text(
    st.characters(codec="utf-8", exclude_characters="\r\x1c\x1d\x1e\x85\u2028\u2029"),
    min_size=1,
    max_size=60,
).filter(lambda text: text.strip() and "\n" not in text)
_memory = st.tuples(
    _line,
    st.sampled_from(["user", "feedback", "project", "reference"]),
    st.lists(_line, max_size=4),
)


@settings(max_examples=8, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(memories=st.lists(_memory, min_size=1, max_size=6))
def test_import_accept_all_then_import_again_offers_nothing(
    run_mem: RunMem, tmp_path_factory: pytest.TempPathFactory, memories: list[Any]
) -> None:
    home = Path(os.environ["HOME"])
    project = tmp_path_factory.mktemp("project")
    folder = _claude_folder(home, project)
    folder.mkdir(parents=True)
    for number, (description, kind, lines) in enumerate(memories):
        quoted = json.dumps(description) if '"' not in description[1:-1] else description
        (folder / f"m{number}.md").write_text(
            f"---\nname: m{number}\ndescription: {quoted}\ntype: {kind}\n---\n"
            + "\n".join(lines)
            + "\n",
            encoding="utf-8",
        )
    first = mem_json(run_mem, project, "import", "claude-code")
    mem_json(run_mem, project, "inbox", "accept", "--all")
    again = mem_json(run_mem, project, "import", "claude-code")
    assert offered(again) == []
    assert skipped(again) == skipped(first)
    assert mem_json(run_mem, project, "inbox", "list")["candidates"] == []


def test_inbox_alone_lists_and_show_prints_the_note_it_would_write(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    install("vscode", isolated_env, project)
    (candidate,) = offered(mem_json(run_mem, project, "import", "vscode"))
    listed = run_mem("inbox", "-d", str(project))
    assert listed.stdout.startswith(f"{candidate['id']}  lesson  Repository conventions\n")
    shown = run_mem("inbox", "show", candidate["id"], "-d", str(project))
    assert (
        "### Repository conventions\n- Branch names are `type/short-description`." in shown.stdout
    )
    assert "- **Imported**: from vscode, ~/.config/Code/User/workspaceStorage/" in shown.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("accept",), "Give the candidates' ids (mem inbox list) or --all."),
        (("accept", "imp_0000000000000000"), "No candidate imp_0000000000000000 in this"),
        (("reject", "imp_0000000000000000", "--all"), "Give candidate ids or --all, not both."),
    ],
)
def test_inbox_decisions_name_what_is_wrong(
    run_mem: RunMem, project: Path, args: tuple[str, ...], message: str
) -> None:
    done = run_mem("inbox", *args, "--json", "-d", str(project))
    assert done.returncode == 1
    assert message in json.loads(done.stdout)["error"]


def test_a_note_that_would_pass_2_mib_stays_in_the_inbox(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = _claude_folder(isolated_env, project)
    folder.mkdir(parents=True)
    for number in range(300):
        (folder / f"m{number:03}.md").write_text(
            f"---\nname: m{number}\ndescription: Lesson {number}\ntype: feedback\n---\n"
            + f"{number} "
            + "word " * 1500,
            encoding="utf-8",
        )
    mem_json(run_mem, project, "import", "claude-code")
    accepted = mem_json(run_mem, project, "inbox", "accept", "--all")
    assert accepted["changed"] and accepted["kept"]
    assert {c["why"] for c in accepted["kept"]} == {
        ".agents/memory/lessons.md would grow past 2 MiB"
    }
    lessons = project / ".agents/memory/lessons.md"
    assert lessons.stat().st_size <= 2 * 1024 * 1024
    waiting = mem_json(run_mem, project, "inbox", "list")["candidates"]
    assert len(waiting) == len(accepted["kept"])


def test_a_secret_let_through_on_import_must_be_let_through_on_accept_too(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = install("vscode", isolated_env, project)
    sample = SAMPLES["aws-access-key-id"]
    (folder / "keys.md").write_text(f"# Test keys\n\n{sample}\n", encoding="utf-8")
    args = ("--allow-secret", "aws-access-key-id")
    result = mem_json(run_mem, project, "import", "vscode", *args)
    keys = next(c for c in offered(result) if c["title"] == "Test keys")
    refused = run_mem("inbox", "accept", keys["id"], "-d", str(project))
    assert refused.returncode == 1
    assert f"nothing was written: candidate {keys['id']} line 2 " in refused.stderr
    assert "repeat with --allow-secret aws-access-key-id" in refused.stderr
    accepted = mem_json(run_mem, project, "inbox", "accept", keys["id"], *args)
    assert [c["id"] for c in accepted["changed"]] == [keys["id"]]


def test_an_index_line_linking_to_a_missing_file_is_said(
    run_mem: RunMem, project: Path, isolated_env: Path
) -> None:
    folder = install("claude-code", isolated_env, project)
    (folder / "user_role.md").unlink()
    result = mem_json(run_mem, project, "import", "claude-code")
    shown = f"~/.claude/projects/{claude_slug(str(project.resolve()))}/memory"
    assert skipped(result) == [
        f"{shown}/MEMORY.md: links to user_role.md, which is not in the folder"
    ]
    assert len(offered(result)) == 3
