"""`mem doctor hooks`: whether each host's mem hooks will run here (mem.domain.hook_health)."""

from __future__ import annotations

from typing import Any

from mem.domain import hook_health


def hooks(root: str) -> dict[str, Any]:
    return hook_health.check(root)
