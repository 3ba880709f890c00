"""Why a recall result scored what it did: the parts of its score, each one exact. Pure.

The parts are computed with the scorer's own operations in the scorer's order (jsmath's
``1 + ln tf``, summed in query-term order; ``hits × coverage / √n``; then the event decay
and the evidence factor as multipliers), so folding them back gives the result's score to
the last bit, not an approximation of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from mem.core.javascript import jsmath
from mem.core.ranking import score


class TermPart(NamedTuple):
    term: str
    tf: int  # occurrences of the term in the record's tokens
    contribution: float  # its addend to hits: 1 + ln tf, or 0 when absent


class Explanation(NamedTuple):
    terms: tuple[TermPart, ...]
    hits: float
    matched: int
    coverage: float  # matched / number of distinct query terms
    n: int  # tokens in the record
    lexical: float  # hits × coverage / √n
    age_days: float | None  # events the decay applied to; None otherwise
    decay: float  # 0.5 ^ (ageDays / 30), 1 for notes and undecayed events
    evidence: float  # evidence ranking's factor (1.25 for accepted-current notes), else 1
    score: float  # lexical × decay × evidence

    def as_json(self) -> dict[str, Any]:
        return {
            "terms": [part._asdict() for part in self.terms],
            "hits": self.hits,
            "matched": self.matched,
            "queryTerms": len(self.terms),
            "coverage": self.coverage,
            "n": self.n,
            "lexical": self.lexical,
            "ageDays": self.age_days,
            "decay": self.decay,
            "evidence": self.evidence,
            "score": self.score,
        }


def age_days(event_ms: float | None, now_ms: float | None) -> float | None:
    """The age the recency decay uses, or None where `score.decayed` leaves a score alone."""
    if now_ms is None or event_ms is None or not now_ms > event_ms:
        return None
    return (now_ms - event_ms) / score.DAY_MS


def explain(
    terms: Sequence[str],
    frequencies: Sequence[int],
    n: int,
    age: float | None = None,
    evidence: float = 1,
) -> Explanation:
    """The parts of `score.lexical` (then decayed, then boosted) and the score they give."""
    parts = tuple(
        TermPart(term, tf, jsmath.log1p_weight(tf) if tf > 0 else 0.0)
        for term, tf in zip(terms, frequencies, strict=True)
    )
    hits = 0.0
    matched = 0
    for part in parts:
        if part.tf > 0:
            matched += 1
            hits += part.contribution
    coverage = matched / len(parts) if parts else 0.0
    lexical = hits * coverage / math.sqrt(n) if matched and n else 0.0
    if age is None or lexical <= 0:
        age, decay = None, 1.0
    else:
        decay = score.decay(age)
    return Explanation(
        parts, hits, matched, coverage, n, lexical, age, decay, evidence, lexical * decay * evidence
    )
