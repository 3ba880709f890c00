"""Documentation examples and placeholders are not secrets (issue 23, failure 12): writes let
them through without `--allow-secret`, and `mem audit --secrets` lists each as
`example-<kind>` without failing the gate."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.cli import RunMem
from support.secret_samples import SAMPLES

from mem.cli.app import cli
from mem.core.rules import secrets

pytestmark = pytest.mark.script


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


# jwt.io's sample token, rebuilt from its parts (the signature is the one jwt.io shows)
JWT_IO = ".".join(
    [
        _b64url('{"alg":"HS256","typ":"JWT"}'),
        _b64url('{"sub":"1234567890","name":"John Doe","iat":1516239022}'),
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
)

# case -> (the text, the kind its example is reported as)
EXAMPLES: dict[str, tuple[str, str]] = {
    "AWS's example access key id": (
        "aws docs use AK" + "IAIOSFODNN7" + "EXAMPLE as the key id",
        "example-aws-access-key-id",
    ),
    "AWS's example secret access key": (
        "aws_secret_" + "access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "example-aws-secret-access-key",
    ),
    "Stripe's documented test key": (
        "curl -u sk_" + "test_" + "4eC39HqLyjWDarjtT1zdp7dc: https://api.stripe.com/v1/charges",
        "example-stripe-key",
    ),
    "a GitHub token of x": ("export GH_TOKEN=gh" + "p_" + "x" * 36, "example-github-token"),
    "a GitHub token of x after a word holding its prefix": (
        "gh" + "pages deploys with gh" + "p_" + "x" * 36,
        "example-github-token",
    ),
    "the jwt.io sample": ("Authorization cookie " + JWT_IO, "example-jwt"),
    "Slack's documented webhook": (
        "https://hooks." + "slack.com/services/T00000000/B00000000/" + "X" * 24,
        "example-slack-webhook",
    ),
    "MySQL's local root": ("mysql://root:root@localhost/app", "example-connection-string"),
    "RabbitMQ's local guest": ("amqp://guest:guest@localhost:5672", "example-connection-string"),
    "a key to fill in": (
        "STRIPE_SECRET_" + "KEY=sk_" + "test_51YOUR_KEY_HERE",
        "example-secret-assignment",
    ),
}


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


@pytest.mark.parametrize("case", sorted(EXAMPLES))
def test_an_example_is_no_secret_but_is_named_as_an_example(case: str) -> None:
    text, kind = EXAMPLES[case]
    assert secrets.scan(text) == []
    assert [finding.kind for finding in secrets.scan_all(text)] == [kind]
    assert secrets.label(kind).endswith(": a documentation example or placeholder, not a secret")


@pytest.mark.parametrize("case", sorted(EXAMPLES))
def test_write_and_handoff_take_an_example_without_allow_secret(case: str, project: Path) -> None:
    text, _ = EXAMPLES[case]
    done = invoke("write", "--agent", "forge", "--task", text, "-d", str(project))
    assert done.exit_code == 0, done.stderr
    handoff = invoke(
        "handoff", "--topic", case, "--stdin", "-d", str(project), input=f"# Handoff\n{text}\n"
    )
    assert handoff.exit_code == 0, handoff.stderr


def test_the_github_placeholder_after_an_earlier_ghp_passes_every_write_path(
    project: Path,
) -> None:
    """detect-secrets yields only a GitHub token's prefix (`ghp`), which used to be placed at
    the first `ghp` of the line: an earlier word, no placeholder, so a write was refused."""
    from mem.mcp import tools

    text = "A gh" + "p token looks like gh" + "p_" + "x" * 36
    wrote = invoke("write", "--agent", "forge", "--task", text, "-d", str(project))
    assert wrote.exit_code == 0, wrote.stderr
    noted = invoke("note", "add", "lesson", "--title", text, "-d", str(project))
    assert noted.exit_code == 0, noted.stderr
    answer = tools.BY_NAME["write"].run(str(project), {"agent": "forge", "task": text})
    assert text in answer.output
    audited = invoke("audit", "--secrets", "--json", "-d", str(project))
    assert audited.exit_code == 0, audited.stdout
    assert {item["kind"] for item in json.loads(audited.stdout)["examples"]} == {
        "example-github-token"
    }


def test_a_real_secret_beside_an_example_is_still_refused(project: Path) -> None:
    text = EXAMPLES["AWS's example access key id"][0] + "; the real one: " + SAMPLES["stripe-key"]
    done = invoke("write", "--agent", "forge", "--task", text, "-d", str(project))
    assert done.exit_code == 1
    assert "(stripe-key)" in done.stderr and "aws-access-key-id" not in done.stderr


def test_lookalikes_of_the_examples_are_secrets() -> None:
    # the same shapes, without the documentation's markers, are what a leak looks like
    for text, kind in (
        ("mysql://root:" + "r00tPw42@localhost/app", "connection-string"),
        ("mysql://root:root@" + "db.internal/app", "connection-string"),
        (SAMPLES["jwt"], "jwt"),
        (SAMPLES["stripe-key"], "stripe-key"),
    ):
        assert [finding.kind for finding in secrets.scan(text)] == [kind], text


def test_the_audit_lists_examples_as_such_and_passes(project: Path, run_mem: RunMem) -> None:
    lessons = project / ".agents/memory/lessons.md"
    texts = [text for text, _ in EXAMPLES.values()]
    lessons.write_text(
        lessons.read_text() + "\n### Documentation examples\n" + "\n".join(texts) + "\n"
    )
    done = run_mem("audit", "--secrets", cwd=project)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    listed = [line for line in lines if line.startswith(".agents/memory/lessons.md:")]
    assert [line.split(": ", 1)[1].split(" (")[0] for line in listed] == [
        kind for _, kind in EXAMPLES.values()
    ]
    assert all(
        line.endswith(": a documentation example or placeholder, not a secret)") for line in listed
    )
    assert lines[-2:] == [
        "No possible secret in 6 files.",
        f"Also listed: {len(EXAMPLES)} documentation examples or placeholders of a secret's"
        " format (example-KIND), not counted: they are not secrets.",
    ]
    as_json = json.loads(run_mem("audit", "--secrets", "--json", cwd=project).stdout)
    assert (as_json["count"], as_json["findings"]) == (0, [])
    assert [item["kind"] for item in as_json["examples"]] == [kind for _, kind in EXAMPLES.values()]
    status = run_mem("status", cwd=project).stdout
    assert "🔑 Secrets: none found in 6 memory files" in status.splitlines()


def test_an_example_does_not_hide_a_secret_from_the_gate(project: Path, run_mem: RunMem) -> None:
    lessons = project / ".agents/memory/lessons.md"
    lessons.write_text(
        lessons.read_text()
        + "\n### Keys\n"
        + EXAMPLES["a GitHub token of x"][0]
        + "\n"
        + SAMPLES["npm-token"]
        + "\n"
    )
    done = run_mem("audit", "--secrets", "--json", cwd=project)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert [item["kind"] for item in result["findings"]] == ["npm-token"]
    assert [item["kind"] for item in result["examples"]] == ["example-github-token"]


@pytest.mark.parametrize(
    "text",
    [
        "SECRET_" + "KEY=$(openssl rand -hex 32)",  # a command substitution, cut at its blank
        "API_" + "KEY=****abcd1234",  # a mask showing the last characters
        "API_" + "KEY=sk_live_ab••••",
        "DB_" + "PASSWORD=%env(DB_PASSWORD)%",  # Symfony's reference to a variable
        "DB_" + "PASSWORD=${DB_PASS:-changeme}",
        "MYSQL" + "_PWD=$MYSQL_ROOT_PASSWORD",
        "postgres://app:${DB_PASSWORD}@db/prod",
        "mongodb+srv://admin:<db_password>@cluster0.mongodb.net",
    ],
)
def test_placeholders_pass_without_being_listed(text: str) -> None:
    # what a note says in place of a secret is no finding at all, not even an example
    assert secrets.scan_all(text) == []
