"""`mem mcp` reads request lines on the SDK's own stdio transport: a line far longer than a
pipe's buffer is answered, a line that is not a JSON-RPC message is answered with an error and
the requests after it are answered, and bytes that are not UTF-8 are read as replacement
characters rather than refusing the request."""

from __future__ import annotations

import json
from pathlib import Path

from support.mcp_wire import (
    FORKED_MEM,
    exchange,
    opening,
    recall_request,
    replies_of,
    request_lines,
)


def test_a_request_far_longer_than_a_pipe_buffer_is_answered(project: Path) -> None:
    long_query = "postgres " + "word " * 100_000  # half a megabyte on one line
    output, _ = exchange(
        [FORKED_MEM, "mcp", "-d", str(project)],
        opening(recall_request(2, long_query), recall_request(3, "postgres")),
        3,
    )
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    long_answer, short_answer = (reply["result"]["structuredContent"] for reply in replies[1:])
    assert long_answer["query"] == long_query and long_answer["count"] > 0
    assert short_answer["results"][0]["ref"] == long_answer["results"][0]["ref"]


def test_a_line_that_is_not_a_message_is_answered_and_passed_over(project: Path) -> None:
    requests = (
        opening()
        + b"this is not JSON\n"
        + b'{"jsonrpc": "2.0", "id": 7}\n'  # JSON, but no message of JSON-RPC
        + request_lines(recall_request(2, "postgres"))
    )
    output, _ = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 4)
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, None, 7, 2]
    assert [replies[1]["error"]["code"], replies[2]["error"]["code"]] == [-32700, -32600]
    assert replies[3]["result"]["structuredContent"]["count"] > 0


def test_bytes_that_are_not_utf8_become_replacement_characters(project: Path) -> None:
    broken = json.dumps(recall_request(2, "postgres QUERY")).encode().replace(b"QUERY", b"\xff")
    requests = opening() + broken + b"\n"
    output, _ = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 2)
    answer = replies_of(output)[1]["result"]
    assert answer["structuredContent"]["query"] == "postgres \ufffd"
    assert answer["structuredContent"]["count"] > 0
