"""Likely amendments: a later active note on the same subject comes first, the older marked."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem
from support.trees import write

from mem import clock, index
from mem.core.ranking import amendments as measure
from mem.core.rules.memory_ids import memory_id
from mem.domain import amendments, brief, recall
from mem.mcp import tools

NOW = "2026-10-18T09:30:00.000Z"
DECISIONS = ".agents/memory/decisions.md"
OLDER = "2025-01-10 — Retry failed payment webhooks three times"
NEWER = "2025-06-20 — Payment webhooks go to a dead letter queue after retries"
SESSIONS = "2025-02-01 — Keep user sessions in Redis"
NOTES = f"""# Decisions

### {OLDER}
- **Context**: Stripe payment webhooks sometimes fail with a timeout
- **Decision**: retry the webhook handler three times with a fixed delay, then drop it

### {SESSIONS}
- **Decision**: user sessions live in Redis with a 30 minute expiry; cookies hold the key

### {NEWER}
- **Context**: dropped payment webhooks lost orders; a fixed delay retried too fast
- **Decision**: retry the webhook handler with exponential backoff, then put the failed
  payment webhook on a dead letter queue
"""
OLDER_ID = memory_id(DECISIONS, OLDER)
NEWER_ID = memory_id(DECISIONS, NEWER)


def _project(root: Path, text: str = NOTES) -> Path:
    write(root / DECISIONS, text)
    return root


def _found(root: Path) -> amendments.Pairing:
    def use(open_index: index.OpenIndex) -> amendments.Pairing:
        opened = open_index(str(root), bm25=True)
        file_ids = [row.id for row in opened.files.values()]
        ids = index.notes_by_recency(opened.conn, file_ids, 100)
        return amendments.find(opened.conn, ids)

    return index.answer(use)


def test_the_later_note_on_the_same_subject_amends_the_earlier(tmp_path: Path) -> None:
    found = _found(_project(tmp_path))
    [(older, [pair])] = found.amended.items()
    assert found.records[older].ref == OLDER
    assert found.records[pair.newer].ref == NEWER
    assert pair.likeness.score >= measure.SAME_SUBJECT
    assert {"payment", "webhook"} <= set(pair.likeness.heading)


def test_unrelated_notes_make_no_pair(tmp_path: Path) -> None:
    text = NOTES.replace(f"### {NEWER}", "### 2025-06-20 — Render invoices as PDF").replace(
        "dropped payment webhooks lost orders; a fixed delay retried too fast",
        "accountants want printable invoices",
    )
    text = text.replace(
        "retry the webhook handler with exponential backoff, then put the failed\n"
        "  payment webhook on a dead letter queue",
        "render each invoice with WeasyPrint from its HTML template",
    )
    assert _found(_project(tmp_path, text)).amended == {}


def test_newer_first_moves_or_adds_only_the_newer() -> None:
    likeness = measure.Likeness(0.5, (), ())
    amended = {1: [measure.Amendment(1, 4, likeness)]}
    assert measure.newer_first([1, 2, 3, 4], amended) == [4, 1, 2, 3]
    assert measure.newer_first([2, 1, 3], amended) == [2, 4, 1, 3]
    assert measure.newer_first([4, 2, 1], amended) == [4, 2, 1]  # already above: unmoved
    assert measure.newer_first([2, 3], amended) == [2, 3]
    both = {1: [measure.Amendment(1, 5, likeness), measure.Amendment(1, 4, likeness)]}
    assert measure.newer_first([1, 4], both) == [5, 4, 1]  # every newer one, likeliest first


def test_the_order_of_newer_and_older_is_the_index_recency() -> None:
    """Same texts, other order in the file: the later section is the newer."""
    one = measure.subject(1, "Retry webhooks", {"retri": 2, "webhook": 2}, {}, 10)
    two = measure.subject(2, "Retry webhooks again", {"retri": 2, "webhook": 2}, {}, 10)
    assert [pair.newer for pair in measure.among([one, two], [2, 1])[1]] == [2]
    assert [pair.newer for pair in measure.among([one, two], [1, 2])[2]] == [1]


def test_check_lists_a_note_that_amends_three_earlier_ones_with_each() -> None:
    """Three earlier notes on one subject, each more like the others than like the later
    note that decides it again (FAC's "UEI required for submission" supersedes four): the
    later note's own likeliest notes must reach the third."""
    shared = {"entity": 1, "identifier": 1, "registry": 1}
    earlier = [
        measure.subject(1, "Collect one identifier", {**shared, "duns": 1}, {}, 10),
        measure.subject(2, "Validate identifiers", {**shared, "checksum": 1}, {}, 10),
        measure.subject(3, "Identifiers without a response", {**shared, "fallback": 1}, {}, 10),
    ]
    later = measure.subject(
        4, "Required for submission", {"duns": 1, "checksum": 1, "fallback": 1}, {}, 10
    )
    pairs = measure.likely_pairs([*earlier, later], [4, 3, 2, 1])
    assert sorted(pair.older for pair in pairs if pair.newer == 4) == [1, 2, 3]


def test_bm25_recall_puts_the_newer_first_and_marks_the_older(
    run_mem: RunMem, tmp_path: Path
) -> None:
    root = _project(tmp_path)
    query = ["retry", "failed", "payment", "webhooks"]
    done = run_mem("recall", "--ranking", "bm25", "--json", *query, "-d", str(root))
    results = json.loads(done.stdout)["results"]
    assert [entry["ref"] for entry in results[:2]] == [NEWER, OLDER]
    assert results[0]["amends"] == OLDER_ID
    assert results[1]["amendedBy"] == NEWER_ID
    assert results[1]["supersede"].startswith(f"mem supersede {OLDER_ID} --with {NEWER_ID} ")
    assert results[1]["score"] > results[0]["score"]  # the ranking alone put the older first
    text = run_mem("recall", "--ranking", "bm25", *query, "-d", str(root)).stdout
    assert f"Likely amended by the newer {NEWER_ID}, shown first" in text
    assert f"mem supersede {OLDER_ID} --with {NEWER_ID}" in text


def test_a_newer_note_the_query_only_grazes_stays_where_it_ranks(tmp_path: Path) -> None:
    """Its score under QUERY_SHARE of the older's: the query is about what only the older
    says."""
    request = recall.RecallRequest("stripe webhook timeout retry", ranking="bm25")
    results = recall.recall(str(_project(tmp_path)), request, NOW, clock.local_offset_ms).entries
    assert [entry["ref"] for entry in results[:2]] == [OLDER, NEWER]
    assert results[1]["score"] < results[0]["score"] * amendments.QUERY_SHARE
    assert all("amendedBy" not in entry for entry in results)


def test_one_decision_taken_again_comes_first_whatever_the_query_matches(
    tmp_path: Path,
) -> None:
    """The same heading and much of the text: the newer moves however little the query
    matches it."""
    heading = "Payment webhook retries"
    text = f"""# Decisions

### 2025-01-10 — {heading}
- **Decision**: Stripe payment webhooks time out under load; retry the webhook handler
  three times with a fixed delay

### {SESSIONS}
- **Decision**: user sessions live in Redis with a 30 minute expiry; cookies hold the key

### 2025-06-20 — {heading}
- **Decision**: retry the payment webhook handler with exponential backoff instead of a
  fixed delay
"""
    request = recall.RecallRequest("stripe webhooks time out under load", ranking="bm25")
    results = recall.recall(
        str(_project(tmp_path, text)), request, NOW, clock.local_offset_ms
    ).entries
    assert [entry["ref"] for entry in results] == [
        f"2025-06-20 — {heading}",
        f"2025-01-10 — {heading}",
    ]
    assert results[0]["score"] < results[1]["score"] * amendments.QUERY_SHARE
    assert results[1]["amendedBy"] == memory_id(DECISIONS, f"2025-06-20 — {heading}")


def test_a_newer_note_past_the_limit_is_not_pulled_into_a_recall(tmp_path: Path) -> None:
    """Only the shown notes are paired: the one shown keeps its place and no mark."""
    root = str(_project(tmp_path))
    request = recall.RecallRequest("retry failed payment webhooks", limit="1", ranking="bm25")
    [shown] = recall.recall(root, request, NOW, clock.local_offset_ms).entries
    assert shown["ref"] == OLDER
    assert "amendedBy" not in shown


def test_with_evidence_marks_with_either_ranking(run_mem: RunMem, tmp_path: Path) -> None:
    root = _project(tmp_path)
    for ranking in ("lexical", "bm25"):
        done = run_mem(
            "recall", "--with-evidence", "--ranking", ranking, "--json", "webhook", "-d", str(root)
        )
        results = json.loads(done.stdout)["results"]
        marked = {entry["ref"]: entry.get("amendedBy") for entry in results}
        assert marked[OLDER] == NEWER_ID, ranking
        refs = [entry["ref"] for entry in results]
        assert refs.index(NEWER) < refs.index(OLDER), ranking


def test_plain_lexical_recall_is_left_as_the_reference_ranks(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    plain = recall.recall(
        root, recall.RecallRequest("retry payment webhooks three times"), NOW, clock.local_offset_ms
    ).entries
    assert all("amendedBy" not in entry and "amends" not in entry for entry in plain)
    unmarked = recall.RecallRequest(
        "retry payment webhooks three times", ranking="bm25", amendments=False
    )
    scores = [
        entry["score"]
        for entry in recall.recall(root, unmarked, NOW, clock.local_offset_ms).entries
    ]
    assert scores == sorted(scores, reverse=True)


def test_the_prompt_hook_injects_the_older_only_beside_the_newer(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    entries, _, _ = brief.prompt_matches(
        root, "retry failed payment webhooks three times", 0.3, set(), 1
    )
    assert [entry.heading for entry in entries] == [NEWER, OLDER]
    assert entries[1].to_json()["amendedBy"] == NEWER_ID
    assert entries[0].to_json()["amends"] == OLDER_ID


def test_the_session_brief_puts_the_newer_first(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    found = brief.gather(root, 4000, "retry failed payment webhooks three times")
    headings = [entry.heading for entry in found.entries]
    assert headings.index(NEWER) < headings.index(OLDER)
    assert found.entries[headings.index(OLDER)].to_json()["amendedBy"] == NEWER_ID


def test_a_retired_note_is_never_paired(run_mem: RunMem, tmp_path: Path) -> None:
    root = _project(tmp_path)
    done = run_mem(
        "supersede", OLDER_ID, "--with", NEWER_ID, "--reason", "confirmed", "-d", str(root)
    )
    assert done.returncode == 0, done.stderr
    entries, _, _ = brief.prompt_matches(str(root), "retry payment webhooks", 0.0, set(), 5)
    assert [entry.heading for entry in entries] == [NEWER]
    assert entries[0].marks is None
    listed = json.loads(run_mem("check", "amendments", "--json", "-d", str(root)).stdout)
    assert listed["pairs"] == []


def test_mcp_recall_marks_with_the_default_lexical_ranking(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    answer = tools.BY_NAME["recall"].run(root, {"query": "payment webhooks retry"})
    results = json.loads(answer.output)["results"]
    refs = [entry["ref"] for entry in results]
    assert refs.index(NEWER) < refs.index(OLDER)
    assert results[refs.index(OLDER)]["amendedBy"] == NEWER_ID
