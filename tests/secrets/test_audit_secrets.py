"""`mem audit --secrets` finds what got into memory, names file, line and kind, writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import RunMem
from support.secret_samples import SAMPLES, SECRETS, leaks
from support.trees import tree

from mem.core.rules import secrets
from mem.domain import project_entries


def append(path: Path, text: str) -> int:
    """Append text to a file (created if need be); returns the line number it starts on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    path.write_text(before + text, encoding="utf-8")
    return before.count("\n") + 1


@pytest.fixture
def planted(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Secrets in a note, the journal, an archive, a handoff, the scores, the brain and a
    second registered project; returns where each one is."""
    brain = tmp_path / "brain"
    other = tmp_path / "other"
    (other / ".bmad" / "memory").mkdir(parents=True)
    monkeypatch.setenv("BMAD_PLUS_BRAIN", str(brain))
    event = {"ts": "2026-10-01T00:00:00.000Z", "agent": "forge", "task": SAMPLES["aws-key"]}
    where = {
        ".agents/memory/lessons.md": append(
            project / ".agents/memory/lessons.md", "### Deploy\n" + SAMPLES["private-key"]
        )
        + 2,  # the heading, then the sample's first line
        ".bmad/memory/journal.ndjson": append(
            project / ".bmad/memory/journal.ndjson", json.dumps(event) + "\n"
        ),
        ".bmad/memory/archive/journal-a--b.ndjson": append(
            project / ".bmad/memory/archive/journal-a--b.ndjson", json.dumps(event) + "\n"
        ),
        ".agents/memory/sessions/2026-10-01-deploy.md": append(
            project / ".agents/memory/sessions/2026-10-01-deploy.md", SAMPLES["slack-webhook"]
        ),
        ".bmad/memory/pattern-scores.json": 2,
        str(brain / "memory" / "decisions.md"): append(
            brain / "memory" / "decisions.md", "### Keys\n" + SAMPLES["stripe-key"]
        )
        + 1,
        str(brain / "lessons.md"): append(brain / "lessons.md", SAMPLES["jwt"]),
        str(other / ".bmad/memory/journal.ndjson"): append(
            other / ".bmad/memory/journal.ndjson", json.dumps({"task": SAMPLES["npm-token"]})
        ),
    }
    scores = {SECRETS["github-token"]: {"elo": 1200}}
    (project / ".bmad/memory/pattern-scores.json").write_text(json.dumps(scores, indent=2))
    (brain / "projects").mkdir()
    for path in (other, tmp_path / "gone", project):
        name = f"{project_entries.project_hash(str(path))}.yaml"
        (brain / "projects" / name).write_text(f'path: "{path}"\nname: x\n')
    return {"where": where, "brain": brain, "other": other}


KINDS = {
    ".agents/memory/lessons.md": "private-key",
    ".bmad/memory/journal.ndjson": "aws-key",
    ".bmad/memory/archive/journal-a--b.ndjson": "aws-key",
    ".agents/memory/sessions/2026-10-01-deploy.md": "slack-webhook",
    ".bmad/memory/pattern-scores.json": "github-token",
}


def test_audit_lists_each_planted_secret_and_writes_nothing(
    project: Path, planted: dict[str, object], run_mem: RunMem, isolated_env: Path
) -> None:
    where = planted["where"]
    assert isinstance(where, dict)
    before = tree(project, isolated_env, Path(str(planted["brain"])))
    done = run_mem("audit", "--secrets", "--json", cwd=project)
    assert tree(project, isolated_env, Path(str(planted["brain"]))) == before
    assert not (isolated_env / "cache").exists()
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert [(item["file"], item["line"], item["kind"]) for item in result["findings"]] == sorted(
        (file, where[file], kind) for file, kind in KINDS.items()
    )
    assert result["count"] == 5 and result["files"] == 5 and result["brain"] is None
    for kind in KINDS.values():
        assert not leaks(done.stdout + done.stderr, kind)


def test_portfolio_adds_the_brain_and_the_registered_projects(
    project: Path, planted: dict[str, object], run_mem: RunMem, tmp_path: Path
) -> None:
    where = planted["where"]
    assert isinstance(where, dict)
    done = run_mem("audit", "--secrets", "--portfolio", cwd=project)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    brain = planted["brain"]
    other = planted["other"]
    for path, kind in (
        (f"{brain}/memory/decisions.md", "stripe-key"),
        (f"{brain}/lessons.md", "jwt"),
        (f"{other}/.bmad/memory/journal.ndjson", "npm-token"),
    ):
        assert any(
            line.startswith(f"{path}:{where[path]}:") and f": {kind} (" in line for line in lines
        )
    assert f"missing project {tmp_path / 'gone'} (registered in the brain)" in lines
    assert lines[-1].startswith("8 possible secrets in 8 of ")
    for kind in ("stripe-key", "jwt", "npm-token", "private-key"):
        assert not leaks(done.stdout + done.stderr, kind)


def test_a_clean_project_passes_the_gate(project: Path, run_mem: RunMem) -> None:
    done = run_mem("audit", "--secrets", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "No possible secret in 6 files.\n",
        "",
    )


def test_an_allowed_kind_passes_the_gate(project: Path, run_mem: RunMem) -> None:
    append(project / ".agents/memory/lessons.md", "### Example\n" + SAMPLES["connection-string"])
    assert run_mem("audit", "--secrets", cwd=project).returncode == 1
    done = run_mem("audit", "--secrets", "--allow-secret", "connection-string", cwd=project)
    assert done.returncode == 0


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_kind_is_found_in_an_escaped_store_line(kind: str) -> None:
    text = json.dumps({"ts": "t"}) + "\n" + json.dumps({"task": "x " + SAMPLES[kind]}) + "\n"
    assert (2, kind) in [(finding.line, finding.kind) for finding in secrets.scan_stored(text)]


def test_links_are_listed_not_followed_and_fail_the_gate(
    project: Path, tmp_path: Path, run_mem: RunMem
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(SAMPLES["github-token"])
    os.symlink(outside, project / ".agents/memory/linked.md")
    os.symlink(tmp_path, project / ".agents/memory/linked-folder")
    done = run_mem("audit", "--secrets", "--json", cwd=project)
    result = json.loads(done.stdout)
    assert (done.returncode, result["count"]) == (1, 0)
    assert result["skipped"] == [
        {"file": ".agents/memory/linked-folder", "reason": "a symbolic link (not followed)"},
        {"file": ".agents/memory/linked.md", "reason": "a symbolic link (not followed)"},
    ]


def test_a_file_name_that_looks_like_a_secret_is_withheld(project: Path, run_mem: RunMem) -> None:
    (project / ".agents/memory" / (SECRETS["github-token"] + ".md")).write_text(SAMPLES["jwt"])
    done = run_mem("audit", "--secrets", cwd=project)
    assert done.returncode == 1
    assert "(a name withheld: it looks like a secret):1:8: jwt" in done.stdout
    assert not leaks(done.stdout, "github-token")


def test_status_counts_findings_in_one_line(project: Path, run_mem: RunMem) -> None:
    clean = run_mem("status", cwd=project)
    assert "🔑 Secrets: none found in 6 memory files" in clean.stdout.splitlines()
    append(project / ".agents/memory/lessons.md", "### Deploy\n" + SAMPLES["gitlab-token"])
    append(project / ".agents/memory/decisions.md", SAMPLES["gcp-api-key"])
    text = run_mem("status", cwd=project).stdout.splitlines()
    assert "🔑 Secrets: 2 possible secrets in 2 of 6 memory files (mem audit --secrets)" in text
    as_json = json.loads(run_mem("status", "--json", cwd=project).stdout)
    assert as_json["secrets"] == {"findings": 2, "files": 2, "scanned": 6, "skipped": 0}


@pytest.mark.parametrize(
    "args",
    [
        ["--secrets", "mem_0123"],
        ["--secrets", "--limit", "3"],
        ["--portfolio"],
        ["--allow-secret", "jwt"],
    ],
)
def test_secrets_mode_takes_no_evidence_options(
    args: list[str], project: Path, run_mem: RunMem
) -> None:
    done = run_mem("audit", *args, cwd=project)
    assert done.returncode == 1 and done.stderr.startswith("mem audit: ")


def test_a_notes_file_over_16_mib_is_scanned_whole(project: Path, run_mem: RunMem) -> None:
    """Recall serves every entry of a notes file of any size, so the gate reads it all: a
    token at its end, past 16 MiB, is found, on its own line number."""
    notes = project / ".agents/memory/decisions.md"
    entry = "### Decision {}\nPool connections through pgbouncer; retry twice on failure.\n\n"
    body = "".join(entry.format(number) for number in range(240_000))
    assert len(body) > 16 * 1024 * 1024
    notes.write_text(body + "### Token\n" + SAMPLES["github-token"] + "\n", encoding="utf-8")
    done = run_mem("audit", "--secrets", "--json", cwd=project)
    result = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(item["file"], item["line"], item["kind"]) for item in result["findings"]] == [
        (".agents/memory/decisions.md", 240_000 * 3 + 2, "github-token")
    ]
    status = json.loads(run_mem("status", "--json", cwd=project).stdout)
    counts = {item["file"]: item["entries"] for item in status["project"]["files"]}
    assert counts["decisions.md"] == 240_001


def test_a_file_the_audit_cannot_read_fails_it(project: Path, run_mem: RunMem) -> None:
    os.mkfifo(project / ".agents/memory/pipe.md")
    done = run_mem("audit", "--secrets", cwd=project)
    assert done.returncode == 1
    assert "skipped .agents/memory/pipe.md: not a regular file" in done.stdout
    assert "🔑 Secrets: none found in 6 memory files, 1 not read (mem audit --secrets)" in (
        run_mem("status", cwd=project).stdout.splitlines()
    )
