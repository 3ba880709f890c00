"""`mem patterns`: the scored patterns, best first, with their newest promotion status."""

from __future__ import annotations

from mem.core import parse, patterns
from mem.domain import pattern_files
from mem.files import safe_paths


def listed(root: str) -> list[patterns.ScoredPattern]:
    """Every scored pattern with its newest promotion status, read from the files."""
    scores = pattern_files.read_scores(root)
    promotions = parse.parse_journal(safe_paths.read_plain(root, pattern_files.PROMOTIONS) or b"")
    return patterns.scored_patterns(
        scores, pattern_files.headings(root), patterns.newest_statuses(promotions)
    )
