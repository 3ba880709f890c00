"""What counts as a secret in memory text, and how a finding is reported
(mem/core/rules/secrets.py)."""

from __future__ import annotations

import base64
import hashlib
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import REPO
from support.secret_samples import SAMPLES, SECRETS, leaks

from mem.core.rules import secrets
from mem.errors import MemError


def test_every_kind_has_a_sample_a_label_and_a_row_in_the_docs() -> None:
    page = REPO / "docs" / "secrets.md"
    text = page.read_text(encoding="utf-8")
    assert set(SAMPLES) == set(secrets.KINDS)
    for kind, label in secrets.KINDS.items():
        assert f"| `{kind}` | {label} |" in text


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_each_kind_is_found_where_it_starts(kind: str) -> None:
    text = "an ordinary first line\n" + SAMPLES[kind]
    start = text.index(SECRETS[kind])
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    assert secrets.scan(text) == [secrets.Finding(line, column, kind)]


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_a_refusal_names_field_and_kind_but_never_the_secret(kind: str) -> None:
    with pytest.raises(MemError) as raised:
        secrets.refuse([("--task", SAMPLES[kind])])
    message = str(raised.value)
    assert "--task" in message and kind in message and "nothing was written" in message
    assert f"--allow-secret {kind}" in message
    assert not leaks(message, kind)


def test_an_allowed_kind_passes_and_only_that_kind() -> None:
    secrets.refuse([("--task", SAMPLES["jwt"])], allow=["jwt"])
    with pytest.raises(MemError, match="github-token"):
        secrets.refuse([("--task", SAMPLES["jwt"] + " " + SAMPLES["github-token"])], allow=["jwt"])


def test_an_unknown_allowed_kind_is_refused_even_without_a_finding() -> None:
    with pytest.raises(MemError, match="unknown kind 'nope'; the kinds are"):
        secrets.refuse([("--task", "plain words")], allow=["nope"])


def test_a_secret_inside_a_specific_format_keeps_the_specific_name() -> None:
    # GITHUB_TOKEN=ghp_... is both an environment assignment and a GitHub token
    text = "GITHUB_" + "TOKEN=" + SECRETS["github-token"]
    assert [finding.kind for finding in secrets.scan(text)] == ["github-token"]


