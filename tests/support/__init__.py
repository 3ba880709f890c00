"""What the tests share: running `mem`, trees of files, indexes, corpora, portfolios, fixtures.

Test modules import these as `support.<module>` (pytest puts tests/ on the path).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
FIXTURES = REPO / "fixtures"
