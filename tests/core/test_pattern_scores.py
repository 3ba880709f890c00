"""Reward folding, the score update and promotions (pure), with the contract's worked values."""

from __future__ import annotations

import math
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem.core.javascript import js
from mem.core.rules import patterns
from mem.core.rules.patterns import Score
from mem.domain import pattern_files
from mem.domain.reward_signals import parse_signals
from mem.errors import MemError
from mem.files import writing
from mem.index import pattern_rows

T0 = "2026-07-01T10:00:00.000Z"
T1 = "2026-07-01T11:00:00.000Z"
T2 = "2026-07-01T12:00:00.000Z"


@pytest.mark.parametrize(
    ("signals", "expected"),
    [
        ({"evalScore": 1, "acceptance": True, "ci": "pass"}, 1),
        ({"evalScore": 0, "acceptance": False, "ci": "fail"}, 0),
        ({"evalScore": 0.8, "acceptance": True, "ci": "fail"}, 0.7),
        ({"ci": "pass"}, 1),
        ({"ci": "fail"}, 0),
        ({"evalScore": 0.6, "acceptance": True}, 0.7499999999999999),
        ({}, 0),
        (None, 0),
        (True, 0),
        ({"evalScore": 42}, 1),
        ({"evalScore": -3}, 0),
        ({"evalScore": math.nan, "acceptance": math.nan}, 0),
        ({"evalScore": math.inf}, 1),
        ({"acceptance": 0.5, "ci": 0.25}, 0.4),
        ({"evalScore": None, "ci": "pass"}, 1),  # null does not participate
    ],
)
def test_reward_folds_signals_with_renormalised_weights(signals: Any, expected: float) -> None:
    assert patterns.reward(signals) == expected


def test_reward_of_cli_signals() -> None:
    assert patterns.reward(parse_signals("0.8", "yes", "fail")) == 0.7
    # The library still folds a NaN signal as 0 (the CLI refuses one first: deviation D9).
    assert patterns.reward({"acceptance": math.nan, "ci": math.nan}) == 0
    assert patterns.reward(parse_signals("0x10", None, None)) == 1


def test_fresh_pattern_win_and_loss() -> None:
    win = patterns.update(Score(), 1, T0)
    assert (win.elo, win.alpha, win.beta, win.updates, win.last_ts) == (1216, 2, 1, 1, T0)
    assert js.to_fixed(win.mean, 4) == "0.6667"
    loss = patterns.update(Score(), 0, T0)
    assert (loss.elo, loss.alpha, loss.beta) == (1184, 1, 2)


def test_three_wins_at_one_instant_give_the_worked_values() -> None:
    scores = [Score()]
    for _ in range(3):
        scores.append(patterns.update(scores[-1], 1, T0))
    assert [s.elo for s in scores[1:]] == [1216, 1231.263693206478, 1245.8278203282016]
    assert [s.alpha for s in scores[1:]] == [2, 2.98, 3.9404]
    assert [s.mean for s in scores[2:]] == [0.7487437185929648, 0.7975872398996032]
    gains = [after.elo - before.elo for before, after in zip(scores, scores[1:], strict=False)]
    assert gains[0] > gains[1] > gains[2]  # each win against the baseline gains less


def test_beta_with_and_without_forgetting() -> None:
    start = Score(alpha=2, beta=1, last_ts=T0)
    kept = patterns.update(start, 1, T0, forgetting=1, half_life_days=math.inf)
    assert (kept.alpha, kept.beta, kept.mean) == (3, 1, 3 / 4)
    halved = patterns.update(start, 0, T0, forgetting=0.5)
    assert (halved.alpha, halved.beta, halved.mean) == (1.5, 2, 1.5 / 3.5)


def test_ninety_days_halve_the_evidence_before_the_observation() -> None:
    start = Score(alpha=2, beta=1, last_ts="2026-04-02T10:00:00.000Z")
    later = patterns.update(start, 1, T0, forgetting=1)
    assert (later.alpha, later.beta) == (2.5, 1)


def test_no_time_decay_for_a_future_or_unreadable_last_ts() -> None:
    for last_ts in ("2027-01-01T00:00:00.000Z", "not a date", None):
        after = patterns.update(Score(alpha=2, beta=1, last_ts=last_ts), 1, T0, forgetting=1)
        assert after.alpha == 3


