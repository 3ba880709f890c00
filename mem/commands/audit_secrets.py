"""`mem audit --secrets [--portfolio]`: possible secrets already in memory, a CI gate.

Only reads (mem.domain.stored_secrets); the CLI exits 1 when anything is found.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mem.domain import stored_secrets
from mem.errors import MemError


def audit_secrets(
    root: str,
    portfolio: bool,
    allow: Iterable[str],
    *,
    asked: bool,
    memory_id: str | None,
    checkout_root: str | None,
    limit: str | None,
) -> dict[str, Any]:
    """The findings; `asked` is --secrets, the other keywords the options it does not take."""
    if not asked:
        raise MemError("--portfolio and --allow-secret go with --secrets (mem audit --secrets).")
    if memory_id is not None or checkout_root is not None or limit is not None:
        raise MemError("--secrets takes no memory id, --root or --limit: it reads every file.")
    return stored_secrets.audit(root, portfolio, allow)
