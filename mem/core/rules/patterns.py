"""Pattern scores: reward folding, Elo and Beta with forgetting, governed promotions. Pure.

The numbers are the reference's to the last float (bmad-mem.md sections 9 and 10): the
same operations in the same order, so a team can switch tools mid-stream and the scores
go on exactly where they were.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from mem.core.javascript import js
from mem.core.text import parse
from mem.errors import MemError

SIGNAL_WEIGHTS = (("evalScore", 0.5), ("acceptance", 0.3), ("ci", 0.2))
ELO_BASELINE = 1200
ELO_K = 32
FORGETTING = 0.98
HALF_LIFE_DAYS = 90
DAY_MS = 86_400_000
PROMOTION_MEAN = 0.7
PROMOTION_UPDATES = 3
MISSING_PATTERN = "mem reinforce: --pattern <id> is required (the pattern heading in patterns.md)"

LocalOffset = Callable[[float], float]


def _utc(_: float) -> float:
    return 0.0


def _number(value: Any) -> float:
    """JavaScript Number(value) for the values a signal can hold."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return js.to_number(value)
    return math.nan


def clamp01(value: Any) -> float:
    """Non-numbers and NaN give 0; everything else is clipped to [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, float(value)))


def _signal_value(name: str, value: Any) -> float:
    if name == "acceptance" and isinstance(value, bool):
        return 1.0 if value else 0.0
    if name == "ci" and value in ("pass", "fail"):
        return 1.0 if value == "pass" else 0.0
    return clamp01(_number(value))


def reward(signals: Mapping[str, Any] | None) -> float:
    """The weighted mean of the signals given, weights renormalised over those present."""
    if not isinstance(signals, Mapping):
        return 0.0
    total = 0.0
    weights = 0.0
    for name, weight in SIGNAL_WEIGHTS:
        value = signals.get(name)
        if value is None:
            continue
        total += weight * _signal_value(name, value)
        weights += weight
    return clamp01(total / weights) if weights else 0.0


def parse_evidence(text: str | None) -> list[str]:
    """`--evidence a, b,,c` -> ["a", "b", "c"]: comma split, trimmed, empties dropped."""
    if text is None:
        return []
    return [item for item in (js.trim(part) for part in text.split(",")) if item]


def require_pattern_id(pattern_id: str | None) -> str:
    """The id is used verbatim (not trimmed), but must not be blank."""
    if pattern_id is None or not js.trim(pattern_id):
        raise MemError(MISSING_PATTERN)
    return pattern_id


def closest_heading(pattern_id: str, headings: set[str]) -> str | None:
    """The heading a mistyped pattern id most likely meant (case aside), if one is close."""
    import difflib  # only when the id names no section

    by_folded = {heading.casefold(): heading for heading in sorted(headings, reverse=True)}
    found = difflib.get_close_matches(pattern_id.casefold(), sorted(by_folded), n=1, cutoff=0.6)
    return by_folded[found[0]] if found else None


class Score(NamedTuple):
    elo: float = ELO_BASELINE
    alpha: float = 1
    beta: float = 1
    mean: float = 0.5
    updates: float = 0
    last_ts: str | None = None

    def as_json(self) -> dict[str, Any]:
        return js.object_of(self)


def _invalid(pattern_id: str) -> MemError:
    return MemError(
        f"Pattern scores entry {js.stringify(pattern_id)} is not a valid score; "
        "inspect it before writing."
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def stored_score(pattern_id: str, entry: Any) -> Score:
    """A stored entry overlaid on the initial score; an entry mem cannot read is refused.

    The reference would compute with whatever it finds (a string Elo concatenates); a score
    that is not numbers is a file someone should look at, not one to build on.
    """
    if entry is None:
        return Score()
    if not isinstance(entry, dict):
        raise _invalid(pattern_id)
    initial = Score()
    elo = entry.get("elo", initial.elo)
    alpha = entry.get("alpha", initial.alpha)
    beta = entry.get("beta", initial.beta)
    mean = entry.get("mean", initial.mean)
    updates = entry.get("updates", initial.updates)
    last_ts = entry.get("lastTs", initial.last_ts)
    if not (
        _finite(elo) and _finite(alpha) and _finite(beta) and _finite(mean) and _finite(updates)
    ):
        raise _invalid(pattern_id)
    # The Beta posterior starts at (1, 1) and never falls below it.
    if alpha < 1 or beta < 1 or updates < 0 or updates != math.floor(updates):
        raise _invalid(pattern_id)
    if last_ts is not None and not isinstance(last_ts, str):
        raise _invalid(pattern_id)
    return Score(elo, alpha, beta, mean, updates, last_ts)


def _epoch_ms(text: str | None, local_offset_ms: LocalOffset) -> float | None:
    if text is None:
        return None
    parsed = js.parse_date(text)
    if parsed is None:
        return None
    return js.instant_ms(parsed.ms, parsed.local, local_offset_ms)


def update(
    previous: Score,
    reward_: float,
    ts: str | None,
    local_offset_ms: LocalOffset = _utc,
    *,
    forgetting: float = FORGETTING,
    half_life_days: float = HALF_LIFE_DAYS,
) -> Score:
    """One observation: time decay, forgetting, the observation, Elo, mean (in this order).

    `local_offset_ms` reads a zone-less timestamp as local time, as JavaScript does. The
    reference library takes the two decay rates as options too; mem uses the defaults.
    """
    r = clamp01(reward_)
    alpha, beta = previous.alpha, previous.beta
    now_ms = _epoch_ms(ts, local_offset_ms)
    last_ms = _epoch_ms(previous.last_ts, local_offset_ms)
    if now_ms is not None and last_ms is not None and now_ms > last_ms:
        factor = math.pow(0.5, (now_ms - last_ms) / DAY_MS / half_life_days)
        alpha = 1 + (alpha - 1) * factor
        beta = 1 + (beta - 1) * factor
    alpha = 1 + (alpha - 1) * forgetting + r
    beta = 1 + (beta - 1) * forgetting + (1 - r)
    # Elo against a fixed "average pattern", not against another pattern.
    expected = 1 / (1 + math.pow(10, (ELO_BASELINE - previous.elo) / 400))
    elo = previous.elo + ELO_K * (r - expected)
    return Score(
        elo=elo,
        alpha=alpha,
        beta=beta,
        mean=alpha / (alpha + beta),
        updates=previous.updates + 1,
        last_ts=previous.last_ts if ts is None else ts,
    )


def promotion_id(pattern_id: str, ts: str) -> str:
    return hashlib.sha256(f"{pattern_id}\0{ts}\0validated".encode()).hexdigest()[:12]


def promotion(pattern_id: str, score: Score, evidence: list[str], ts: str) -> dict[str, Any] | None:
    """A PROPOSED candidate -> validated promotion when the score earns one; never applied."""
    if not (score.mean >= PROMOTION_MEAN and score.updates >= PROMOTION_UPDATES):
        return None
    reason = (
        f"posterior mean {js.to_fixed(score.mean, 3)} >= {js.number_to_string(PROMOTION_MEAN)}"
        f" over {js.number_to_string(score.updates)} update(s)"
    )
    return {
        "id": promotion_id(pattern_id, ts),
        "patternId": pattern_id,
        "fromStatus": "candidate",
        "toStatus": "validated",
        "reason": reason,
        "evidence": list(evidence),
        "score": score.as_json(),
        "ts": ts,
        "status": "PROPOSED",
        "governedBy": "shield",
        "approvedBy": None,
        "approvedAt": None,
    }


class Reinforcement(NamedTuple):
    pattern_id: str
    signals: dict[str, Any]
    reward: float
    previous: Any  # the stored entry as found, or None
    before: Score
    after: Score
    promotion: dict[str, Any] | None


def reinforce(
    pattern_id: str,
    signals: dict[str, Any],
    evidence: list[str],
    stored: Any,
    ts: str,
    local_offset_ms: LocalOffset = _utc,
) -> Reinforcement:
    """The whole decision of one `mem reinforce`, given the stored entry (None if new)."""
    before = stored_score(pattern_id, stored)
    value = reward(signals)
    after = update(before, value, ts, local_offset_ms)
    return Reinforcement(
        pattern_id,
        signals,
        value,
        stored,
        before,
        after,
        promotion(pattern_id, after, evidence, ts),
    )


class ScoredPattern(NamedTuple):
    pattern_id: str
    score: Score
    documented: bool  # a `###` section of patterns.md has exactly this heading
    promotion_status: str | None  # of the newest promotion record of the pattern

    def as_json(self) -> dict[str, Any]:
        return {
            "patternId": self.pattern_id,
            **self.score.as_json(),
            "inPatternsMd": self.documented,
            "promotionStatus": self.promotion_status,
        }


def newest_statuses(promotions: list[parse.Event]) -> dict[str, str | None]:
    """Pattern id -> status of its last promotion record in file (append) order."""
    statuses: dict[str, str | None] = {}
    for record in promotions:
        pattern_id = record.data.get("patternId")
        if isinstance(pattern_id, str):
            status = record.data.get("status")
            statuses[pattern_id] = status if isinstance(status, str) else None
    return statuses


def scored_patterns(
    scores: dict[str, Any], headings: set[str], statuses: dict[str, str | None]
) -> list[ScoredPattern]:
    """Every scored pattern, best first: mean, then Elo, descending; then id, for a total order."""
    listed = [
        ScoredPattern(
            pattern_id,
            stored_score(pattern_id, entry),
            pattern_id in headings,
            statuses.get(pattern_id),
        )
        for pattern_id, entry in scores.items()
    ]
    return sorted(listed, key=lambda item: (-item.score.mean, -item.score.elo, item.pattern_id))