def test_a_zone_less_last_ts_is_local_time() -> None:
    start = Score(alpha=2, beta=1, last_ts="2026-07-01T10:00:00")
    # Local time two hours behind UTC: the stored instant is 12:00Z, after now (10:00Z).
    assert patterns.update(start, 1, T0, lambda _: 7_200_000.0, forgetting=1).alpha == 3
    assert patterns.update(start, 1, T1, forgetting=1).alpha < 3


def test_a_missing_ts_keeps_the_stored_last_ts() -> None:
    assert patterns.update(Score(last_ts=T0), 1, None).last_ts == T0


def test_stored_entries_are_overlaid_on_the_initial_score() -> None:
    assert patterns.stored_score("p", None) == Score()
    partial = patterns.stored_score("p", {"elo": 1250, "updates": 7})
    assert partial == Score(elo=1250, updates=7)


@pytest.mark.parametrize(
    "entry",
    [
        5,
        [],
        {"elo": "1250"},
        {"alpha": 0.5},
        {"beta": None},
        {"updates": 1.5},
        {"lastTs": 3},
        {"mean": True},
        {"updates": -1},
    ],
)
def test_an_entry_that_is_not_a_score_is_refused(entry: Any) -> None:
    with pytest.raises(MemError, match=r'^Pattern scores entry "p" is not a valid score; inspect'):
        patterns.stored_score("p", entry)


def test_promotion_needs_mean_and_three_updates() -> None:
    assert patterns.promotion("p", Score(mean=0.9, updates=2), [], T0) is None
    assert patterns.promotion("p", Score(mean=0.69, updates=9), [], T0) is None
    record = patterns.promotion("p", Score(mean=0.7, updates=3), ["ev1"], T0)
    assert record is not None
    assert list(record) == [
        "id",
        "patternId",
        "fromStatus",
        "toStatus",
        "reason",
        "evidence",
        "score",
        "ts",
        "status",
        "governedBy",
        "approvedBy",
        "approvedAt",
    ]
    assert len(record["id"]) == 12
    assert record["id"] == patterns.promotion_id("p", T0)
    assert (record["fromStatus"], record["toStatus"]) == ("candidate", "validated")
    assert (record["status"], record["governedBy"]) == ("PROPOSED", "shield")
    assert (record["approvedBy"], record["approvedAt"]) == (None, None)
    assert record["reason"] == "posterior mean 0.700 >= 0.7 over 3 update(s)"


def test_promotion_id_is_the_reference_hash() -> None:
    assert patterns.promotion_id("chromadb batch ingestion", "2026-10-18T09:30:00.000Z") == (
        "cb1664d39ce0"
    )


def test_three_positive_calls_propose_with_their_evidence() -> None:
    stored: Any = None
    signals = {"evalScore": 1, "acceptance": True, "ci": "pass"}
    for ts in (T0, T1, T2):
        result = patterns.reinforce("p", signals, ["ev1", "ev2"], stored, ts)
        stored = result.after.as_json()
    assert result.after.updates == 3 and result.after.mean >= 0.7
    assert result.promotion is not None
    assert result.promotion["evidence"] == ["ev1", "ev2"]
    assert result.promotion["score"] == result.after.as_json()


@pytest.mark.parametrize(
    ("text", "expected"),
    [(None, []), ("ev1,ev2", ["ev1", "ev2"]), (" ev3 , ,ev4,", ["ev3", "ev4"]), (",", [])],
)
def test_evidence_list(text: str | None, expected: list[str]) -> None:
    assert patterns.parse_evidence(text) == expected


@pytest.mark.parametrize("pattern_id", [None, "", "   ", "\ufeff\t"])
def test_a_blank_pattern_is_refused(pattern_id: str | None) -> None:
    with pytest.raises(MemError, match=r"^mem reinforce: --pattern <id> is required"):
        patterns.require_pattern_id(pattern_id)


def test_the_pattern_id_is_used_verbatim() -> None:
    assert patterns.require_pattern_id("  spaced id  ") == "  spaced id  "


