"""`mem mcp` spoken raw: JSON-RPC lines written to a server's stdin, its answers read back."""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import json
import os
import select
import subprocess
import sys
import traceback
from collections.abc import Iterator
from typing import Any, BinaryIO

# The first word of a command `exchange` runs as a process forked from this one, `mem`'s
# console script (`mem.cli.main:main`) with the words after it: a real process on real pipes
# that skips only the start-up (a `mem mcp` process spends over a second of CPU importing
# the SDK, which this process has done already).
FORKED_MEM = "forked-mem"

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
    with _started(command) as server:
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


@contextlib.contextmanager
def _started(command: list[str]) -> Iterator[subprocess.Popen[bytes] | Forked]:
    if command[0] != FORKED_MEM:
        with subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        ) as server:
            yield server
        return
    forked = Forked(command[1:])
    try:
        yield forked
    finally:
        forked.close()


class Forked:
    """`mem <args>` in a child forked from this process, on pipes of its own (as `Popen` with
    stdin, stdout and stderr piped): what `exchange` needs of a `Popen`."""

    def __init__(self, args: list[str]) -> None:
        # Loaded here, once, so that no child pays for it.
        importlib.import_module("mem.cli.click_commands.mcp")
        importlib.import_module("mem.mcp.server")
        stdin, stdout, stderr = os.pipe(), os.pipe(), os.pipe()
        theirs = (stdin[0], stdout[1], stderr[1])
        ours = (stdin[1], stdout[0], stderr[0])
        self.pid = os.fork()
        if self.pid == 0:
            _child(args, theirs, ours)
        for descriptor in theirs:
            os.close(descriptor)
        self.stdin: BinaryIO = open(ours[0], "wb")  # noqa: SIM115 - closed by close()
        self.stdout: BinaryIO = open(ours[1], "rb")  # noqa: SIM115
        self.stderr: BinaryIO = open(ours[2], "rb")  # noqa: SIM115
        self.returncode: int | None = None

    def communicate(self, timeout: float) -> tuple[bytes, bytes]:
        self.stdin.close()
        streams = {self.stdout.fileno(): b"", self.stderr.fileno(): b""}
        open_ones = set(streams)
        while open_ones:
            ready, _, _ = select.select(list(open_ones), [], [], timeout)
            assert ready, "the forked server stopped answering"
            for descriptor in ready:
                chunk = os.read(descriptor, 1 << 20)
                streams[descriptor] += chunk
                if not chunk:
                    open_ones.discard(descriptor)
        self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return streams[self.stdout.fileno()], streams[self.stderr.fileno()]

    def close(self) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            stream.close()
        if self.returncode is None:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)


def _child(args: list[str], theirs: tuple[int, ...], ours: tuple[int, ...]) -> None:
    """In the forked child: the console script on the pipes, then the end of the process."""
    code = 1
    try:
        gc.freeze()  # this process's objects are the parent's: never finalized here
        for target, descriptor in enumerate(theirs):
            os.dup2(descriptor, target)
        for descriptor in (*theirs, *ours):
            os.close(descriptor)
        # As Python sets up a process's streams on pipes.
        sys.stdin = io.TextIOWrapper(open(0, "rb", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(
            open(2, "wb", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        )
        sys.argv = ["mem", *args]
        from mem.cli import main as console_script

        console_script.main()
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    except BaseException:  # noqa: BLE001 - shown as an uncaught one would be, then exit 1
        traceback.print_exc()
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
