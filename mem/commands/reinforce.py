"""`mem reinforce` and `mem patterns` on `pattern-scores.json` and `promotions.ndjson`.

The decisions are `mem.patterns`' (pure); this module reads and writes the files, always
from the files themselves (the index is only a cache for audits).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from mem import clock, layout
from mem.core import js, parse, patterns, secrets
from mem.domain import reward_signals
from mem.errors import MemError
from mem.files import locking, safe_paths, writing

SCORES = layout.PATTERN_SCORES
PROMOTIONS = layout.PROMOTIONS
PATTERN_NOTES = layout.PATTERN_NOTES


def read_scores(root: str) -> dict[str, Any]:
    """Every stored score, keyed by pattern id; {} when there is no file yet.

    Deviation D4: a file that is not JSON is refused, never reset (the reference overwrote
    it with fresh priors). A JSON value that is not an object is refused too: the
    reference would drop its content (or, for an array, lose the new score) on writing.
    """
    data = safe_paths.read_plain(root, SCORES)
    if data is None:
        return {}
    try:
        scores = js.parse_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise MemError(
            "Pattern scores file is not valid JSON; inspect it before writing."
        ) from None
    if not isinstance(scores, dict):
        raise MemError("Pattern scores file is not a JSON object; inspect it before writing.")
    return scores


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
        scores = read_scores(root)
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
            writing.append_line(root, PROMOTIONS, js.stringify(result.promotion) + "\n")
        writing.write_atomic(root, SCORES, scores_text)
    return result


def missing_section_warning(root: str, pattern_id: str) -> str | None:
    """Deviation D12: a pattern id that names no `###` section is probably a typo."""
    headings = _headings(root)
    if pattern_id in headings:
        return None
    warning = f'no "### {pattern_id}" section in patterns.md'
    closest = patterns.closest_heading(pattern_id, headings)
    return warning if closest is None else f'{warning} (did you mean "{closest}"?)'


def _headings(root: str) -> set[str]:
    headings: set[str] = set()
    for relative in PATTERN_NOTES:
        data = safe_paths.read_plain(root, relative)
        if data is not None:
            text = data.decode("utf-8", errors="replace")
            headings.update(note.heading for note in parse.split_sections(text))
    return headings


def scored_patterns(root: str) -> list[patterns.ScoredPattern]:
    """Every scored pattern with its newest promotion status, read from the files."""
    scores = read_scores(root)
    promotions = parse.parse_journal(safe_paths.read_plain(root, PROMOTIONS) or b"")
    return patterns.scored_patterns(scores, _headings(root), patterns.newest_statuses(promotions))
