"""Descriptions read from a schema's comments: tables, views, columns, virtual tables."""

from __future__ import annotations

import re
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from mem import index
from mem.core.text import schema_docs
from mem.index import browse_copy

SCHEMA = """-- A file header, kept apart by a blank line: it describes no table.

-- Settings,
-- one row per key.
CREATE TABLE meta (
    key TEXT PRIMARY KEY,           -- the setting's name
    -- spread over lines
    -- above the column
    value TEXT NOT NULL,            -- and after it
    note TEXT CHECK (note <> '--'), -- a '--' inside a string is not a comment
    plain INTEGER,
    long TEXT,                      -- a trailing comment
                                    -- continued below, aligned
    -- (and this one, placed apart, is above the next line)
    UNIQUE (key, value)             -- a constraint, not a column
);

CREATE INDEX meta_value ON meta (value);

-- Words, for searching.
--   term: one word
--   doc: where it is
CREATE VIRTUAL TABLE words USING fts5vocab (search, instance);

CREATE VIRTUAL TABLE search USING fts5 (
    body,                           -- the text searched
    tokenize = 'unicode61 remove_diacritics 2'
);

-- The settings with a value.
CREATE VIEW settings AS
SELECT
    m.key,                          -- meta.key
    upper(m.value) AS shouted,      -- the value, upper case
    m.plain
FROM meta AS m;
"""


def test_tables_views_and_columns_are_described_from_comments() -> None:
    docs = schema_docs.describe(SCHEMA)
    assert list(docs) == ["meta", "words", "search", "settings"]
    assert docs["meta"].description == "Settings, one row per key."
    assert docs["meta"].columns == {
        "key": "the setting's name",
        "value": "spread over lines above the column and after it",
        "note": "a '--' inside a string is not a comment",
        "long": "a trailing comment continued below, aligned",
    }
    assert docs["words"].description == "Words, for searching."
    assert docs["words"].columns == {"term": "one word", "doc": "where it is"}
    assert docs["search"].description == ""
    assert docs["search"].columns == {"body": "the text searched"}
    assert docs["settings"].description == "The settings with a value."
    assert docs["settings"].columns == {"key": "meta.key", "shouted": "the value, upper case"}


def test_the_example_schema_is_valid_sql() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        assert conn.execute("SELECT count(*) FROM settings").fetchone() == (0,)
    finally:
        conn.close()


def test_mems_schemas_describe_every_table_they_create() -> None:
    for sql in (index.schema(), browse_copy.BROWSE_SCHEMA):
        created = re.findall(r"^CREATE (?:VIRTUAL TABLE|TABLE|VIEW) (\w+)", sql, re.MULTILINE)
        docs = schema_docs.describe(sql)
        assert list(docs) == created
        assert all(docs[name].description for name in created)


KEYWORDS = {"constraint", "primary", "unique", "check", "foreign"}
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda name: name not in KEYWORDS
)
TEXTS = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda text: text.strip() and text.strip() == text)


@given(
    table=NAMES,
    description=TEXTS,
    columns=st.dictionaries(NAMES, TEXTS, min_size=1, max_size=8),
)
def test_what_is_written_in_comments_is_what_is_read(
    table: str, description: str, columns: dict[str, str]
) -> None:
    lines = [f"    {name} TEXT, -- {text}" for name, text in columns.items()]
    lines[-1] = lines[-1].replace(" TEXT, --", " TEXT --", 1)
    sql = f"-- {description}\nCREATE TABLE {table} (\n" + "\n".join(lines) + "\n);\n"
    docs = schema_docs.describe(sql)
    assert docs[table].description == description
    assert docs[table].columns == columns
