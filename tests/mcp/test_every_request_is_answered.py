"""`mem mcp` answers every request that has an id, whatever its line holds: a lone surrogate
in an argument (what JSON.stringify writes for a string cut inside an emoji), params of the
wrong shape, a line that is not JSON (-32700), and a NUL byte in `directory` (a tool error
with the CLI's message, no traceback)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support.cli import mem_command
from support.mcp_wire import (
    FORKED_MEM,
    INITIALIZE,
    INITIALIZED,
    exchange,
    replies_of,
    request_lines,
)


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
    output, errors = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 5)
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
    output, errors = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 2)
    result = replies_of(output)[1]["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Project directory does not exist: ")
    assert b"Traceback" not in errors


def test_input_that_ends_after_the_last_request_still_gets_every_answer(project: Path) -> None:
    """A client may close its end once it has written its requests (`printf ... | mem mcp`):
    the calls still in hand are answered, a write's answer included, before the server ends."""
    note = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "note_add", "arguments": {"kind": "decision", "title": "Half closed"}},
    }
    requests = request_lines(INITIALIZE, INITIALIZED, note) + b"".join(
        call(number, {"query": "postgres"}) for number in range(3, 40)
    )
    done = subprocess.run(
        [*mem_command(), "mcp", "-d", str(project)], input=requests, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    replies = replies_of(done.stdout)
    assert sorted(reply["id"] for reply in replies) == list(range(1, 40))
    assert "Half closed" in replies[1]["result"]["structuredContent"]["heading"]


def test_a_cancelled_request_does_not_hold_the_end_of_input(project: Path) -> None:
    cancelled = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "user"},
    }
    requests = request_lines(INITIALIZE, INITIALIZED) + call(2, {"query": "postgres"})
    done = subprocess.run(
        [*mem_command(), "mcp", "-d", str(project)],
        input=requests + request_lines(cancelled),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [reply["id"] for reply in replies_of(done.stdout)][0] == 1


def test_an_id_that_is_an_object_is_an_invalid_request_and_the_server_keeps_serving(
    project: Path,
) -> None:
    requests = (
        request_lines(INITIALIZE, INITIALIZED)
        + b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}\n'
        + b'{"jsonrpc":"2.0","id":[2],"method":"tools/list"}\n'
        + call(4, {"query": "postgres"})
    )
    output, errors = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 4)
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, None, None, 4]
    assert [reply["error"]["code"] for reply in replies[1:3]] == [-32600, -32600]
    assert replies[3]["result"]["structuredContent"]["count"] > 0
    assert b"Traceback" not in errors


def test_params_nested_fifty_thousand_deep_are_refused_and_the_server_keeps_serving(
    project: Path,
) -> None:
    deep = b"[" * 50_000 + b"]" * 50_000
    requests = (
        request_lines(INITIALIZE, INITIALIZED)
        + b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":'
        + deep
        + b"}\n"
        + call(3, {"query": "postgres"})
    )
    output, errors = exchange([FORKED_MEM, "mcp", "-d", str(project)], requests, 3)
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, None, 3]
    assert replies[1]["error"]["code"] == -32600
    assert replies[2]["result"]["structuredContent"]["count"] > 0
    assert b"Traceback" not in errors
