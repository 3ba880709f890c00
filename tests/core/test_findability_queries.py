"""The queries `mem check findability` tries for a note: what a user could type for it."""

from __future__ import annotations

from mem.core.ranking import findability


def _texts(heading: str, body: str = "") -> list[tuple[str, str]]:
    return [tuple(query) for query in findability.queries(heading, f"{heading}\n{body}")]


def test_the_heading_gives_its_content_words_without_dates_or_stop_words() -> None:
    assert _texts("2026-06-02 — Use the pgbouncer pooling for Postgres") == [
        ("heading", "pgbouncer pooling postgres")
    ]


def test_identifiers_and_paths_are_queries_of_their_own_three_at_most() -> None:
    body = (
        "Set server_idle_timeout in deploy/pgbouncer.ini; ids are uuid-v7, see 12-factor"
        " and connectionPool. Released in 1.4.2 on 2026-06-02."
    )
    assert _texts("Pool connections", body) == [
        ("heading", "pool connections"),
        ("identifier", "server_idle_timeout"),
        ("identifier", "deploy/pgbouncer.ini"),
        ("identifier", "uuid-v7"),
    ]


def test_an_aliases_line_gives_one_query_per_entry() -> None:
    body = "- **Aliases**: idempotency key, dedupe; retry token\nKeys expire after a day."
    assert _texts("Idempotent payments", body) == [
        ("heading", "idempotent payments"),
        ("alias", "idempotency key"),
        ("alias", "dedupe"),
        ("alias", "retry token"),
    ]


def test_a_query_that_searches_the_same_terms_is_tried_once() -> None:
    assert _texts("Cache", "Aliases: cache, CACHE, Cache") == [("heading", "cache")]


def test_a_heading_of_stop_words_only_gives_no_query() -> None:
    assert _texts("What we do", "and why") == []


def test_near_duplicates_are_notes_of_different_projects_with_the_same_heading_words() -> None:
    notes = [
        findability.Note(1, "/a", "decisions.md", "Pool Postgres connections", "pool postgres xx"),
        findability.Note(2, "/b", "lessons.md", "Postgres connections pool", "pool postgres yy"),
        findability.Note(3, "/a", "lessons.md", "Pool postgres connections", "same project"),
        findability.Note(4, "/c", "decisions.md", "Pool connections", "other words"),
    ]
    found = findability.near_duplicates(notes)
    assert [[note["project"] for note in pair["notes"]] for pair in found] == [
        ["/a", "/b"],
        ["/b", "/a"],
    ]
    assert found[0]["similarity"] == 0.5


def test_a_heading_in_any_script_gives_its_words_as_typed() -> None:
    assert _texts("Ошибка миграции базы") == [("heading", "ошибка миграции базы")]
    assert _texts("冪等キー 決済") == [("heading", "冪等キー 決済")]
    assert _texts("Déconnexion après 30 min") == [("heading", "déconnexion après min")]
