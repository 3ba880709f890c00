"""`mem mcp` on pipes: only protocol on the wire, long requests, and other streams too.

An MCP client starts the server with pipes for stdin and stdout, which the server reads and
writes on its event loop (mem.mcp.pipes); anything else goes the SDK's threaded way. Either
way a stray write to file descriptor 1 while serving lands on stderr, and the descriptors
are the wire again once serving ends.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import mem_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _recall(number: int, query: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "recall", "arguments": {"query": query}},
    }


def _lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def _replies(output: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.decode().splitlines()]


def _exchange(command: list[str], requests: bytes, answers: int) -> tuple[bytes, bytes]:
    """(stdout, stderr) of a server sent `requests`, hung up on once it gave `answers` lines.

    A client waits for its answers before it hangs up: a server drops what is in flight
    when its input ends.
    """
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(requests)
        server.stdin.flush()
        output = b""
        while output.count(b"\n") < answers:
            ready, _, _ = select.select([server.stdout], [], [], 60)
            assert ready, "the server stopped answering"
            chunk = os.read(server.stdout.fileno(), 1 << 20)
            assert chunk, "the server closed its output"
            output += chunk
        rest, errors = server.communicate(timeout=60)
    assert server.returncode == 0, errors
    return output + rest, errors


def test_a_request_far_longer_than_a_pipe_buffer_is_answered(project: Path) -> None:
    long_query = "postgres " + "word " * 100_000  # half a megabyte on one line
    output, _ = _exchange(
        [*mem_command(), "mcp", "-d", str(project)],
        _lines(INITIALIZE, INITIALIZED, _recall(2, long_query), _recall(3, "postgres")),
        3,
    )
    replies = _replies(output)
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    long_answer, short_answer = (reply["result"]["structuredContent"] for reply in replies[1:])
    assert long_answer["query"] == long_query and long_answer["count"] > 0
    assert short_answer["results"][0]["ref"] == long_answer["results"][0]["ref"]


def test_a_server_writing_to_a_regular_file_answers_too(project: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.ndjson"
    with (
        answers.open("wb") as stdout,
        subprocess.Popen(
            [*mem_command(), "mcp", "-d", str(project)],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
        ) as server,
    ):
        assert server.stdin is not None
        server.stdin.write(_lines(INITIALIZE, INITIALIZED, _recall(2, "postgres")))
        server.stdin.flush()
        deadline = time.monotonic() + 60
        while answers.read_bytes().count(b"\n") < 2:  # the answers before hanging up
            assert time.monotonic() < deadline, "the server stopped answering"
            time.sleep(0.05)
        _, errors = server.communicate(timeout=60)
    assert server.returncode == 0, errors
    replies = _replies(answers.read_bytes())
    assert [reply["id"] for reply in replies] == [1, 2]
    assert replies[1]["result"]["structuredContent"]["count"] > 0


SERVER = """
import os, sys
import anyio
from mem.mcp import pipes, server

mcp = server.build(sys.argv[1])

async def main():
    async with pipes.stdio() as (read_stream, write_stream):
        os.write(1, b"stray bytes\\n")
        print("stray print", flush=True)
        await mcp.run(read_stream, write_stream, mcp.create_initialization_options())
    os.write(1, b"the wire again\\n")

anyio.run(main)
"""


def test_stray_output_while_serving_goes_to_stderr_and_the_wire_comes_back(
    project: Path,
) -> None:
    output, errors = _exchange(
        [sys.executable, "-c", SERVER, str(project)],
        _lines(INITIALIZE, INITIALIZED, _recall(2, "postgres")),
        2,
    )
    *protocol, last = output.decode().splitlines()
    assert [reply["id"] for reply in _replies("\n".join(protocol).encode())] == [1, 2]
    assert last == "the wire again"
    assert b"stray bytes" in errors and b"stray print" in errors
