"""The stdio transport on the event loop's own pipe readers and writers.

The SDK's stdio transport hands every line it reads and every write and flush to a worker
thread: three thread switches per call, each a scheduling delay on a busy machine (0.15 ms
typical here, milliseconds in the tail). When stdin and stdout are pipes (how an MCP client
starts its server), this serves the SDK's transport from the event loop's non-blocking pipe
transports instead; anything else (a regular file, a terminal) takes the SDK's own way.

As the SDK does, file descriptors 0 and 1 point at the null device and at stderr while it
serves, so a stray read or print (ours or a child process's) never touches the protocol
stream; both are restored on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio
from mcp.server.stdio import stdio_server

# Far above any request a client sends in one line (a `write` or `observe` argument).
LINE_LIMIT = 256 * 1024 * 1024


class _Lines:
    """The request lines, as the SDK's text stdin yields them."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Output:
    """The answer stream, as the SDK's text stdout is written and flushed."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.asynccontextmanager
async def stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of the MCP session on this process's stdin and stdout."""
    if not (_is_pipe(0) and _is_pipe(1)):
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    # Private duplicates carry the protocol; 0 and 1 are pointed elsewhere while serving.
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    source = os.fdopen(wire_in, "rb", buffering=0)
    sink = os.fdopen(wire_out, "wb", buffering=0)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), source
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sink
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        async with stdio_server(
            cast(anyio.AsyncFile[str], _Lines(reader)), cast(anyio.AsyncFile[str], _Output(writer))
        ) as streams:
            yield streams
    finally:
        os.close(null)
        with contextlib.suppress(OSError):
            await writer.drain()
        # The pipes were made non-blocking; whatever is written after serving blocks again.
        for wire, fd in ((wire_in, 0), (wire_out, 1)):
            with contextlib.suppress(OSError):
                os.set_blocking(wire, True)
                os.dup2(wire, fd)
        read_transport.close()
        write_transport.close()
