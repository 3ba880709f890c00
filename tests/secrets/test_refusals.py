"""Every path that writes text refuses a possible secret: exit 1, named, never echoed,
nothing written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.cli import RunMem
from support.demo import CACHE, LESSONS, RETRY
from support.secret_samples import SAMPLES, SECRETS, leaks
from support.trees import tree

from mem.cli.app import cli


@pytest.fixture
def brain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A team brain the project detects (BMAD_PLUS_BRAIN), for promote."""
    directory = tmp_path / "brain"
    directory.mkdir()
    (directory / "lessons.md").write_text("# Lessons\n", encoding="utf-8")
    monkeypatch.setenv("BMAD_PLUS_BRAIN", str(directory))
    return directory


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


# path name -> (prepare the files, return the arguments and standard input) for a text
Setup = Callable[[Path, Path, str], tuple[list[str], str | None]]


def _write(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["write", "--agent", "forge", "--task", text], None


def _reinforce(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["reinforce", "--pattern", text, "--eval", "0.9"], None


def _observe(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    observation = {
        "runId": "one",
        "taskId": "task",
        "memory": {"file": LESSONS, "heading": "Cache contract"},
        "scope": ["work"],
        "interpretation": text,
        "supersedes": [],
        "contradicts": [],
    }
    (project / "observation.json").write_text(json.dumps(observation), encoding="utf-8")
    return ["observe", "--input", "observation.json"], None


def _evidence(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["evidence", "add", CACHE, "--source", text], None


def _supersede(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["supersede", CACHE, "--with", RETRY, "--reason", text], None


def _retract(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["retract", CACHE, "--reason", text], None


def _handoff(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    return ["handoff", "--topic", "auth refactor", "--stdin"], f"# Handoff\n\n{text}\n"


def _promote(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    lessons = project / LESSONS
    lessons.write_text(
        lessons.read_text().replace("### Cache contract\n", f"### Cache contract\n{text}\n"),
        encoding="utf-8",
    )
    return ["promote", CACHE, "--approve", "--by", "alice"], None


def _export(project: Path, home: Path, text: str) -> tuple[list[str], str | None]:
    global_brain = home / ".bmad-plus" / "brain"
    global_brain.mkdir(parents=True, exist_ok=True)
    (global_brain / "lessons.md").write_text(f"# Lessons\n\n### Deploys\n{text}\n")
    return ["export"], None


PATHS: dict[str, Setup] = {
    "write": _write,
    "reinforce": _reinforce,
    "observe": _observe,
    "evidence add": _evidence,
    "supersede": _supersede,
    "retract": _retract,
    "handoff": _handoff,
    "promote": _promote,
    "export": _export,
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("path", sorted(PATHS))
def test_each_kind_is_refused_on_each_write_path(
    path: str, kind: str, project: Path, brain: Path, isolated_env: Path
) -> None:
    args, stdin = PATHS[path](project, isolated_env, f"we learned: {SAMPLES[kind]} (done)")
    before = tree(project, brain, isolated_env)
    done = invoke(*args, "-d", str(project), "--json", input=stdin)
    assert done.exit_code == 1
    assert tree(project, brain, isolated_env) == before
    error = json.loads(done.stdout)["error"]
    assert error.startswith("Possible secret, nothing was written: ")
    assert f"({kind})" in error and f"--allow-secret {kind}" in error
    assert not leaks(done.stdout + done.stderr, kind)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_allow_secret_lets_that_kind_through_and_records_it_nowhere(
    path: str, project: Path, brain: Path, isolated_env: Path
) -> None:
    # e.g. a deliberately documented example connection string
    text = SAMPLES["connection-string"]
    args, stdin = PATHS[path](project, isolated_env, text)
    refused = invoke(*args, "-d", str(project), "--allow-secret", "jwt", input=stdin)
    assert refused.exit_code == 1 and "connection-string" in refused.stderr
    before = tree(project, brain, isolated_env)
    done = invoke(
        *args,
        "-d",
        str(project),
        "--allow-secret",
        "connection-string",
        "--allow-secret",
        "jwt",
        input=stdin,
    )
    after = tree(project, brain, isolated_env)
    changed = [name for name in after if after[name] != before.get(name)]
    if path in ("observe", "evidence add"):
        # the secret check passed; these then refuse on their own grounds (no Nexus run, no
        # such source file), still writing nothing
        assert done.exit_code == 1 and "Possible secret" not in done.stderr
        assert changed == []
        return
    assert done.exit_code == 0, done.stderr
    assert changed
    for name in changed:
        written = after[name] or b""
        assert b"allow-secret" not in written and b"allowSecret" not in written
        assert b"jwt" not in written


@pytest.mark.parametrize(
    "args",
    [
        ["write", "--agent", "{}", "--task", "ok"],
        ["write", "--agent", "forge", "--cli", "{}"],
        ["write", "--agent", "forge", "--model", "{}"],
        ["reinforce", "--pattern", "chromadb batch ingestion", "--eval", "1", "--evidence", "a,{}"],
        ["handoff", "--topic", "{}", "--stdin"],
        ["promote", CACHE, "--approve", "--by", "{}"],
    ],
    ids=lambda args: " ".join(args[:3]),
)
def test_every_text_option_is_checked(
    args: list[str], project: Path, brain: Path, isolated_env: Path
) -> None:
    secret = SECRETS["github-token"]
    filled = [arg.replace("{}", secret) for arg in args]
    before = tree(project, brain, isolated_env)
    done = invoke(*filled, "-d", str(project), input="# Handoff\n\nok\n")
    assert done.exit_code == 1
    assert "github-token" in done.stderr and not leaks(done.stdout + done.stderr, "github-token")
    assert tree(project, brain, isolated_env) == before


def test_every_copied_field_of_an_observation_is_checked(project: Path) -> None:
    secret = SECRETS["slack-token"]
    observation = {
        "runId": "one",
        "taskId": "task",
        "memory": {"file": LESSONS, "heading": secret},
        "scope": ["work", secret],
        "interpretation": "fine",
        "supersedes": [],
        "contradicts": [],
        "notes": secret,  # not copied into the receipt, so not checked
    }
    (project / "obs.json").write_text(json.dumps(observation), encoding="utf-8")
    done = invoke("observe", "--input", "obs.json", "-d", str(project))
    assert done.exit_code == 1
    assert "obs.json memory.heading line 1 column 1: Slack token" in done.stderr
    assert "obs.json scope[1] line 1 column 1: Slack token" in done.stderr
    assert "notes" not in done.stderr


def test_an_unknown_kind_is_refused_before_anything(project: Path) -> None:
    done = invoke(
        "write", "--agent", "a", "--task", "ok", "--allow-secret", "github", "-d", str(project)
    )
    assert done.exit_code == 1
    assert "--allow-secret: unknown kind 'github'; the kinds are" in done.stderr


def test_the_real_entry_point_keeps_the_secret_out_of_every_stream(
    project: Path, run_mem: RunMem
) -> None:
    secret = SECRETS["private-key"]
    before = tree(project)
    text = run_mem("write", "--agent", "forge", "--task", secret, cwd=project)
    as_json = run_mem("write", "--agent", "forge", "--task", secret, "--json", cwd=project)
    handoff = run_mem("handoff", "--topic", "keys", "--stdin", cwd=project, input=SAMPLES["jwt"])
    assert tree(project) == before
    assert (text.returncode, as_json.returncode, handoff.returncode) == (1, 1, 1)
    assert text.stdout == "" and text.stderr.startswith("mem write: Possible secret")
    assert as_json.stderr == "" and json.loads(as_json.stdout)["error"].startswith("Possible")
    assert handoff.stderr.startswith(
        "mem handoff: Possible secret, nothing was written: the handoff text line 1 column 8:"
    )
    for done in (text, as_json):
        assert not leaks(done.stdout + done.stderr, "private-key")
    assert not leaks(handoff.stdout + handoff.stderr, "jwt")
