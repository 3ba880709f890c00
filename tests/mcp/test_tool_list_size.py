"""What `tools/list` costs every session: at most 4,000 characters by default (issue 24).

Measured on the wire, as the client receives it: the JSON-RPC line of the `tools/list`
reply. The admin and Nexus tools are listed only with `mem mcp --tools all`, and still
answer a call without it (a client's older list keeps working).
"""

from __future__ import annotations

import json
from pathlib import Path

from support.mcp_wire import (
    FORKED_MEM,
    INITIALIZE,
    INITIALIZED,
    exchange,
    replies_of,
    request_lines,
)

LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
CORE = {"recall", "context", "write", "note_add", "supersede", "retract"}
EVERY = CORE | {
    "reinforce",
    "patterns",
    "status",
    "audit",
    "evidence_add",
    "evidence_list",
    "observe",
    "outcomes",
}


def _listed(project: Path, *extra: str) -> tuple[int, set[str], dict[str, object]]:
    status = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "status", "arguments": {}},
    }
    output, _ = exchange(
        [FORKED_MEM, "mcp", "-d", str(project), *extra],
        request_lines(INITIALIZE, INITIALIZED, LIST, status),
        3,
    )
    lines = output.decode().splitlines()
    replies = replies_of(output)
    (position,) = [at for at, reply in enumerate(replies) if reply.get("id") == 2]
    names = {tool["name"] for tool in replies[position]["result"]["tools"]}
    (called,) = [reply for reply in replies if reply.get("id") == 3]
    return len(lines[position]), names, called["result"]


def test_the_default_tool_list_costs_at_most_4000_characters(project: Path) -> None:
    size, names, called = _listed(project)
    assert names == CORE
    assert size <= 4000, size
    assert called.get("isError") is not True  # an unlisted tool still answers


def test_every_tool_is_listed_when_asked_for(project: Path) -> None:
    size, names, _ = _listed(project, "--tools", "all")
    assert names == EVERY
    assert size > 4000


def test_the_core_list_is_smaller_than_a_third_of_the_old_one(project: Path) -> None:
    # 12,958 characters before issue 24: every tool, every argument, long descriptions.
    size, _, _ = _listed(project)
    assert size * 3 < 12958
    assert json.dumps({"size": size})