ORDINARY = [
    "Use pgbouncer in front of postgres; pool size 20, see commit "
    + hashlib.sha1(b"x").hexdigest(),
    "sha256:" + hashlib.sha256(b"x").hexdigest(),
    "xxh3:" + hashlib.md5(b"x").hexdigest(),
    "memory mem_" + hashlib.sha256(b"y").hexdigest()[:20] + " event " + "0123456789ab",
    "run " + str(uuid.UUID(int=12345678901234567890)),
    "file hash " + base64.b64encode(hashlib.sha256(b"z").digest()).decode(),
    "cache key " + base64.urlsafe_b64encode(hashlib.sha256(b"z").digest() + b"a").decode(),
    "Rotate keys: never commit a file that starts with -----BEGIN RSA " + "PRIVATE KEY-----.",
    "Connect with postgres://app:${DB_PASSWORD}@db.internal/prod",
    "postgres://USER:PASSWORD@HOST:5432/DB is the template; use postgres://app:<password>@db",
    "redis://:$REDIS_PASSWORD@cache:6379",
    "https://registry.example.com:8443/npm/@scope/package is the mirror",
    "git@github.com:org/repo.git and ssh://git@github.com:22/org/repo",
    "migrated from APACHEKAFKA to redpanda; ticket APB1234567890",
    "Authorization: Bearer <token> is sent by the proxy; token: see the vault",
    "SECRET_KEY=settings.SECRET_KEY and API_KEY=$OPENAI_API_KEY and TOKEN=true",
    "password: rotated monthly; api_key: required; MAX_TOKENS=8192",
    "the sk-learn pipeline; pk_live_ keys are public; AKIA prefixes mark access keys",
    "eyJhbGciOi is how a JWT header starts",
    "IP 203.0.113.7 behind the hetzner firewall",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_memory_text_is_not_a_secret(text: str) -> None:
    assert secrets.scan(text) == []


@given(st.text(max_size=400))
def test_scan_never_fails_and_points_inside_the_text(text: str) -> None:
    lines = text.split("\n")
    for finding in secrets.scan(text):
        assert 1 <= finding.line <= len(lines)
        assert 1 <= finding.column <= len(lines[finding.line - 1])
        assert finding.kind in secrets.KINDS


@given(st.text(max_size=80), st.sampled_from(sorted(SAMPLES)), st.text(max_size=80))
def test_a_secret_is_found_whatever_surrounds_it(before: str, kind: str, after: str) -> None:
    text = before + "\n" + SAMPLES[kind] + "\n" + after
    assert kind in {finding.kind for finding in secrets.scan(text)}


def test_a_json_key_that_holds_a_secret_is_withheld_from_the_field_name() -> None:
    fields = secrets.json_fields({"memory": {SECRETS["github-token"]: "x"}, "scope": ["a"]})
    names = [name for name, _ in fields]
    assert not any(leaks(name, "github-token") for name in names)
    assert "memory.#0 (the key)" in names and "scope[0]" in names


def test_json_fields_reach_any_depth() -> None:
    deep: object = SECRETS["npm-token"]
    for _ in range(5000):
        deep = [deep]
    fields = dict(secrets.json_fields({"scope": deep}))
    assert fields.pop("scope (the key)") == "scope"
    [(name, text)] = fields.items()
    assert text == SECRETS["npm-token"] and name.startswith("scope[0][0]")


HOSTILE = {
    "a key header over a line of spaces": "-----BEGIN PRIVATE " + "KEY-----\nA: " + " " * 100_000,
    "URL fragments": "://aaaa:" * 20_000,
    "a minified line of slashes": "//a/" * 25_000,
    "connection keys without a password": "server=a;" * 20_000 + "pass",
    "SAS starts": "sv=2022-11-02&" * 10_000,
    "one long word": "eyJ" + "a" * 100_000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_text_is_read_without_a_backtracking_storm(text: str) -> None:
    # Each would take minutes with a pattern that backtracks quadratically; linear, it is
    # a fraction of a second (the timing itself belongs in bench/, not here).
    assert secrets.scan(text) == []


def test_a_secret_on_a_very_long_line_is_found_once_where_it_is() -> None:
    padding = "x" * 5000 + " "
    text = padding + SAMPLES["sendgrid-api-key"] + " " + padding
    column = len(padding) + len(SAMPLES["sendgrid-api-key"]) - len(SECRETS["sendgrid-api-key"]) + 1
    assert secrets.scan(text) == [secrets.Finding(1, column, "sendgrid-api-key")]


def test_a_jwt_lookalike_nested_too_deep_is_not_a_crash() -> None:
    header = base64.urlsafe_b64encode(b'{"a":' + b"[" * 100_000).decode().rstrip("=")
    assert secrets.scan(header + ".eyJzdWIiOiJ4In0." + "s" * 20) == []


def test_an_unknown_kind_that_looks_like_a_secret_is_not_echoed() -> None:
    with pytest.raises(MemError) as raised:
        secrets.allowed_kinds([SECRETS["github-token"]])
    assert "unknown kind '(withheld)'" in str(raised.value)


def test_the_left_out_plugins_would_refuse_ordinary_memory_text() -> None:
    """Why each detect-secrets plugin mem leaves out is left out (docs/secrets.md)."""
    from detect_secrets.plugins.artifactory import ArtifactoryDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    hashed = base64.urlsafe_b64encode(hashlib.sha256(b"z").digest() + b"a").decode()
    for plugin, text in (
        (ArtifactoryDetector(), "migrated from APACHEKAFKA to redpanda"),
        (BasicAuthDetector(), "template: postgres://USER:PASSWORD@HOST/db"),
        (IbmCloudIamDetector(), "cache key " + hashed),
        (PrivateKeyDetector(), "never commit a BEGIN RSA PRIVATE KEY file"),
    ):
        assert list(plugin.analyze_string(text)), type(plugin).__name__
        assert secrets.scan(text) == []
