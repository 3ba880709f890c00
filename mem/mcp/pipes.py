"""The stdio transport on the event loop's own pipe readers and writers.

The SDK's stdio transport hands every line it reads and every write and flush to a worker
thread, and relays each message through a reader task and a writer task: per call three
thread switches and four task switches, each a scheduling delay (0.15 ms typical here,
milliseconds in the tail on a busy machine). When stdin and stdout are pipes (how an MCP
client starts its server), the session's streams are served here instead: a request is
read and parsed by whichever task awaits it, and an answer is written to the pipe by the
task that sends it. Parsing and serializing are the SDK's own (its JSON-RPC message
adapter and models), so the wire is what its transport would write. Anything else (a
regular file, a terminal) takes the SDK's own way.

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
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# Far above any request a client sends in one line (a `write` or `observe` argument).
LINE_LIMIT = 256 * 1024 * 1024


class _Stream:
    """What the session does with either stream: `async with` closes it on the way out."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class Requests(_Stream):
    """The messages a client sends, one JSON-RPC line each (the SDK's ReadStream)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    async def receive(self) -> SessionMessage | Exception:
        line = await self.reader.readline()
        if not line:
            raise anyio.EndOfStream
        # As the SDK's transport reads it: text decoded with replacement, and a line that
        # is not a JSON-RPC message handed on as the error it is, for the session to report.
        text = line.decode("utf-8", errors="replace")
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValidationError as error:
            return error
        return SessionMessage(message)

    def __aiter__(self) -> Requests:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self.reader.feed_eof()


class Answers(_Stream):
    """The messages the server sends, one JSON-RPC line each (the SDK's WriteStream).

    Each line is handed to the pipe transport whole, so the answers of concurrent calls
    never interleave; the transport buffers what the pipe cannot take yet.
    """

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.closed = False

    async def send(self, item: SessionMessage, /) -> None:
        if self.closed:
            raise anyio.ClosedResourceError
        line = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        try:
            self.writer.write(line.encode("utf-8"))
            await self.writer.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise anyio.BrokenResourceError from error

    async def aclose(self) -> None:
        self.closed = True


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
        yield Requests(reader), Answers(writer)
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
