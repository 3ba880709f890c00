"""`mem browse` as a person uses it: a real headless Chromium on the pages it serves.

One `mem browse` process and one browser serve the whole module; every page is opened
the way a person would reach it (links, the search form) and the assertions are on the
rows shown. Only loopback addresses are ever opened.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from support import FIXTURES
from support.browse import Browse, browsing, build_project, environment
from support.headless_browser import Browser, chromium_or_reason
from support.portfolios import register

from mem import index
from mem.core.text import schema_docs
from mem.index import browse_copy


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browse, dict[str, str]]]:
    project, env, receipts = build_project(tmp_path_factory.mktemp("browse"))
    with browsing(env, project) as running:
        yield running, receipts


@pytest.fixture(scope="module")
def served_portfolio(
    served: tuple[Browse, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Browse]:
    """A brain with two projects registered: the module's project (alpha) and the demo."""
    base = tmp_path_factory.mktemp("portfolio")
    brain = base / "brain"
    demo = base / "demo"
    shutil.copytree(FIXTURES / "demo", demo, symlinks=True)
    alpha = Path(served[0].root)
    register(brain, alpha, "alpha")
    register(brain, demo, "demo")
    env = environment(base / "home")
    (base / "home" / "tmp").mkdir(parents=True)
    with browsing(env, alpha, "--portfolio", "--brain", str(brain)) as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable, reason = chromium_or_reason()
    if executable is None:
        pytest.skip(reason)
    opened = Browser(executable, tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def page(served: tuple[Browse, dict[str, str]], browser: Browser) -> Iterator[Page]:
    yield Page(served[0].url, browser)


class Page:
    def __init__(self, database_url: str, browser: Browser) -> None:
        self.database_url = database_url
        self.browser = browser

    def open(self, path: str = "") -> Browser:
        self.browser.open(self.database_url + path)
        assert "message-error" not in str(self.browser.evaluate("document.body.innerHTML")), (
            self.browser.text()
        )
        return self.browser

    def query(self, name: str) -> list[dict[str, str]]:
        self.open(f"/{name}")
        return self.browser.rows()


def pick(rows: list[dict[str, str]], *columns: str) -> list[tuple[str, ...]]:
    return [tuple(row[column] for column in columns) for row in rows]


def test_the_url_is_loopback_only_and_the_home_page_lists_every_query(
    served: tuple[Browse, dict[str, str]], page: Page
) -> None:
    running, _ = served
    assert running.url.startswith("http://127.0.0.1:")
    text = page.open().text()
    assert "as it was when `mem browse` started" in text
    links = page.browser.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('a'))"
        ".map(a => [a.innerText.trim(), a.href]))"
    )
    for query in browse_copy.CANNED_QUERIES:
        assert links[query.title] == f"{running.url}/{query.name}"


def test_the_landing_page_starts_with_the_memory_views_and_hides_the_index_tables(
    served: tuple[Browse, dict[str, str]], page: Page
) -> None:
    running, _ = served
    browser = page.open()  # the URL mem browse prints
    text = browser.text()
    links = browser.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('#memory + ul a'))"
        ".map(a => [a.innerText.trim(), a.href]))"
    )
    assert links == {
        "Notes": f"{running.url}/notes",
        "Journal events": f"{running.url}/events",
        "Memories needing review": f"{running.url}/memories_needing_review",
        "Search notes and events": f"{running.url}/search",
    }
    assert "Notes (10 rows): One row per note" in text
    assert "Journal events (3 rows): One row per journal event" in text
    assert text.index("Memory\n") < text.index("Custom SQL query") < text.index("Tables\n")
    listed = browser.evaluate(
        "Array.from(document.querySelectorAll('.db-table h3')).map(h => h.innerText.trim())"
    )
    assert "memories" in listed
    assert not set(listed) & set(browse_copy.INTERNAL_TABLES)
    for internal in ("checkout_files", "file_blocks", "postings", "meta"):
        assert internal not in text.split(), internal
    assert f"and {len(browse_copy.INTERNAL_TABLES) + 4} hidden tables" in text  # + FTS storage
    # The first link opens the notes view: its rows, then what the columns mean, then the
    # view's schema.
    browser.open(links["Notes"])
    assert "Hetzner firewall first" in {row["heading"] for row in browser.rows()}
    tops = browser.evaluate(
        "['table.rows-and-columns', 'dl.column-descriptions', 'pre.wrapped-sql']"
        ".map(selector => document.querySelector(selector).getBoundingClientRect().top)"
    )
    assert tops == sorted(tops) and len(set(tops)) == 3


