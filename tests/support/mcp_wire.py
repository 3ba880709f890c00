"""`mem mcp` spoken raw: JSON-RPC lines written to a server's stdin, its answers read back."""

from __future__ import annotations

import json
import os
import select
import subprocess
from typing import Any

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


def recall_request(number: int, query: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "recall", "arguments": {"query": query}},
    }


def request_lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def opening(*messages: dict[str, Any]) -> bytes:
    """The lines a client sends first (initialize, then initialized), then `messages`."""
    return request_lines(INITIALIZE, INITIALIZED, *messages)


def replies_of(output: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.decode().splitlines()]


def exchange(command: list[str], requests: bytes, answers: int) -> tuple[bytes, bytes]:
    """(stdout, stderr) of a server sent `requests`, hung up on once it gave `answers` lines.

    As a client that reads its answers before it hangs up.
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
