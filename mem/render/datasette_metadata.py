"""Datasette's metadata for `mem browse`: what each table and column means, canned queries, facets.

Pure: the descriptions come from the schema files' comments (mem.core.text.schema_docs), so a
table or column added to the schema is described where it is declared and nowhere else.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from mem.core.text.schema_docs import TableDoc

# Columns worth counting values of, wherever a table or view has them.
FACET_COLUMNS = ("project_name", "agent", "file", "memory_file")
# A table's or view's page shows its rows first, then what its columns mean and its schema
# (Datasette puts the column descriptions above the rows, a screen of them for the views).
PAGE_CSS = (
    "body.table section.content{display:flex;flex-direction:column}"
    "body.table dl.column-descriptions{order:1}"
    'body.table dl.column-descriptions::before{content:"Columns";display:block;'
    "font-weight:bold;font-size:1.17em;margin:1em 0 0.5em}"
    "body.table pre.wrapped-sql{order:2}"
)


def build(
    *,
    title: str,
    description: str,
    database: str,
    docs: Mapping[str, TableDoc],
    queries: Sequence[tuple[str, str, str, str]],
    searchable: Mapping[str, tuple[str, str]],
    label_columns: Mapping[str, str],
    hidden: Collection[str] = (),
    start: Sequence[tuple[str, str, int | None]] = (),
) -> dict[str, Any]:
    """The metadata dict Datasette takes.

    `queries` are (name, title, description, sql); `searchable` maps a table or view to the
    full-text table that indexes it and the column that table's rowid matches; `hidden`
    tables are listed only behind the page's "hidden tables" link; `start` (a view or
    query, its title, its rows or None) is listed first on the database's page, under its
    description.
    """
    tables: dict[str, Any] = {}
    for name, doc in docs.items():
        entry: dict[str, Any] = {"description": doc.description, "columns": dict(doc.columns)}
        facets = [column for column in FACET_COLUMNS if column in doc.columns]
        if facets:
            entry["facets"] = facets
        if name in searchable:
            entry["fts_table"], entry["fts_pk"] = searchable[name]
        if name in label_columns:
            entry["label_column"] = label_columns[name]
        if name in hidden:
            entry["hidden"] = True
        tables[name] = entry
    described = {name: doc.description for name, doc in docs.items()}
    described.update((name, text) for name, _, text, _ in queries)  # the search query's own
    return {
        "title": title,
        "description": description,
        "extra_css_urls": ["data:text/css," + quote(PAGE_CSS)],
        "databases": {
            database: {
                "description": description,
                "description_html": _start_html(database, description, start, described),
                "tables": tables,
                "queries": {
                    name: {"title": query_title, "description": text, "sql": sql}
                    for name, query_title, text, sql in queries
                },
            }
        },
    }


def _start_html(
    database: str,
    description: str,
    start: Sequence[tuple[str, str, int | None]],
    described: Mapping[str, str],
) -> str:
    """The database page's description, then a list of what to open first."""
    items = []
    for name, title, rows in start:
        counted = "" if rows is None else f" ({rows:,} row{'' if rows == 1 else 's'})"
        items.append(
            f'<li><a href="/{html.escape(database)}/{html.escape(name)}">{html.escape(title)}</a>'
            f"{counted}: {html.escape(described.get(name, ''))}</li>"
        )
    listed = (
        f'<h2 id="memory">Memory</h2><ul class="bullets">{"".join(items)}</ul>' if items else ""
    )
    return f"<p>{html.escape(description)}</p>{listed}"