@pytest.mark.parametrize("query", browse_copy.CANNED_QUERIES, ids=lambda query: query.name)
def test_every_canned_query_opens_with_its_description(
    page: Page, query: browse_copy.CannedQuery
) -> None:
    page.query(query.name)
    text = page.browser.text()
    assert query.title in text
    assert query.description.split("`")[0].strip() in text
    assert "message-error" not in str(page.browser.evaluate("document.body.innerHTML"))


def test_memories_needing_review_are_those_whose_evidence_changed_or_went_missing(
    page: Page,
) -> None:
    rows = page.query("memories_needing_review")
    assert pick(rows, "heading", "audit", "source", "source_status", "reason") == [
        ("Cache contract", "missing", "src/limits.py", "missing", "does not exist"),
        (
            "Billing export",
            "changed",
            "src/retry.py",
            "changed",
            "differs from the record (same size, different SHA-256)",
        ),
    ]


def test_retired_memories_show_why_and_their_successor(page: Page) -> None:
    rows = page.query("retired_memories")
    assert pick(rows, "heading", "status", "superseded_by", "reason") == [
        ("Cache shortcut", "retracted", "", "Hot values are never skipped"),
        (
            "Cache alternative",
            "superseded",
            "Cache resolution",
            "Versioned values replace redeploy drops",
        ),
    ]


def test_receipts_by_eligibility(page: Page, served: tuple[Browse, dict[str, str]]) -> None:
    _, receipts = served
    rows = page.query("receipts_by_eligibility")
    assert pick(rows, "eligibility", "memory_heading", "id") == [
        ("accepted-current", "Cache resolution", receipts["Cache resolution"]),
        ("superseded", "Cache contract", receipts["Cache contract"]),
        ("superseded", "Cache alternative", receipts["Cache alternative"]),
    ]


def test_events_per_agent_per_week(page: Page) -> None:
    rows = page.query("events_per_agent_per_week")
    assert pick(rows, "week", "agent", "events") == [
        ("2026-10-12", "sentinel", "1"),
        ("2026-10-05", "forge", "2"),
    ]


def test_pattern_scores_best_first_with_promotion_and_section(page: Page) -> None:
    rows = page.query("pattern_scores")
    assert pick(rows, "pattern_id", "mean", "updates", "promotion", "in_patterns_md") == [
        ("chromadb batch ingestion", "0.738", "3", "PROPOSED", "1"),
        ("flaky retry loop", "0.4", "1", "", "0"),
    ]


def test_the_search_form_finds_notes_and_events(page: Page) -> None:
    page.query("search")
    assert page.browser.rows() == []  # nothing typed yet: no rows, and no error
    page.browser.submit("form.sql", {"q": "Firewall HETZNER"})
    assert pick(page.browser.rows(), "kind", "file", "heading") == [
        ("note", ".agents/memory/lessons.md", "Hetzner firewall first")
    ]
    page.browser.submit("form.sql", {"q": "idempotency"})
    assert pick(page.browser.rows(), "kind", "agent") == [("event", "sentinel")]


def test_the_search_form_takes_any_text_without_an_error(page: Page) -> None:
    page.query("search")
    for typed in ('"', "AND (", "NOT", "cache*", "-", "'; DROP TABLE notes; --", " \t "):
        page.browser.submit("form.sql", {"q": typed})
        assert "message-error" not in str(page.browser.evaluate("document.body.innerHTML"))
        assert page.browser.evaluate("document.querySelector('form.sql').elements.q.value") == (
            typed
        )


