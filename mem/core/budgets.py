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
