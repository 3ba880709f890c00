"""`mem check amendments`: likely pairs for a person to confirm, with the command to retire."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.portfolios import register
from support.trees import write

from mem.core.rules.memory_ids import memory_id

DECISIONS = ".agents/memory/decisions.md"
PAIR = """# Decisions

### 2025-01-10 — Retry failed payment webhooks three times
Stripe payment webhooks fail with a timeout: retry the webhook handler three times, then drop it.

### 2025-02-01 — Keep user sessions in Redis
User sessions live in Redis with a 30 minute expiry.

### 2025-06-20 — Payment webhooks go to a dead letter queue after retries
Dropped payment webhooks lost orders: retry the webhook handler with backoff, then put the
failed payment webhook on a dead letter queue.
"""
OLDER = memory_id(DECISIONS, "2025-01-10 — Retry failed payment webhooks three times")
NEWER = memory_id(
    DECISIONS, "2025-06-20 — Payment webhooks go to a dead letter queue after retries"
)


def test_lists_the_pair_older_first_with_why_and_the_command(
    run_mem: RunMem, tmp_path: Path
) -> None:
    write(tmp_path / DECISIONS, PAIR)
    done = run_mem("check", "amendments", "--json", "-d", str(tmp_path))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["notes"] == 3
    [pair] = found["pairs"]
    assert (pair["older"]["id"], pair["newer"]["id"]) == (OLDER, NEWER)
    assert {"payment", "webhook"} <= set(pair["sharedHeadingTerms"])
    assert "webhook" in pair["sharedTerms"] and pair["score"] >= found["threshold"]
    assert pair["supersede"].startswith(f"mem supersede {OLDER} --with {NEWER} --reason ")
    text = run_mem("check", "amendments", "-d", str(tmp_path)).stdout
    assert text.startswith("mem check amendments: 1 likely pair(s) among 3 active note(s)")
    assert f"    likely amended by {NEWER} {DECISIONS}: 2025-06-20" in text
    assert f"    mem supersede {OLDER} --with {NEWER}" in text


def test_fail_on_found_exits_1_only_when_a_pair_is_found(run_mem: RunMem, tmp_path: Path) -> None:
    write(tmp_path / DECISIONS, PAIR)
    assert run_mem("check", "amendments", "--fail-on-found", "-d", str(tmp_path)).returncode == 1
    done = run_mem("check", "amendments", "--fail-on-found", "--json", "-d", str(tmp_path))
    assert done.returncode == 1 and json.loads(done.stdout)["pairs"]
    assert run_mem("check", "amendments", "-d", str(tmp_path)).returncode == 0
    other = tmp_path / "other"
    write(other / DECISIONS, "### Use uuid-v7 ids\nKeys sort by time.\n\n### Cache carts\nredis\n")
    clean = run_mem("check", "amendments", "--fail-on-found", "-d", str(other))
    assert clean.returncode == 0, clean.stdout
    assert clean.stdout.startswith("mem check amendments: 0 likely pair(s) among 2 active note(s)")


def test_scope_all_checks_each_project_on_its_own(run_mem: RunMem, tmp_path: Path) -> None:
    brain = tmp_path / "brain"
    shop, blog = tmp_path / "shop", tmp_path / "blog"
    write(shop / DECISIONS, PAIR)
    write(blog / DECISIONS, "### Payment webhooks go to a dead letter queue\nretry with backoff\n")
    register(brain, shop, "shop")
    register(brain, blog, "blog")
    done = run_mem(
        "check", "amendments", "--scope", "all", "--json", "--brain", str(brain), "-d", str(shop)
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found["projects"], found["notes"]) == (2, 4)
    [pair] = found["pairs"]  # never a pair across projects
    assert pair["project"] == str(shop.resolve())
    assert (pair["older"]["id"], pair["newer"]["id"]) == (OLDER, NEWER)


def test_a_bad_scope_is_refused(run_mem: RunMem, tmp_path: Path) -> None:
    done = run_mem("check", "amendments", "--scope", "everything", "-d", str(tmp_path))
    assert done.returncode == 1 and "--scope" in done.stderr
