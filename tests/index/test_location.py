"""The index version changes whenever the schema or the parser does."""

from __future__ import annotations

from mem import index
from mem.index import location


def test_the_index_version_is_the_hash_of_the_schema_and_parser_version() -> None:
    # A recall reads INDEX_VERSION as a constant; an index built with another schema or
    # parser must get another name, or an old index would be opened by a new mem.
    expected = location.schema_version(index.schema())
    assert index.INDEX_VERSION == expected, (
        f'migrations/schema.sql or PARSER_VERSION changed: set INDEX_VERSION = "{expected}"'
        " in mem/index/__init__.py"
    )


def test_any_edit_of_the_schema_changes_the_version() -> None:
    text = index.schema()
    assert location.schema_version(text + "\n") != location.schema_version(text)
