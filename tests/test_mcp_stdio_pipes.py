"""`mem mcp` on pipes: only protocol on the wire, long requests, and other streams too.

An MCP client starts the server with pipes for stdin and stdout, which the server reads and
writes on its event loop (mem.mcp.pipes); anything else goes the SDK's threaded way. Either
way a stray write to file descriptor 1 while serving lands on stderr, and the descriptors
are the wire again once serving ends.
"""

from __future__ import annotations

import subprocess
import sys
import time
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


def test_a_request_far_longer_than_a_pipe_buffer_is_answered(project: Path) -> None:
    long_query = "postgres " + "word " * 100_000  # half a megabyte on one line
    output, _ = exchange(
        [*mem_command(), "mcp", "-d", str(project)],
        request_lines(
            INITIALIZE, INITIALIZED, recall_request(2, long_query), recall_request(3, "postgres")
        ),
        3,
    )
    replies = replies_of(output)
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
        server.stdin.write(request_lines(INITIALIZE, INITIALIZED, recall_request(2, "postgres")))
        server.stdin.flush()
        deadline = time.monotonic() + 60
        while answers.read_bytes().count(b"\n") < 2:  # the answers before hanging up
            assert time.monotonic() < deadline, "the server stopped answering"
            time.sleep(0.05)
        _, errors = server.communicate(timeout=60)
    assert server.returncode == 0, errors
    replies = replies_of(answers.read_bytes())
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
    output, errors = exchange(
        [sys.executable, "-c", SERVER, str(project)],
        request_lines(INITIALIZE, INITIALIZED, recall_request(2, "postgres")),
        2,
    )
    *protocol, last = output.decode().splitlines()
    assert [reply["id"] for reply in replies_of("\n".join(protocol).encode())] == [1, 2]
    assert last == "the wire again"
    assert b"stray bytes" in errors and b"stray print" in errors
