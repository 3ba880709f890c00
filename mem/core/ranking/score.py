"""Lexical scores, recency decay and the total order of recall results. Pure."""

from __future__ import annotations

import math

from mem import layout
from mem.core.javascript import jsmath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

HALF_LIFE_DAYS = 30
DAY_MS = 86_400_000


def lexical(frequencies: Sequence[int], length: int, width: int | None = None) -> float:
    """coverage × Σ(1 + ln tf) / √n, summed in query-token order as the reference does.

    `width` is |Q|, the number of distinct query tokens; it defaults to len(frequencies).
    Passing it lets `frequencies` omit the tokens a record lacks (they add nothing).
    """
    width = len(frequencies) if width is None else width
    if not width or length == 0:
        return 0.0
    matched = 0
    hits = 0.0
    for frequency in frequencies:
        if frequency > 0:
            matched += 1
            hits += jsmath.log1p_weight(frequency)
    if matched == 0:
        return 0.0
    return hits * (matched / width) / math.sqrt(length)


def decay(age_days: float | None) -> float:
    """The factor an event's score is multiplied by: half every 30 days; 1 for no age (an
    undated or future event). The one place it is computed, so `--explain` shows the very
    factor the ranking used."""
    if age_days is None or age_days <= 0:
        return 1.0
    return jsmath.pow(0.5, age_days / HALF_LIFE_DAYS)


def decayed(score: float, event_ms: float | None, now_ms: float | None) -> float:
    """Events lose half their score every 30 days; future or undated events keep it."""
    if now_ms is None or event_ms is None or score <= 0 or not now_ms > event_ms:
        return score
    return score * decay((now_ms - event_ms) / DAY_MS)


# Archived journals (`mem archive journal`) take ranks from here: on ties they come right
# after the live journal and before the notes.
ARCHIVE_RANK_BASE = layout.ARCHIVE_RANK_BASE
SHARD_RANK_BASE = layout.SHARD_RANK_BASE


class Ranked:
    """A record's exact score, with what orders it among equal scores."""

    __slots__ = ("score", "rank", "ordinal", "id", "project")

    def __init__(self, score: float, rank: int, ordinal: int, id: int, project: str = "") -> None:
        self.score = score
        self.rank = rank  # source position in candidate order
        self.ordinal = ordinal  # position within the source
        self.id = id
        self.project = project  # the root's real path, across a portfolio; "" within one project

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ranked) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"Ranked{self._key()!r}"

    def _key(self) -> tuple[float, int, int, int, str]:
        return self.score, self.rank, self.ordinal, self.id, self.project


def order(items: Iterable[Ranked], limit: int) -> list[Ranked]:
    """Score descending; ties keep candidate order.

    Candidate order: events in file order, then notes by directory, file and section.
    Across a portfolio, equal scores go by project path first, then each project's own
    candidate order, so every project's results keep their relative order.
    """
    return sorted(items, key=_candidate_order)[:limit]


def _candidate_order(item: Ranked) -> tuple[float, str, int, int, int]:
    return (-item.score, item.project, _tier(item.rank), item.rank, item.ordinal)


def _tier(rank: int) -> int:
    if rank == 0 or rank >= SHARD_RANK_BASE:  # the journal and its shards (D13)
        return 0
    return 1 if layout.is_archive_rank(rank) else 2
