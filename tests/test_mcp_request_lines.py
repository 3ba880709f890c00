"""`mem mcp` reads request lines as the SDK's own transport would: a line that is not a
JSON-RPC message is passed over and the requests after it are answered, and bytes that are
not UTF-8 are read as replacement characters rather than refusing the request."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import mem_command
from mcp_wire import (
    INITIALIZE,
    INITIALIZED,
    exchange,
    recall_request,
    replies_of,
    request_lines,
)


def test_a_line_that_is_not_a_message_is_passed_over(project: Path) -> None:
    requests = (
        request_lines(INITIALIZE, INITIALIZED)
        + b"this is not JSON\n"
        + b'{"jsonrpc": "2.0", "id": 7}\n'  # JSON, but no message of JSON-RPC
        + request_lines(recall_request(2, "postgres"))
    )
    output, _ = exchange([*mem_command(), "mcp", "-d", str(project)], requests, 2)
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, 2]
    assert replies[1]["result"]["structuredContent"]["count"] > 0


def test_bytes_that_are_not_utf8_become_replacement_characters(project: Path) -> None:
    broken = json.dumps(recall_request(2, "postgres QUERY")).encode().replace(b"QUERY", b"\xff")
    requests = request_lines(INITIALIZE, INITIALIZED) + broken + b"\n"
    output, _ = exchange([*mem_command(), "mcp", "-d", str(project)], requests, 2)
    answer = replies_of(output)[1]["result"]
    assert answer["structuredContent"]["query"] == "postgres \ufffd"
    assert answer["structuredContent"]["count"] > 0
