"""`mem cache`: find or empty the cache directory where the indexes live."""

from __future__ import annotations

import click

from mem.cli import surface
from mem.commands import index_cache
from mem.files import safe_paths
from mem.render import report


@click.group(cls=surface.SubGroup, name="cache")
def cache_group() -> None:
    """Find or empty the cache directory where the indexes live."""


@cache_group.command(name="dir")
@surface.json_option
def cache_dir(json_: bool) -> None:
    """Print the cache directory, where the indexes live.

    $MEM_CACHE_DIR, else $XDG_CACHE_HOME/mem, else ~/.cache/mem.

    \b
    Example:
        du -sh "$(mem cache dir)"
    """
    surface.echo(report.cache_dir(index_cache.cache_dir(), as_json=json_))


@cache_group.command(name="clean")
@surface.directory_option
@click.option("--all", "all_", is_flag=True, help="Every index in the cache, of every project.")
@surface.json_option
def cache_clean(directory: str | None, all_: bool, json_: bool) -> None:
    """Delete the project's index from the cache (or --all).

    Only index files in the cache directory are deleted, never a project's files; the next
    read builds what it needs again. Before `pip uninstall`, `mem cache clean --all`.

    \b
    Example:
        mem cache clean
        mem cache clean --all --json
    """
    root = None if all_ else safe_paths.project_root(directory)
    surface.echo(report.cache_clean(index_cache.cache_clean(root), as_json=json_))
