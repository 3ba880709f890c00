"""Project and portfolio memory through the real `mem` entry point (portfolio.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import FakeTerminal, RunMem
from support.secret_samples import SECRETS, leaks
from support.trees import tree

from mem.commands import archive, handoff, scan
from mem.domain import project_entries
from mem.files import brain

NOW = "2026-10-18T09:30:00.000Z"


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr + done.stdout
    return done


# ---- brain detection and init


def test_detection_order(
    tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolated_env
    project = tmp_path / "portfolio" / "apps" / "shop"
    project.mkdir(parents=True)
    assert brain.detect_brain(str(project)) is None

    claude = home / ".claude" / "memory"
    claude.mkdir(parents=True)
    assert brain.detect_brain(str(project)) is None  # an empty ~/.claude/memory does not count
    (claude / "notes.md").write_text("x")
    assert brain.detect_brain(str(project)) == (str(claude), "claude-memory")

    global_brain = home / ".bmad-plus" / "brain"
    global_brain.mkdir(parents=True)
    assert brain.detect_brain(str(project)) == (str(global_brain), "bmad-global")

    (tmp_path / "portfolio" / "apps" / "_brain").write_text("a file named _brain is ignored")
    (tmp_path / "portfolio" / "_brain").mkdir()
    assert brain.detect_brain(str(project)) == (str(tmp_path / "portfolio" / "_brain"), "portfolio")

    monkeypatch.setenv("BMAD_PLUS_BRAIN", str(tmp_path / "missing"))
    detection = brain.brain_detection(str(project))
    assert detection.found == (str(tmp_path / "portfolio" / "_brain"), "portfolio")
    assert detection.warnings == [
        f"BMAD_PLUS_BRAIN is set but is not a directory: {tmp_path / 'missing'}"
        " — falling back to auto-detection"
    ]
    explicit = tmp_path / "team-brain"
    explicit.mkdir()
    monkeypatch.setenv("BMAD_PLUS_BRAIN", str(explicit))
    assert brain.detect_brain(str(project)) == (str(explicit), "portfolio")


def test_init_without_a_brain_creates_the_global_one(
    tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    done = ok(run_mem("init", "--json", cwd=project))
    result = json.loads(done.stdout)
    global_brain = isolated_env / ".bmad-plus" / "brain"
    assert result["brain"] == {
        "linked_brain": str(global_brain),
        "brain_type": "bmad-global",
        "linked_at": NOW,
    }
    link = (project / ".agents/memory/.brain-link").read_text()
    assert json.loads(link) == result["brain"]
    assert link.startswith('{\n  "linked_brain": ')
    for name in ("identity.yaml", "decisions.md", "lessons.md", "patterns.md"):
        assert (global_brain / name).is_file()
    for name in ("decisions.md", "lessons.md", "patterns.md", "context.md"):
        assert (project / ".agents/memory" / name).is_file()
    assert (project / ".agents/memory/sessions").is_dir()
    decisions = (project / ".agents/memory/decisions.md").read_text()
    for field in ("Context", "Decision", "Rationale", "Consequences", "Status"):
        assert f"**{field}**" in decisions
    entry = (
        global_brain / "projects" / f"{project_entries.project_hash(str(project))}.yaml"
    ).read_text()
    assert entry.split("\n")[:2] == [f'path: "{project}"', 'name: "shop"']
    assert not entry.endswith("\n")
    # The templates' example entries are not memories: nothing to recall, nothing counted.
    assert "0 entries" in ok(run_mem("status", cwd=project)).stdout


@pytest.mark.parametrize("kind", ["env", "portfolio", "claude"])
def test_init_links_a_found_brain_without_touching_it(
    kind: str, tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    env = {}
    if kind == "env":
        found = tmp_path / "elsewhere"
        env["BMAD_PLUS_BRAIN"] = str(found)
    elif kind == "portfolio":
        found = tmp_path / "work" / "_brain"
    else:
        found = isolated_env / ".claude" / "memory"
    found.mkdir(parents=True)
    (found / "README.md").write_text("my layout\n")
    before = tree(found)
    ok(run_mem("init", cwd=project, env=env))
    link = json.loads((project / ".agents/memory/.brain-link").read_text())
    expected_type = "claude-memory" if kind == "claude" else "portfolio"
    assert (link["linked_brain"], link["brain_type"]) == (str(found), expected_type)
    assert tree(found) == before
    assert sorted(os.listdir(found)) == ["README.md"]
    assert not (isolated_env / ".bmad-plus").exists()


def test_reinit_changes_only_linked_at_and_overwrites_nothing(
    tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    project = tmp_path / "shop"
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("# mine\n\n### 2026-01-01 — Keep me\nbody\n")
    (memory / "context.md").write_text("my context\n")
    global_brain = isolated_env / ".bmad-plus" / "brain"
    global_brain.mkdir(parents=True)
    (global_brain / "identity.yaml").write_text("name: me\n")
    (global_brain / "lessons.md").write_text("### mine\n")
    before = tree(project, global_brain)

    ok(run_mem("init", cwd=project))
    after_first = tree(project, global_brain)
    for path, digest in before.items():
        assert after_first[path] == digest, f"{path} was overwritten"

    ok(run_mem("init", cwd=project, env={"MEM_NOW": "2026-10-19T10:00:00.000Z"}))
    after_second = tree(project, global_brain)
    changed = sorted(path for path in after_second if after_second[path] != after_first.get(path))
    assert changed == [str(memory / ".brain-link")]
    assert (
        json.loads((memory / ".brain-link").read_text())["linked_at"] == "2026-10-19T10:00:00.000Z"
    )


def test_read_only_home_is_a_warning(tmp_path: Path, run_mem: RunMem) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    home = blocker / "home"  # nothing can be created below a file, not even by root
    project = tmp_path / "shop"
    project.mkdir()
    done = ok(run_mem("init", cwd=project, env={"HOME": str(home)}))
    assert "mem init: warning: Cannot create the global brain" in done.stderr
    assert (project / ".agents/memory/decisions.md").is_file()
    assert not (project / ".agents/memory/.brain-link").exists()


# ---- status


def test_status_health_percentages(tmp_path: Path, isolated_env: Path, run_mem: RunMem) -> None:
    project = tmp_path / "shop"
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("### a\n### b\n#### not counted\n###c\n")
    (memory / "lessons.md").write_text("")
    result = json.loads(ok(run_mem("status", "--json", cwd=project)).stdout)
    assert result["health"] == {"passed": 2, "total": 5, "percent": 40}
    assert result["project"]["files"][0]["entries"] == 2
    assert result["globalBrain"]["installed"] is False

    brain_dir = isolated_env / ".bmad-plus" / "brain"
    brain_dir.mkdir(parents=True)
    (brain_dir / "identity.yaml").write_text("")
    result = json.loads(ok(run_mem("status", "--json", cwd=project)).stdout)
    assert result["health"] == {"passed": 3, "total": 10, "percent": 30}

    ok(run_mem("init", cwd=project))
    done = ok(run_mem("status", cwd=project))
    assert "🏥 Health: 90% (9/10 checks)" in done.stdout  # no handoff yet
    ok(run_mem("handoff", "--topic", "first", "--stdin", cwd=project, input="done\n"))
    result = json.loads(ok(run_mem("status", "--json", cwd=project)).stdout)
    assert result["health"] == {"passed": 10, "total": 10, "percent": 100}
    assert result["lock"] == {"state": "free"}
    assert result["receipts"] == {"count": 0, "limit": 1000}
    assert result["index"]["state"] in ("missing", "fresh", "stale")


def test_status_without_anything_has_no_health_line(tmp_path: Path, run_mem: RunMem) -> None:
    done = ok(run_mem("status", cwd=tmp_path))
    assert "Health" not in done.stdout
    assert "Not installed. Run: mem init" in done.stdout


def test_status_rounds_like_math_round() -> None:
    from mem.commands import status

    project = {
        "installed": True,
        "files": [{"exists": True}, {"exists": True}, {"exists": False}],
        "context": {"exists": False},
        "sessions": 0,
    }
    global_ = {
        "installed": True,
        "identity": True,
        "files": [{"exists": True}] * 3,
        "projectsDir": False,
    }
    assert status.health(project, global_) == {"passed": 6, "total": 10, "percent": 60}
    project["sessions"] = 1
    assert status.health(project, {"installed": False}) == {"passed": 3, "total": 5, "percent": 60}
    global_["projectsDir"] = True
    project["context"] = {"exists": True}
    # 9 of 10... and 5/8 = 62.5 rounds half up, as Math.round does
    assert (
        status.health(
            {
                "installed": True,
                "files": [{"exists": True}] * 3,
                "context": {"exists": False},
                "sessions": 0,
            },
            {
                "installed": True,
                "identity": False,
                "files": [{"exists": True}] * 3,
                "projectsDir": False,
            },
        )["percent"]
        == 60
    )
    assert status.count_entries("### a\n### b\n##### c\n ### d\n###e") == 2


# ---- scan


def make_tree(base: Path) -> None:
    def package(path: Path, **dependencies: str) -> None:
        path.mkdir(parents=True)
        (path / "package.json").write_text(
            json.dumps({"name": path.name, "dependencies": dependencies})
        )

    package(base / "web", react="18")
    (base / "tools" / "etl").mkdir(parents=True)
    (base / "tools" / "etl" / "pyproject.toml").write_text("[project]\n")
    (base / "tools" / "engine").mkdir(parents=True)
    (base / "tools" / "engine" / "Cargo.toml").write_text("[package]\n")
    package(base / "api", express="4")
    (base / "api" / ".agents").mkdir()
    package(base / "apps" / "site", next="14", react="18")
    (base / "notes" / "drafts").mkdir(parents=True)
    (base / "notes" / "drafts" / "idea.txt").write_text("no marker here")
    package(base / "node_modules" / "fake-pkg", react="18")


def test_scan_finds_exactly_the_projects(tmp_path: Path, run_mem: RunMem) -> None:
    base = tmp_path / "dev"
    make_tree(base)
    result = json.loads(ok(run_mem("scan", str(base), "--depth", "2", "--json")).stdout)
    found = {Path(p["path"]).relative_to(base).as_posix(): p["stack"] for p in result["projects"]}
    assert found == {
        "api": "Express",
        "apps/site": "Next.js",
        "tools/engine": "Rust",
        "tools/etl": "Python",
        "web": "React",
    }
    api = next(p for p in result["projects"] if p["name"] == "api")
    assert api["bmad"] is True and api["status"] in ("active", "paused", "archived")
    assert result["indexed"] == 0

    result = json.loads(ok(run_mem("scan", str(base), "--depth", "1", "--json")).stdout)
    assert sorted(p["name"] for p in result["projects"]) == ["api", "web"]
    done = ok(run_mem("scan", str(base), "--depth", "0"))
    assert "No projects found." in done.stdout


def test_scan_without_yes_writes_nothing_and_with_yes_indexes(
    tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    base = tmp_path / "dev"
    make_tree(base)
    done = ok(run_mem("scan", "-d", str(base), "--depth", "2"))
    assert "Found 5 project(s)" in done.stdout
    assert "Nothing was written" in done.stdout
    assert not (isolated_env / ".bmad-plus").exists()

    done = ok(run_mem("scan", str(base), "--depth", "2", "--yes"))
    projects = isolated_env / ".bmad-plus" / "brain" / "projects"
    assert len(list(projects.glob("*.yaml"))) == 5
    web = (projects / f"{project_entries.project_hash(str(base / 'web'))}.yaml").read_text()
    assert web.split("\n") == [
        f'path: "{base / "web"}"',
        'name: "web"',
        f'hash: "{project_entries.project_hash(str(base / "web"))}"',
        'stack: "React"',
        'status: "active"',
        "bmad_installed: false",
        "has_git: false",
        'last_scanned: "2026-10-18"',
    ]
    index = (isolated_env / ".bmad-plus" / "brain" / "projects-index.md").read_text()
    lines = index.split("\n")
    assert lines[:12] == [
        "---",
        "title: Project Index",
        'last_updated: "2026-10-18"',
        "total_projects: 5",
        "---",
        "",
        "# Project Index",
        "",
        "> Auto-generated by `npx bmad-plus scan` — 2026-10-18",
        "",
        "| Status | Name | Stack | BMAD+ | Path |",
        "|--------|------|-------|-------|------|",
    ]
    assert f"| active | api | Express | ✓ | `{base / 'api'}` |" in lines
    assert index.endswith("|\n")


@pytest.mark.parametrize("where", ["folder", "package.json"])
def test_scan_yes_refuses_a_project_name_holding_a_secret_and_writes_nothing(
    where: str, tmp_path: Path, isolated_env: Path, run_mem: RunMem
) -> None:
    secret = SECRETS["github-token"]
    base = tmp_path / "dev"
    make_tree(base)
    if where == "folder":
        (base / secret).mkdir()
        (base / secret / "pyproject.toml").write_text("", encoding="utf-8")
    else:
        (base / "leaky").mkdir()
        package = json.dumps({"name": secret})
        (base / "leaky" / "package.json").write_text(package, encoding="utf-8")
    (tmp_path / "team").mkdir()
    for flags in (["--yes"], ["--register", "--brain", str(tmp_path / "team")]):
        done = run_mem("scan", str(base), "--depth", "2", *flags)
        assert done.returncode == 1, done.stdout
        assert done.stderr.startswith("mem scan: Possible secret, nothing was written: the ")
        assert "GitHub" in done.stderr and "--allow-secret github-token" in done.stderr
        assert not leaks(done.stdout + done.stderr, "github-token")
    assert not (isolated_env / ".bmad-plus").exists()
    assert list((tmp_path / "team").iterdir()) == []
    # A false positive passes with the writers' flag, for this call only.
    ok(run_mem("scan", str(base), "--depth", "2", "--yes", "--allow-secret", "github-token"))
    projects = isolated_env / ".bmad-plus" / "brain" / "projects"
    assert len(list(projects.glob("*.yaml"))) == 6


def test_scan_statuses_follow_the_thresholds() -> None:
    options = scan.Options(4, 30, 180)
    now = 1_000 * scan.DAY_MS
    assert scan.status_for(now - 29 * scan.DAY_MS, now, options) == "active"
    assert scan.status_for(now - 30 * scan.DAY_MS, now, options) == "paused"
    assert scan.status_for(now - 179 * scan.DAY_MS, now, options) == "paused"
    assert scan.status_for(now - 180 * scan.DAY_MS, now, options) == "archived"
    assert scan.status_for(None, now, options) == "unknown"
    assert scan.package_stack("{not json") == ("Node.js", None)
    assert scan.package_stack('{"devDependencies": {"vue": "3"}}') == ("Vue.js", None)


@pytest.mark.parametrize(
    ("option", "value", "kind"),
    [
        ("--depth", "-1", "an integer of at least 0"),
        ("--depth", "abc", "an integer of at least 0"),
        ("--active-days", "0", "a positive integer"),
        ("--active-days", "-3", "a positive integer"),
        ("--paused-days", "1.5", "a positive integer"),
    ],
)
def test_scan_refuses_invalid_numbers(
    option: str, value: str, kind: str, tmp_path: Path, run_mem: RunMem
) -> None:
    done = run_mem("scan", str(tmp_path), option, value)
    assert done.returncode == 1
    assert done.stderr == f'mem scan: {option} must be {kind} (got "{value}")\n'


def test_scan_missing_directory(tmp_path: Path, run_mem: RunMem) -> None:
    done = run_mem("scan", str(tmp_path / "nope"), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"error": f"Directory not found: {tmp_path / 'nope'}"}


# ---- handoff, export


def test_handoff_never_overwrites(project: Path, run_mem: RunMem) -> None:
    source = project / "notes.md"
    source.write_text("# Handoff\nDone: pooling.\n")
    first = json.loads(
        ok(
            run_mem(
                "handoff",
                "--topic",
                "Pooling & Redis!",
                "--from",
                "notes.md",
                "--json",
                cwd=project,
            )
        ).stdout
    )
    second = json.loads(
        ok(
            run_mem(
                "handoff",
                "--topic",
                "pooling redis",
                "--stdin",
                "--json",
                cwd=project,
                input="again",
            )
        ).stdout
    )
    assert first["file"] == ".agents/memory/sessions/2026-10-18-pooling-redis.md"
    assert second["file"] == ".agents/memory/sessions/2026-10-18-pooling-redis-2.md"
    assert (project / first["file"]).read_text() == "# Handoff\nDone: pooling.\n"
    assert (project / second["file"]).read_text() == "again\n"
    for args, message in [
        (("--topic", "x"), "Give exactly one of --from FILE or --stdin."),
        (("--topic", "x", "--from", "missing.md"), "Cannot read missing.md: no such file."),
        (("--topic", "!!!", "--stdin"), "--topic must contain at least one letter or digit."),
        (("--topic", "x", "--stdin"), "The handoff text is empty; nothing was written."),
    ]:
        done = run_mem("handoff", *args, cwd=project, input="  \n")
        assert (done.returncode, done.stderr) == (1, f"mem handoff: {message}\n")


def test_export_refuses_to_overwrite(project: Path, isolated_env: Path, run_mem: RunMem) -> None:
    done = run_mem("export", cwd=project)
    assert (done.returncode, done.stderr) == (
        1,
        "mem export: Global brain not found. Nothing to export.\n",
    )
    ok(run_mem("init", cwd=project))
    ok(run_mem("scan", str(project.parent), "--depth", "1", "--yes"))
    done = ok(run_mem("export", cwd=project))
    path = project / "bmad-brain-export-2026-10-18.md"
    assert done.stdout == f"📦 Brain exported to: {path}\n"
    text = path.read_text()
    assert text.startswith(f"# BMAD+ Brain Export\n> Exported: {NOW}\n\n## identity.yaml\n```\n")
    assert "## Projects\n\n### " in text and "```yaml\n" in text
    path.write_text("edited by hand")
    done = run_mem("export", cwd=project)
    assert done.returncode == 1 and "already exists; pass --force" in done.stderr
    assert path.read_text() == "edited by hand"
    ok(run_mem("export", "--force", cwd=project))
    assert path.read_text() == text


# ---- consolidate and promote


def test_consolidate_and_promote(tmp_path: Path, isolated_env: Path, run_mem: RunMem) -> None:
    shop = tmp_path / "shop"
    blog = tmp_path / "blog"
    for project in (shop, blog):
        (project / ".agents" / "memory").mkdir(parents=True)
        (project / ".agents/memory/lessons.md").write_text(
            "### Webhooks need idempotency keys\nStore the event id first.\n"
        )
        ok(run_mem("init", cwd=project))
    (shop / ".agents/memory/decisions.md").write_text(
        "### 2026-01-05 — Use postgres\n- **Status**: active\n\n"
        "### 2026-01-06 — Old cache\n- **Status**: superseded\n\n"
        "### 2026-10-01 — Recent\n- **Status**: active\n\n"
        "### Use postgres\n- **Status**: active\n\n"
        "### use   POSTGRES\n- **Status**: active\n"
    )
    before = tree(shop, blog, isolated_env / ".bmad-plus")
    result = json.loads(ok(run_mem("consolidate", "--json", cwd=shop)).stdout)
    assert tree(shop, blog, isolated_env / ".bmad-plus") == before
    assert result["counts"] == {"duplicate": 2, "stale-decision": 1, "promotion-candidate": 1}
    kinds = {f["kind"]: f for f in result["findings"]}
    assert kinds["stale-decision"]["memory"]["heading"] == "2026-01-05 — Use postgres"
    assert kinds["stale-decision"]["ageDays"] == 286
    candidate = kinds["promotion-candidate"]
    assert candidate["projects"] == [str(blog)]
    memory_id = candidate["memory"]["id"]
    assert candidate["proposal"] == f"mem promote {memory_id} --approve --by NAME"
    again = json.loads(ok(run_mem("consolidate", "--json", cwd=shop)).stdout)
    assert [f["id"] for f in again["findings"]] == [f["id"] for f in result["findings"]]

    lessons = isolated_env / ".bmad-plus" / "brain" / "lessons.md"
    before_brain = lessons.read_text()
    shown = ok(run_mem("promote", memory_id, cwd=shop))
    assert "Nothing was written" in shown.stdout and lessons.read_text() == before_brain
    done = run_mem("promote", memory_id, "--approve", cwd=shop)
    assert (done.returncode, done.stderr) == (
        1,
        "mem promote: --approve requires --by NAME (who approved the promotion).\n",
    )
    promoted = json.loads(
        ok(run_mem("promote", memory_id, "--approve", "--by", "alice", "--json", cwd=shop)).stdout
    )
    assert lessons.read_text() == (
        before_brain
        + "\n### Webhooks need idempotency keys\nStore the event id first.\n"
        + "\nPromoted from shop on 2026-10-18\n"
    )
    record = json.loads((shop / ".bmad/memory/promotions.ndjson").read_text())
    assert record == promoted["promotion"]
    assert (record["status"], record["approvedBy"], record["memoryId"]) == (
        "APPLIED",
        "alice",
        memory_id,
    )
    assert "Webhooks need idempotency keys" in (shop / ".agents/memory/lessons.md").read_text()
    done = run_mem("promote", memory_id, "--approve", "--by", "alice", cwd=shop)
    assert done.returncode == 1 and "already promoted" in done.stderr
    done = run_mem("promote", "mem_00000000000000000000", cwd=shop, env={})
    assert (done.returncode, done.stderr) == (
        1,
        "mem promote: Unknown memory id: mem_00000000000000000000\n",
    )


# ---- archive and recall --include-archive


def test_archive_unblocks_a_full_journal(project: Path, run_mem: RunMem) -> None:
    journal = project / ".bmad/memory/journal.ndjson"
    event = json.loads(journal.read_text().split("\n")[0])
    filler = journal.read_text()
    number = 0
    # Distinct lines: the same line twice is one event (deviation D11).
    while len(filler) < 2 * 1024 * 1024 - 400:
        task = f"zebra crossing {number}"
        filler += json.dumps({**event, "task": task}, separators=(",", ":")) + "\n"
        number += 1
    padding = 2 * 1024 * 1024 - 10 - len(filler) - len('{"pad":""}\n')
    filler += '{"pad":"' + "p" * padding + '"}\n'
    journal.write_text(filler)
    done = run_mem("write", "--agent", "forge", "--task", "more", cwd=project)
    assert (done.returncode, done.stderr) == (
        1,
        "mem write: Memory store is full; archive it explicitly before adding records.\n",
    )
    plan = json.loads(ok(run_mem("archive", "journal", "--json", cwd=project)).stdout)
    assert plan["approved"] is False and journal.read_text() == filler
    assert (
        plan["archive"]
        == ".bmad/memory/archive/journal-2026-10-01T080000.000Z--2026-10-01T080000.000Z.ndjson"
    )
    done = ok(run_mem("archive", "journal", "--approve", "--json", cwd=project))
    archived = project / json.loads(done.stdout)["archive"]
    assert archived.read_text() == filler
    assert journal.read_text() == ""
    ok(run_mem("write", "--agent", "forge", "--task", "zebra after archive", cwd=project))

    plain = json.loads(ok(run_mem("recall", "zebra", "--json", cwd=project)).stdout)
    assert [r["source"] for r in plain["results"]] == ["journal.ndjson"]
    wide = json.loads(
        ok(
            run_mem("recall", "zebra", "--include-archive", "--limit", "3", "--json", cwd=project)
        ).stdout
    )
    assert [r["source"] for r in wide["results"]] == [
        "journal.ndjson",
        archived.name,
        archived.name,
    ]
    ok(run_mem("index", "check", cwd=project))

    # A second archive of the same span gets a new name; nothing is ever replaced.
    journal.write_text(filler)
    second = json.loads(
        ok(run_mem("archive", "journal", "--approve", "--json", cwd=project)).stdout
    )
    assert second["archive"] == json.loads(done.stdout)["archive"].replace(".ndjson", "-2.ndjson")
    assert archived.read_text() == filler


def test_archive_refuses_an_empty_store(project: Path, run_mem: RunMem) -> None:
    done = run_mem("archive", "outcomes", "--approve", cwd=project)
    assert (done.returncode, done.stderr) == (
        1,
        "mem archive: .bmad/memory/outcomes.ndjson is empty; there is nothing to archive.\n",
    )
    assert run_mem("archive", "bogus", cwd=project).returncode == 1


def test_archive_names() -> None:
    content = '{"ts":"2026-01-02T03:04:05.000Z"}\ntorn\n{"observedAt":"2026-02-01T00:00:00.000Z"}\n'
    times = archive.record_times(content)
    assert times == ["2026-01-02T03:04:05.000Z", "2026-02-01T00:00:00.000Z"]
    assert archive.archive_name("outcomes", times, NOW) == (
        "outcomes-2026-01-02T030405.000Z--2026-02-01T000000.000Z.ndjson"
    )
    assert handoff.slug("Über die Brücke: Teil 2") == "uber-die-brucke-teil-2"


# ---- unlock


def write_lock(project: Path, pid: int) -> Path:
    import socket

    lock = project / ".bmad/memory/writer.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(json.dumps({"pid": pid, "hostname": socket.gethostname(), "token": "t"}))
    return lock


def test_unlock_refuses_a_live_owner(project: Path, run_mem: RunMem) -> None:
    lock = write_lock(project, os.getpid())
    before = lock.read_bytes()
    done = run_mem("unlock", cwd=project)
    assert done.returncode == 1
    assert f"owner pid {os.getpid()}" in done.stderr and "alive" in done.stderr
    assert lock.read_bytes() == before


def test_unlock_clears_a_dead_owner(project: Path, run_mem: RunMem) -> None:
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    lock = write_lock(project, int(child.stdout))
    done = run_mem("write", "--agent", "forge", "--task", "blocked", cwd=project)
    assert done.returncode == 1 and "`mem unlock` can remove it." in done.stderr
    result = json.loads(ok(run_mem("unlock", "--json", cwd=project)).stdout)
    assert result["removed"] is True and result["owner"]["alive"] is False
    assert not lock.exists()
    ok(run_mem("write", "--agent", "forge", "--task", "unblocked", cwd=project))
    assert (
        ok(run_mem("unlock", cwd=project)).stdout
        == "mem unlock: writer.lock is free; nothing to do.\n"
    )


def test_unlock_refuses_an_unreadable_or_foreign_owner(project: Path, run_mem: RunMem) -> None:
    lock = project / ".bmad/memory/writer.lock"
    lock.write_text('{"pid":1,"hostname":"another-host","token":"t"}')
    done = run_mem("unlock", cwd=project)
    assert done.returncode == 1 and "another-host" in done.stderr and lock.exists()
    lock.write_text("garbage")
    assert run_mem("unlock", cwd=project).returncode == 1 and lock.exists()


# ---- index check and rebuild


def test_index_check_after_commands_and_after_tampering(project: Path, run_mem: RunMem) -> None:
    ok(run_mem("init", cwd=project))
    ok(run_mem("write", "--agent", "forge", "--task", "pooling", cwd=project))
    ok(run_mem("recall", "postgres", cwd=project))
    with (project / ".agents/memory/lessons.md").open("a") as handle:
        handle.write("\n### New lesson\nabout postgres\n")
    ok(run_mem("handoff", "--topic", "t", "--stdin", cwd=project, input="x"))
    ok(run_mem("archive", "journal", "--approve", cwd=project))
    ok(run_mem("write", "--agent", "forge", "--task", "after", cwd=project))
    done = ok(run_mem("index", "check", cwd=project))
    assert done.stdout.startswith("mem index check: ok, ")

    path = ok(run_mem("index", "path", cwd=project)).stdout.strip()
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("UPDATE records SET text = 'forged' WHERE kind = 'note' AND ref = 'New lesson'")
    conn.commit()
    conn.close()
    done = run_mem("index", "check", cwd=project)
    assert done.returncode == 1
    assert "the index differs from a fresh build (2 difference(s))" in done.stdout
    assert (
        "records: unexpected ('.agents/memory/lessons.md', 4, 'note', 'New lesson', 'forged'"
        in done.stdout
    )
    result = json.loads(run_mem("index", "check", "--json", cwd=project).stdout)
    assert result["ok"] is False and result["differenceCount"] == 2

    rebuilt = json.loads(ok(run_mem("index", "rebuild", "--json", cwd=project)).stdout)
    assert rebuilt["path"] == path
    ok(run_mem("index", "check", cwd=project))


# ---- progress


@pytest.mark.parametrize("tty", [True, False])
def test_progress_only_after_a_second_on_a_terminal(
    tty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem.cli import progress

    clock = iter([0.0, 0.5, 1.5, 1.55, 2.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    stream = FakeTerminal(tty)
    with progress.Progress("scanning", stream) as shown:  # type: ignore[arg-type]
        shown.update("/a")  # 0.5 s: too early
        assert stream.text == ""
        shown.update("/b")  # 1.5 s: shown
        shown.update("/c")  # 1.55 s: within the refresh interval
        shown.update("/d")  # 2.0 s
    if tty:
        assert stream.text == (
            "\r\033[Kscanning: 2 folder(s), /b\r\033[Kscanning: 4 folder(s), /d\r\033[K"
        )
    else:
        assert stream.text == ""


# ---- the index stays a faithful cache whatever the sequence of commands


OPERATIONS = ["write", "note", "rewrite", "remove", "archive", "recall", "handoff"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=8))
def test_index_check_passes_after_any_sequence(operations: list[str]) -> None:
    from mem import clock
    from mem.commands import write
    from mem.domain import recall
    from mem.files import safe_paths
    from mem.index import check

    with tempfile.TemporaryDirectory() as scratch:
        root = safe_paths.project_root(scratch)
        lessons = Path(root, ".agents/memory/lessons.md")
        lessons.parent.mkdir(parents=True)
        for step, operation in enumerate(operations):
            now = f"2026-10-18T09:{step:02d}:00.000Z"
            if operation == "write":
                event = write.build_event(
                    now, "forge", None, None, f"task {step} postgres", None, {}
                )
                write.append_event(root, event)
            elif operation == "note":
                with lessons.open("a") as handle:
                    handle.write(f"### Lesson {step}\npostgres {step}\n")
            elif operation == "rewrite":
                lessons.write_text(f"### Rewritten {step}\nsame size text\n")
            elif operation == "remove":
                lessons.unlink(missing_ok=True)
            elif operation == "archive":
                store = Path(root, archive.STORES["journal"])
                if store.exists() and store.stat().st_size:
                    archive.archive(root, "journal", True, now)
            elif operation == "recall":
                recall.recall(
                    root,
                    recall.RecallRequest("postgres", include_archive=step % 2 == 0),
                    now,
                    clock.local_offset_ms,
                )
            else:
                handoff.handoff(root, "step", "text", now)
        result = check.check(root)
        assert result["ok"], result["differences"]


def test_archive_choices_are_the_stores() -> None:
    from mem.cli.click_commands import archive as archive_command

    assert list(archive_command.STORE_NAMES) == list(archive.STORES)


def test_portfolio_recall_uses_the_linked_brain(tmp_path: Path, run_mem: RunMem) -> None:
    brain_dir = tmp_path / "work" / "_brain"
    brain_dir.mkdir(parents=True)
    (brain_dir / "lessons.md").write_text("### Zebra rule\nzebra crossings first\n")
    project = tmp_path / "work" / "shop"
    project.mkdir()
    ok(run_mem("init", cwd=project))
    result = json.loads(
        ok(run_mem("recall", "zebra", "--scope", "portfolio", "--json", cwd=project)).stdout
    )
    assert [(r["sourceFile"], r["ref"]) for r in result["results"]] == [
        ("../_brain/lessons.md", "Zebra rule")
    ]
    # Detection found the brain above; an explicit link elsewhere wins.
    other = tmp_path / "other-brain"
    other.mkdir()
    (other / "lessons.md").write_text("### Other zebra\nzebra\n")
    ok(run_mem("init", cwd=project, env={"BMAD_PLUS_BRAIN": str(other)}))
    result = json.loads(
        ok(run_mem("recall", "zebra", "--scope", "portfolio", "--json", cwd=project)).stdout
    )
    assert [r["ref"] for r in result["results"]] == ["Other zebra"]
