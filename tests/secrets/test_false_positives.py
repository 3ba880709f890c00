"""Ordinary memory text is never taken for a secret: the fixtures and 10,000 generated notes."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import uuid
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from support import FIXTURES
from support.cli import RunMem

from mem.core.rules import secrets

FIXTURE_FILES = sorted(path for path in FIXTURES.rglob("*") if path.is_file())


def test_no_fixture_file_holds_a_possible_secret() -> None:
    found = [
        f"{path.relative_to(FIXTURES)}:{finding.line}:{finding.column}: {finding.kind}"
        for path in FIXTURE_FILES
        for finding in secrets.scan(path.read_bytes().decode("utf-8", errors="replace"))
    ]
    assert len(FIXTURE_FILES) > 100
    assert found == []


def test_audit_of_the_demo_project_is_clean(project: Path, run_mem: RunMem) -> None:
    done = run_mem("audit", "--secrets", cwd=project)
    assert (done.returncode, done.stdout) == (0, "No possible secret in 6 files.\n")


WORDS = (
    "postgres pooling webhook retries deploy hetzner firewall cache index recall agent forge "
    "sentinel decision lesson pattern token key secret password rotate vault kms pgbouncer "
    "idempotency stripe github gitlab slack aws gcp azure openai anthropic model prompt bearer "
    "auth session cookie jwt oauth ssh tls cert migration schema deadlock queue worker the a "
    "to of and in for with on at by never always before after because"
).split()


def _hex(rng: random.Random, length: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(length))


def _digest(rng: random.Random) -> bytes:
    return hashlib.sha256(rng.randbytes(16)).digest()


def _fragment(rng: random.Random) -> str:
    """One identifier-like thing that fills real memory: hashes, ids, paths, URLs."""
    digest = _digest(rng)
    choices = [
        lambda: _hex(rng, 40),  # commit sha
        lambda: _hex(rng, 7),  # short sha
        lambda: "sha256:" + digest.hex(),
        lambda: "xxh3:" + _hex(rng, 32),
        lambda: "mem_" + _hex(rng, 20),
        lambda: _hex(rng, 12),  # event id
        lambda: str(uuid.UUID(bytes=rng.randbytes(16), version=4)),
        lambda: base64.b64encode(digest).decode(),
        lambda: base64.urlsafe_b64encode(digest).decode().rstrip("="),
        lambda: "sha512-" + base64.b64encode(hashlib.sha512(digest).digest()).decode(),
        lambda: f"https://github.com/org/repo/commit/{_hex(rng, 40)}",
        lambda: f"https://registry.example.com:{rng.randint(1, 65535)}/npm/@scope/pkg",
        lambda: f"postgres://app:${{DB_PASSWORD}}@db{rng.randint(1, 9)}.internal:5432/prod",
        lambda: f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 999)}",
        lambda: ".".join(str(rng.randint(1, 254)) for _ in range(4)),  # an IPv4 address
        lambda: f"v{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
        lambda: f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00.000Z",
        lambda: f"{rng.choice(WORDS).upper()}_{rng.choice(['TOKEN', 'KEY', 'PASSWORD'])}",
        lambda: f'os.environ["{rng.choice(WORDS).upper()}_API_KEY"]',
        lambda: f"image@sha256:{digest.hex()}",
        lambda: f"ghcr.io/org/{rng.choice(WORDS)}:{_hex(rng, 12)}",
        lambda: "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(2, 12))
        ),
    ]
    return rng.choice(choices)()


def _note(rng: random.Random, number: int) -> str:
    words = [rng.choice(WORDS) if rng.random() < 0.75 else _fragment(rng) for _ in range(40)]
    body = " ".join(words)
    return f"### {number} {' '.join(rng.choice(WORDS) for _ in range(4))}\n{body}.\n"


def test_ten_thousand_generated_notes_have_no_finding(project: Path, run_mem: RunMem) -> None:
    rng = random.Random(15)
    notes = [_note(rng, number) for number in range(10_000)]
    memory = project / ".agents" / "memory"
    for part, name in enumerate(("decisions.md", "lessons.md", "patterns.md")):
        chosen = notes[part::3]
        (memory / name).write_text("# Notes\n\n" + "\n".join(chosen), encoding="utf-8")
    done = run_mem("audit", "--secrets", "--json", cwd=project)
    result = json.loads(done.stdout)
    assert result["findings"] == []
    assert done.returncode == 0
    assert result["scanned"] >= 5


@given(st.binary(min_size=16, max_size=64), st.sampled_from(["", "key ", "token ", "sha256:"]))
def test_hashes_and_their_encodings_are_not_secrets(raw: bytes, prefix: str) -> None:
    for encoded in (
        raw.hex(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        str(uuid.UUID(bytes=raw[:16])),
    ):
        assert secrets.scan(prefix + encoded) == [], encoded
