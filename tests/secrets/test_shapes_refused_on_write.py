"""Secrets in the shapes that used to pass every write path (issue 23, failure 11) are refused
by `write --task`, `handoff --stdin` and `portfolio add`, never echoed, nothing written."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.cli import RunMem

from mem.cli.app import cli
from mem.core.rules import secrets

pytestmark = pytest.mark.script


def _random(length: int, alphabet: str, seed: int) -> str:
    """Format-valid, deterministic, and no literal in the repository (nor a run of x)."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWabcdefghijklmnopqrstuvw0123456789+/"
KEY40 = _random(40, _BASE64, 1)
PASSWORD = _random(12, "ABCDEFGHJKLMNPQRSTabcdefghjkmnpqrst23456789", 2)
ARMOUR = "PRIVATE" + " KEY-----"
BODY = "MIIE" + _random(60, _BASE64, 3) + _random(64, _BASE64, 4) + _random(20, _BASE64, 5)


def _pem(prefix: str = "", width: int = 64) -> str:
    lines = [BODY[start : start + width] for start in range(0, len(BODY), width)]
    block = [f"-----BEGIN RSA {ARMOUR}", *lines, f"-----END RSA {ARMOUR}"]
    return "\n".join(prefix + line for line in block)


_HOOK = "hooks." + "slack.com/services/T" + _random(8, "ABCDEFGH0123456789", 6)
_HOOK += "/B" + _random(8, "ABCDEFGH0123456789", 7) + "/" + _random(24, _BASE64[:-2], 8)

# case -> (the text, where the secret starts, its kind)
CASES: dict[str, tuple[str, str, str]] = {
    "aws configure set": (
        "aws configure set aws_secret_access_key " + KEY40,
        KEY40,
        "aws-secret-access-key",
    ),
    "SecretAccessKey in JSON": (
        '{"AccessKey": {"SecretAccess' + 'Key": "' + KEY40 + '", "Status": "Active"}}',
        KEY40,
        "aws-secret-access-key",
    ),
    "private key quoted with >": ("the key was:\n" + _pem("> "), "-----BEGIN", "private-key"),
    "private key commented with #": ("key:\n" + _pem("# "), "-----BEGIN", "private-key"),
    "private key in 32-character lines": ("key:\n" + _pem(width=32), "-----BEGIN", "private-key"),
    "Slack webhook without a scheme": ("alerts go to " + _HOOK, _HOOK, "slack-webhook"),
    "Slack webhook over http": ("alerts go to http://" + _HOOK, "http://", "slack-webhook"),
    "URL password %-encoded": (
        "DATABASE_URL=postgres://app:%40" + PASSWORD + "%21@db.internal/prod",
        "%40",
        "connection-string",
    ),
    "URL password starting with $": (
        "postgres://app:$" + PASSWORD + "@db.internal/prod",
        "$",
        "connection-string",
    ),
    "URL password starting with *": (
        "mysql://app:*" + PASSWORD + "@db.internal/prod",
        "*",
        "connection-string",
    ),
    "URL password starting with (": (
        "amqp://app:(" + PASSWORD + "@mq.internal",
        "(",
        "connection-string",
    ),
    "URL password with {}": (
        "redis://app:" + PASSWORD[:5] + "{}" + PASSWORD[5:] + "@cache.internal",
        PASSWORD[:5],
        "connection-string",
    ),
    "URL password with /": (
        "postgres://app:" + PASSWORD[:5] + "/" + PASSWORD[5:] + "@db.internal/prod",
        PASSWORD[:5],
        "connection-string",
    ),
    "URL password before an IPv6 host": (
        "postgres://app:" + PASSWORD + "@[2001:db8::1]:5432/prod",
        PASSWORD,
        "connection-string",
    ),
    "export PGPASSWORD": ("export PG" + "PASSWORD=" + PASSWORD, PASSWORD, "secret-assignment"),
    "MYSQL_PWD": ("MYSQL" + "_PWD=" + PASSWORD + " mysql -u app", PASSWORD, "secret-assignment"),
}


