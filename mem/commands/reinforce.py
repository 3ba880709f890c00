"""`mem reinforce`: fold reward signals into a pattern's score (Elo and Beta).

The decisions are `mem.core.rules.patterns`' (pure); this module reads and writes
`pattern-scores.json` and `promotions.ndjson`, always from the files themselves (the index
is only a cache for audits).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, NamedTuple

from mem import clock
from mem.core.javascript import js
from mem.core.rules import patterns, secrets
from mem.domain import pattern_files, reward_signals
from mem.files import locking, team, writing


class Reinforced(NamedTuple):
    result: patterns.Reinforcement
    warning: str | None  # D12: the pattern names no section of patterns.md


def reinforce(
    root: str,
    now: str,
    *,
    pattern: str | None,
    eval_: str | None = None,
    accept: str | None = None,
    ci: str | None = None,
    evidence: str | None = None,
    allow_secrets: Iterable[str] = (),
) -> Reinforced:
    """Fold the reward the option texts give into the pattern's score, with the D12 warning."""
    signals = reward_signals.parse_signals(eval_, accept, ci)
    evidence_ids = patterns.parse_evidence(evidence)
    result = _fold(root, pattern, signals, evidence_ids, now, allow_secrets)
    return Reinforced(result, missing_section_warning(root, result.pattern_id))


def _fold(
    root: str,
    pattern_id: str | None,
    signals: dict[str, Any],
    evidence: list[str],
    now: str,
    allow_secrets: Iterable[str] = (),
) -> patterns.Reinforcement:
    """Fold one reward into a pattern's score and maybe propose a promotion, all under the lock."""
    pattern_id = patterns.require_pattern_id(pattern_id)
    secrets.refuse(
        [("--pattern", pattern_id), *(("--evidence", item) for item in evidence)], allow_secrets
    )
    with locking.writer_lock(root):
        scores = pattern_files.read_scores(root, clock.local_offset_ms)
        result = patterns.reinforce(
            pattern_id, signals, evidence, scores.get(pattern_id), now, clock.local_offset_ms
        )
        scores[pattern_id] = result.after.as_json()
        scores_text = js.stringify_pretty(scores) + "\n"
        writing.check_replaceable(scores_text)
        if result.promotion is not None:
            # The proposal goes first: a writer killed between the two writes may leave a
            # proposal whose score update is lost (the next qualifying call proposes again),
            # never a kept score update without its proposal.
            writing.append_line(
                root, pattern_files.PROMOTIONS, js.stringify(result.promotion) + "\n"
            )
        if team.is_team(root):  # deviation D13: a record in this clone's shard
            nonce = os.urandom(6).hex()
            line = pattern_files.reinforcement_line(
                result.pattern_id, signals, evidence, now, nonce
            )
            writing.append_line(root, pattern_files.REINFORCEMENTS, line)
        else:
            writing.write_atomic(root, pattern_files.SCORES, scores_text)
    return result


def missing_section_warning(root: str, pattern_id: str) -> str | None:
    """Deviation D12: a pattern id that names no `###` section is probably a typo."""
    headings = pattern_files.headings(root)
    if pattern_id in headings:
        return None
    warning = f'no "### {pattern_id}" section in patterns.md'
    closest = patterns.closest_heading(pattern_id, headings)
    return warning if closest is None else f'{warning} (did you mean "{closest}"?)'
