"""How large a brief may be: budgets in characters of output, as `--budget` takes them. Pure."""

from __future__ import annotations

from mem.errors import MemError

MIN_BUDGET = 400  # the brief's frame alone takes up to ~300 characters
MAX_BUDGET = 10_000_000


def parse_budget(text: str, option: str = "--budget") -> int:
    """A budget in characters: a whole number from MIN_BUDGET to MAX_BUDGET."""
    value = text.strip()
    if not value.isdigit() or not MIN_BUDGET <= int(value) <= MAX_BUDGET:
        raise MemError(
            f"{option} must be a whole number of characters from {MIN_BUDGET} to {MAX_BUDGET}."
        )
    return int(value)


def cut_at_word(text: str, limit: int) -> str:
    """The text whole when it has at most `limit` characters, else its start cut at a word
    and ended by `…`, `limit` characters at most ("" when no word fits)."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut + "…" if cut else ""