def _leaks(output: str, text: str, start: str) -> bool:
    """Whether output shows 8 characters running in the secret (from where it starts)."""
    secret = text[text.index(start) :]
    return any(secret[at : at + 8] in output for at in range(len(secret) - 7))


def tree(*roots: Path) -> dict[str, bytes | None]:
    found: dict[str, bytes | None] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            found[str(path)] = None if path.is_dir() else path.read_bytes()
    return found


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_shape_is_found_where_the_secret_starts(case: str) -> None:
    text, start, kind = CASES[case]
    at = text.index(start)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    assert secrets.scan(text) == [secrets.Finding(line, column, kind)]


@pytest.mark.parametrize("path", ["write --task", "handoff --stdin"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_refused_on_write_and_handoff(
    case: str, path: str, project: Path, isolated_env: Path
) -> None:
    text, start, kind = CASES[case]
    if path == "write --task":
        args, stdin = ["write", "--agent", "forge", "--task", text], None
    else:
        args, stdin = ["handoff", "--topic", "deploy", "--stdin"], f"# Handoff\n\n{text}\n"
    before = tree(project, isolated_env)
    done = invoke(*args, "-d", str(project), "--json", input=stdin)
    assert done.exit_code == 1
    assert tree(project, isolated_env) == before
    error = json.loads(done.stdout)["error"]
    assert error.startswith("Possible secret, nothing was written: ")
    assert f"({kind})" in error
    assert not _leaks(done.stdout + done.stderr, text, start)


def test_the_console_script_refuses_each_shape(project: Path, run_mem: RunMem) -> None:
    before = tree(project)
    for case, (text, start, kind) in sorted(CASES.items()):
        done = run_mem("write", "--agent", "forge", "--task", text, cwd=project)
        assert done.returncode == 1, case
        assert done.stderr.startswith("mem write: Possible secret, nothing was written: ")
        assert f"({kind})" in done.stderr, case
        assert not _leaks(done.stdout + done.stderr, text, start), case
    assert tree(project) == before


@pytest.mark.parametrize("link", [False, True], ids=["the path", "a link to it"])
def test_portfolio_add_refuses_a_path_that_holds_a_secret(
    link: bool, tmp_path: Path, run_mem: RunMem
) -> None:
    brain = tmp_path / "brain"
    brain.mkdir()
    token = "gh" + "p_" + _random(36, _BASE64[:-2], 9)
    folder = tmp_path / "keys" / token
    folder.mkdir(parents=True)
    given = folder
    if link:
        given = tmp_path / "shop"
        given.symlink_to(folder)
    done = run_mem("portfolio", "add", str(given), "--brain", str(brain), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(
        "mem portfolio: Possible secret, nothing was written: PATH 1 line 1 column "
    )
    assert "--allow-secret github-token" in done.stderr and token[4:12] not in done.stderr
    assert list(brain.iterdir()) == []
    # a folder that does not exist is refused for the secret before its path is shown
    gone = run_mem(
        "portfolio", "add", str(tmp_path / token / "gone"), "--brain", str(brain), cwd=tmp_path
    )
    assert gone.returncode == 1 and token[4:12] not in gone.stderr
    allowed = run_mem(
        "portfolio",
        "add",
        str(given),
        "--brain",
        str(brain),
        "--allow-secret",
        "github-token",
        cwd=tmp_path,
    )
    assert allowed.returncode == 0, allowed.stderr
    assert token in (brain / "projects-index.md").read_text()


HOSTILE = {
    "URL starts without a host": "://a:b" * 60_000,
    "URL starts with long users": ("://" + "u" * 300 + ":p") * 1_000,
    "a key armour then quote marks": "-----BEGIN PRIVATE " + "KEY-----" + "> " * 100_000,
    "a key armour then 15-character lines": "-----BEGIN PRIVATE "
    + "KEY-----\n"
    + ("A" * 15 + "\n") * 20_000,
    "AWS words": "aws secret access key " * 20_000,
    "upper-case names before PASSWORD=": "A" * 100_000 + "PASSWORD=",
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_new_shapes_read_hostile_text_without_a_backtracking_storm(text: str) -> None:
    # minutes each with a pattern that backtracks quadratically; linear, a fraction of a second
    assert secrets.scan(text) == []
