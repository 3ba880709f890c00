"""`mem mcp` answers every request that has an id, whatever its line holds: a lone surrogate
in an argument (what JSON.stringify writes for a string cut inside an emoji), params of the
wrong shape, a line that is not JSON (-32700), and a NUL byte in `directory` (a tool error
with the CLI's message, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import mem_command
from support.mcp_wire import INITIALIZE, INITIALIZED, exchange, replies_of, request_lines


def call(number: int, arguments: dict[str, object]) -> bytes:
    request = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "recall", "arguments": arguments},
    }
    return json.dumps(request).encode() + b"\n"


def test_every_request_with_an_id_gets_a_response(project: Path) -> None:
    requests = (
        request_lines(INITIALIZE, INITIALIZED)
        + call(2, {"query": "postgres a\ud83d"})  # json.dumps writes the escape "\ud83d"
        + b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1,2]}\n'
        + b"this is not JSON\n"
        + call(4, {"query": "postgres"})
    )
    output, errors = exchange([*mem_command(), "mcp", "-d", str(project)], requests, 5)
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, 2, 3, None, 4]
    assert replies[1]["result"]["structuredContent"]["query"] == "postgres a\ufffd"
    assert replies[1]["result"]["structuredContent"]["count"] > 0
    assert replies[2]["error"]["code"] == -32602
    assert replies[3]["error"]["code"] == -32700
    assert replies[4]["result"]["structuredContent"]["count"] > 0
    assert b"Traceback" not in errors


def test_a_nul_byte_in_directory_is_a_tool_error(project: Path) -> None:
    requests = request_lines(INITIALIZE, INITIALIZED) + call(2, {"query": "x", "directory": "a\0b"})
    output, errors = exchange([*mem_command(), "mcp", "-d", str(project)], requests, 2)
    result = replies_of(output)[1]["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Project directory does not exist: ")
    assert b"Traceback" not in errors