def test_table_pages_describe_every_column_from_the_schema_comments(page: Page) -> None:
    described = {
        **schema_docs.describe(index.schema()),
        **schema_docs.describe(browse_copy.BROWSE_SCHEMA),
    }
    for table in ("notes", "events", "memories", "receipts"):
        text = page.open(f"/{table}").text()
        assert described[table].description in text
        for column, description in described[table].columns.items():
            assert f"{column}\n{description}" in text, (table, column)


def test_facets_count_agents_and_files(page: Page) -> None:
    text = page.open("/events").text()
    assert "forge 2" in text and "sentinel 1" in text
    text = page.open("/memories").text()
    assert ".agents/memory/lessons.md 8" in text


def test_the_notes_search_box_uses_the_full_text_index(page: Page) -> None:
    browser = page.open("/notes")
    browser.submit("form.filters", {"_search": "hetzner"})
    assert pick(browser.rows(), "heading") == [("Hetzner firewall first",)]


@pytest.mark.parametrize(
    ("statement", "refusal"),
    [
        ("DELETE FROM memories", "Statement must be a SELECT"),
        ("UPDATE notes SET heading = 'x'", "Statement must be a SELECT"),
        ("INSERT INTO review_problems VALUES ('x', 'y')", "Statement must be a SELECT"),
        ("DROP TABLE memories", "Statement must be a SELECT"),
        ("PRAGMA journal_mode = WAL", "Statement must be a SELECT"),
        ("ATTACH DATABASE 'other.sqlite' AS other", "Statement must be a SELECT"),
        ("SELECT 1; DELETE FROM memories", "You can only execute one statement at a time."),
        # Datasette lets a WITH pass as a read; the immutable open is what refuses it.
        ("WITH x AS (SELECT 1) DELETE FROM memories", "attempt to write a readonly database"),
    ],
)
def test_no_statement_can_write_through_the_pages(page: Page, statement: str, refusal: str) -> None:
    page.browser.open(f"{page.database_url}?sql={quote(statement)}")
    assert refusal in page.browser.text()


def test_after_every_attempt_the_data_is_unchanged(page: Page) -> None:
    rows = page.open("/memories").rows()
    assert len(rows) == 10 and "Cache contract" in {row["heading"] for row in rows}
    assert page.query("retired_memories") != []


def test_markup_in_memory_is_shown_as_text_never_run(page: Page) -> None:
    heading = "Escaping <script>window.owned = 1</script> & <b>markup</b>"
    browser = page.open("/notes")
    assert heading in [row["heading"] for row in browser.rows()]
    page.query("search")
    browser.submit("form.sql", {"q": "escaping markup"})
    assert pick(browser.rows(), "heading") == [(heading,)]
    assert browser.evaluate("typeof window.owned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('td b, td img, td script').length") == 0


def test_the_portfolio_shows_every_project_by_name(
    served_portfolio: Browse, browser: Browser
) -> None:
    assert served_portfolio.url.endswith("/portfolio")
    assert "(2 projects, " in served_portfolio.first_lines
    page = Page(served_portfolio.url, browser)
    assert pick(page.query("memories_needing_review"), "project", "heading", "source") == [
        ("alpha", "Cache contract", "src/limits.py"),
        ("alpha", "Billing export", "src/retry.py"),
    ]
    assert pick(page.query("retired_memories"), "project", "heading") == [
        ("alpha", "Cache shortcut"),
        ("alpha", "Cache alternative"),
    ]
    weeks = pick(page.query("events_per_agent_per_week"), "week", "project", "agent", "events")
    assert ("2026-10-05", "alpha", "forge", "2") in weeks
    assert ("2026-09-28", "demo", "forge", "1") in weeks
    assert [row["project"] for row in page.query("receipts_by_eligibility")] == ["alpha"] * 3
    page.query("search")
    browser.submit("form.sql", {"q": "hetzner firewall"})
    assert sorted(pick(browser.rows(), "project", "heading")) == [
        ("alpha", "Hetzner firewall first"),
        ("demo", "Hetzner firewall first"),
    ]
    text = page.open("/notes").text()
    assert "project_name" in text and "alpha 10" in text and "demo 8" in text
