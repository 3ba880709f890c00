"""`mem patterns`: the scored patterns, best first, with their newest promotion status."""

from __future__ import annotations

from mem import clock
from mem.core.rules import patterns
from mem.core.text import parse
from mem.domain import pattern_files
from mem.files import archives, safe_paths


def listed(root: str) -> list[patterns.ScoredPattern]:
    """Every scored pattern with its newest promotion status, read from the files."""
    scores = pattern_files.read_scores(root, clock.local_offset_ms)
    data = safe_paths.read_plain(root, pattern_files.PROMOTIONS) or b""
    # Promotions whose lines the store's archives hold count there, not here (D14).
    archived = archives.archived_lines(root, pattern_files.PROMOTIONS) if data else frozenset()
    promotions = parse.parse_journal(data, archived=archived)
    return patterns.scored_patterns(
        scores, pattern_files.headings(root), patterns.newest_statuses(promotions)
    )
