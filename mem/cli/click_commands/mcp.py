"""`mem mcp`: serve the memory tools to agents over MCP (stdio)."""

from __future__ import annotations

import contextlib
import importlib.util

import click

from mem import index
from mem.cli import surface
from mem.core.prose import extras
from mem.errors import MemError
from mem.files import safe_paths
from mem.mcp import server


@click.command(cls=surface.MemCommand, name="mcp")
@surface.directory_option
@click.option(
    "--tools",
    "tool_set",
    default="core",
    metavar="SET",
    help="core (default: recall, context, write, note_add, supersede, retract) or all.",
)
def mcp_command(directory: str | None, tool_set: str) -> None:
    """Serve the memory tools to agents over MCP (stdio).

    Tools: recall, context, write, note_add, supersede, retract; with --tools all also
    reinforce, patterns, status, audit, evidence_add, evidence_list and the Nexus tools
    observe and outcomes (every tool answers a call either way). Each answers with its
    command's --json output. Needs the optional extra:

    \b
        pipx inject mem-project 'mcp>=2.3'
        pip install './mem-project[mcp]'   (with pip, from the checkout)

    \b
    Example:
        claude mcp add mem -- mem mcp -d ~/dev/shop
    """
    if importlib.util.find_spec("mcp") is None:
        raise MemError(f"the MCP server needs the optional MCP SDK: {extras.install_hint('mcp')}")

    if tool_set not in ("core", "all"):
        raise MemError(f"--tools must be core or all, not {tool_set!r}")
    root = safe_paths.project_root(directory)
    # Sync before the SDK is imported: the transient memory of a first build is then reused
    # by the SDK's modules instead of adding to them, and the first call finds a warm index.
    # A project whose index cannot be built now is served all the same: its recall says why.
    with contextlib.suppress(MemError):
        index.sync_project(root)
    server.serve(root, tool_set)