def test_listing_is_best_first_with_a_total_order() -> None:
    scores = {
        "b": {"mean": 0.5, "elo": 1200},
        "a": {"mean": 0.5, "elo": 1200},
        "low": {"mean": 0.2},
        "high-elo": {"mean": 0.5, "elo": 1300},
        "top": {"mean": 0.9},
    }
    listed = patterns.scored_patterns(scores, {"a"}, {"top": "APPLIED"})
    assert [item.pattern_id for item in listed] == ["top", "high-elo", "a", "b", "low"]
    assert [item.documented for item in listed] == [False, False, True, False, False]
    assert listed[0].promotion_status == "APPLIED"


# Invariants.

signal_values = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.sampled_from(["pass", "fail", "PASS", "", "0x10", "abc", "0.5"]),
)
signals_strategy = st.fixed_dictionaries(
    {}, optional={"evalScore": signal_values, "acceptance": signal_values, "ci": signal_values}
)
rewards = st.floats(allow_nan=False, allow_infinity=True)
timestamps = st.integers(min_value=0, max_value=4 * 10**12).map(js.iso_from_ms)


@given(signals_strategy)
def test_reward_is_always_in_the_unit_interval(signals: dict[str, Any]) -> None:
    assert 0 <= patterns.reward(signals) <= 1


@given(st.lists(st.tuples(rewards, timestamps), max_size=60))
def test_beta_stays_above_its_prior_and_the_mean_inside_zero_one(
    steps: list[tuple[float, str]],
) -> None:
    score = Score()
    for value, ts in steps:
        score = patterns.update(score, value, ts)
        assert score.alpha >= 1 and score.beta >= 1
        assert 0 < score.mean < 1
        assert math.isfinite(score.elo)


@given(st.lists(st.tuples(rewards, timestamps), max_size=10), timestamps)
def test_rewards_above_one_count_as_one(steps: list[tuple[float, str]], ts: str) -> None:
    score = Score()
    for value, at in steps:
        score = patterns.update(score, value, at)
    assert patterns.update(score, 99, ts) == patterns.update(score, 1, ts)
    assert patterns.update(score, -5, ts) == patterns.update(score, 0, ts)


pattern_ids = st.text(min_size=1).filter(lambda text: bool(js.trim(text)))


# Each example fsyncs up to a dozen files: its time is the disk's, not a deadline's business.
@settings(deadline=None)
@given(st.lists(st.tuples(pattern_ids, signals_strategy, timestamps), min_size=1, max_size=12))
def test_the_stored_file_always_parses_and_round_trips(
    calls: list[tuple[str, dict[str, Any], str]],
) -> None:
    with tempfile.TemporaryDirectory() as root:
        for pattern_id, signals, ts in calls:
            scores = pattern_files.read_scores(root)
            result = patterns.reinforce(pattern_id, signals, [], scores.get(pattern_id), ts)
            scores[pattern_id] = result.after.as_json()
            text = js.stringify_pretty(scores) + "\n"
            writing.write_atomic(root, pattern_files.SCORES, text)
            stored = pattern_files.read_scores(root)
            assert stored == scores
            assert js.stringify_pretty(stored) + "\n" == text
            assert patterns.stored_score(pattern_id, stored[pattern_id]) == result.after


def test_index_loaders_are_lenient() -> None:
    assert pattern_rows.score_rows(b"{not json") == []
    assert pattern_rows.score_rows(b"[1, 2]") == []
    assert pattern_rows.score_rows(b"\xff") == []
    rows = pattern_rows.score_rows(b'{"p": {"elo": "x", "updates": 2}, "q": 3}')
    assert [row["pattern_id"] for _, row in rows] == ["p", "q"]
    assert rows[0][1]["elo"] is None and rows[0][1]["updates"] == 2
    lines = b'{"id":"a","patternId":"p","status":"PROPOSED","evidence":["e"]}\n{torn'
    ((table, row),) = pattern_rows.promotion_rows(lines)
    assert table == "promotions"
    assert (row["id"], row["pattern_id"], row["status"], row["evidence"]) == (
        "a",
        "p",
        "PROPOSED",
        '["e"]',
    )


def test_json_keys_follow_javascript_property_order() -> None:
    value = {"b": 1, "10": 2, "2": 3, "01": 4, "4294967295": 5, "-1": 6}
    assert js.stringify(value) == '{"2":3,"10":2,"b":1,"01":4,"4294967295":5,"-1":6}'
    assert js.stringify_pretty({"z": 0, "7": 1}) == '{\n  "7": 1,\n  "z": 0\n}'
