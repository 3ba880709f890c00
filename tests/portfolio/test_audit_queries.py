"""Every audit query docs/index-schema.md shows runs on a real portfolio's index; those of
the portfolio index return rows there."""

from __future__ import annotations

import re
import sqlite3

import pytest
from support import REPO
from support.portfolios import audited_portfolio

from mem.index import check

SCHEMA_PAGE = REPO / "docs" / "index-schema.md"


def _queries(heading: str) -> list[tuple[list[str], str]]:
    """(the statements that set it up, the query) for each query the page shows under the
    heading: a query run through FTS5 first fills a temporary table on the same connection."""
    text = SCHEMA_PAGE.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    queries, setup = [], []
    for block in re.findall(r"```sql\n(.*?)```", section, flags=re.DOTALL):
        for part in block.split(";"):
            statement = part.strip()
            if not statement:
                continue
            code = "\n".join(line for line in statement.splitlines() if not line.startswith("--"))
            if code.lstrip().upper().startswith(("CREATE", "INSERT")):
                setup.append(statement)
            else:
                queries.append((setup, statement))
                setup = []
    return queries


QUERIES = _queries("The portfolio index")
PROJECT_QUERIES = _queries("The project index")


def test_the_page_shows_at_least_the_five_portfolio_audits() -> None:
    text = "\n".join(query for _, query in QUERIES).lower()
    assert len(QUERIES) >= 5
    for needle in (
        "events",
        "postings",
        "match",
        "evidence_state",
        "pattern_scores",
        "receipt_state",
    ):
        assert needle in text


@pytest.fixture(scope="module")
def portfolio_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    base = tmp_path_factory.mktemp("portfolio")
    brain, _ = audited_portfolio(base)
    return check.portfolio_path(str(brain.resolve()))


@pytest.mark.parametrize(
    ("setup", "query"),
    QUERIES,
    ids=[(setup[0] if setup else query).splitlines()[0][3:40] for setup, query in QUERIES],
)
def test_each_audit_query_returns_rows(portfolio_index: str, setup: list[str], query: str) -> None:
    # Read-only, as an auditor may open it: a query's setup writes to the temp schema only.
    conn = sqlite3.connect(f"file:{portfolio_index}?mode=ro", uri=True)
    try:
        for statement in setup:
            conn.execute(statement)
        rows = conn.execute(query).fetchall()
    finally:
        conn.close()
    assert rows, query


def test_the_project_index_queries_run_on_the_same_schema(portfolio_index: str) -> None:
    # A portfolio index has every table and view of a project index, with more roots.
    assert len(PROJECT_QUERIES) >= 5
    conn = sqlite3.connect(f"file:{portfolio_index}?mode=ro", uri=True)
    try:
        for setup, query in PROJECT_QUERIES:
            assert not setup
            conn.execute(query).fetchall()
    finally:
        conn.close()


def test_the_full_text_audit_counts_each_projects_matching_notes(portfolio_index: str) -> None:
    ((setup, query),) = [(setup, query) for setup, query in QUERIES if "MATCH" in query]
    conn = sqlite3.connect(f"file:{portfolio_index}?mode=ro", uri=True)
    try:
        for statement in setup:
            conn.execute(statement)
        found = dict(conn.execute(query).fetchall())
        expected = dict(
            conn.execute(
                "SELECT project_name, count(*) FROM notes WHERE lower(text) LIKE '%pgbouncer%'"
                " GROUP BY project_name"
            ).fetchall()
        )
    finally:
        conn.close()
    assert found == expected
    assert found


def test_the_audits_see_each_project_apart(portfolio_index: str) -> None:
    conn = sqlite3.connect(f"file:{portfolio_index}?mode=ro", uri=True)
    try:
        evidence = conn.execute(
            "SELECT project_name, path, state FROM evidence_state ORDER BY 1, 2"
        ).fetchall()
        receipts = conn.execute(
            "SELECT project_name, eligibility FROM receipt_state ORDER BY 1"
        ).fetchall()
        retired = conn.execute(
            "SELECT p.name, r.heading FROM retired AS r JOIN projects AS p ON p.id = r.project_id"
            " ORDER BY 1"
        ).fetchall()
    finally:
        conn.close()
    names = [f"project-{number}" for number in range(3)]
    assert evidence == [
        (name, path, state)
        for name in names
        for path, state in (("src/gone.py", "missing"), ("src/pool.py", "changed"))
    ]
    assert receipts == [(name, "needs-nexus-proof") for name in names]
    assert retired == [(name, "Old cache") for name in names]
