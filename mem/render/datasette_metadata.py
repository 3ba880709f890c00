"""Datasette's metadata for `mem browse`: what each table and column means, canned queries, facets.

Pure: the descriptions come from the schema files' comments (mem.core.schema_docs), so a
table or column added to the schema is described where it is declared and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mem.core.schema_docs import TableDoc

# Columns worth counting values of, wherever a table or view has them.
FACET_COLUMNS = ("project_name", "agent", "file", "memory_file")


def build(
    *,
    title: str,
    description: str,
    database: str,
    docs: Mapping[str, TableDoc],
    queries: Sequence[tuple[str, str, str, str]],
    searchable: Mapping[str, tuple[str, str]],
    label_columns: Mapping[str, str],
) -> dict[str, Any]:
    """The metadata dict Datasette takes.

    `queries` are (name, title, description, sql); `searchable` maps a table or view to the
    full-text table that indexes it and the column that table's rowid matches.
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
        tables[name] = entry
    return {
        "title": title,
        "description": description,
        "databases": {
            database: {
                "description": description,
                "tables": tables,
                "queries": {
                    name: {"title": query_title, "description": text, "sql": sql}
                    for name, query_title, text, sql in queries
                },
            }
        },
    }
