"""Where indexes live, and which version of the schema and parser they were built by.

One database per indexed root (a project, a brain, or a brain's portfolio) in the user's
cache directory, never inside a project. Its file name carries the index version, and
``meta.index_version`` must match it too; anything else is rebuilt from the canonical
files, never altered.
"""

from __future__ import annotations

import os

import xxhash

from mem.core.text import parse


def schema_path() -> str:
    # Installed, migrations/ ships inside the package; in a checkout it sits beside it.
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (
        os.path.join(package, "migrations"),
        os.path.join(os.path.dirname(package), "migrations"),
    ):
        path = os.path.join(candidate, "schema.sql")
        if os.path.exists(path):
            return path
    raise FileNotFoundError("migrations/schema.sql is missing from this installation of mem")


def schema() -> str:
    """The SQL that builds an index (only builders and the browse docs read it)."""
    with open(schema_path(), encoding="utf-8") as file:
        return file.read()


def schema_version(schema_text: str) -> str:
    return xxhash.xxh3_64_hexdigest(f"{schema_text}\0parser {parse.PARSER_VERSION}".encode())


# schema_version(schema()), kept as a constant so that a recall need not read and hash the
# schema: tests/index/test_location.py fails, naming the new value, whenever schema.sql or
# PARSER_VERSION changes without it.
INDEX_VERSION = "6c5625fd85d61b29"


def cache_dir() -> str:
    explicit = os.environ.get("MEM_CACHE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "mem")
    return os.path.join(os.path.expanduser("~"), ".cache", "mem")


def usable_cache_dir() -> str | None:
    """The cache directory, created if need be; None when it cannot be written."""
    directory = cache_dir()
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return directory if os.access(directory, os.W_OK | os.X_OK) else None


def index_path(root: str, role: str, directory: str | None = None) -> str:
    """Where the index of a root lives: keyed by role and the root's real path."""
    key = xxhash.xxh3_128_hexdigest(f"{role}\0{root}".encode())[:20]
    return os.path.join(directory or cache_dir(), f"{role}-{key}-v{INDEX_VERSION}.sqlite")


# The roles an index is built for: a project's own, a brain's (its notes, for portfolio
# scope), and a brain's portfolio (the brain and every project registered in it).
PROJECT = "project"
BRAIN = "brain"
PORTFOLIO = "portfolio"
