"""`mem mcp`: the memory tools over the Model Context Protocol, on stdio.

One long-running process serves an agent's many calls: the indexes stay open between
calls and every call still compares the canonical files with them first, so no answer is
ever stale. Calls run one at a time on the event loop; a write holds `writer.lock` as the
CLI does, so other `mem` processes can share the project.

A tool's (first) text content is the command's `--json` output byte for byte, and its
structured content is the same JSON parsed (an output that is not a JSON object would be
wrapped as `{"result": ...}`, since the protocol requires an object; none of today's tools
needs it); a warning the command prints on stderr follows as a second text block. A
MemError, or arguments that do not fit the tool's input schema, is a tool error (`isError`)
whose text is the message and whose structured content is the `--json` error object
`{"error": message}`. The SDK's stdio transport points file descriptor 1 at stderr (and 0 at
the null device) while it serves, so a stray print can never corrupt the protocol stream.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from mem import __version__, index
from mem.core.javascript import js
from mem.errors import MemError
from mem.mcp import arguments as checks
from mem.mcp import tools

INSTRUCTIONS = """\
Project memory for this repository (decisions, lessons, patterns, a journal of agent work).
At session start call `context`, then `recall` with the words of the task. During work,
`recall` before deciding anything the project may have decided already; after a task,
`write` one journal event. Record replaced or wrong memories with `supersede` or `retract`
(never edit them away). Results are the `mem <command> --json` output."""

# Each index a call opened stays open for the next; a client naming many directories
# keeps the least recently used ones closed.
KEPT_INDEXES = 8


class Session:
    """The server's state: the project a call names when it names none."""

    def __init__(self, default_root: str) -> None:
        self.default_root = default_root
        # Every tool answers with all of its arguments, whatever the list shows: the default
        # list leaves some out to stay small, and a client may know them from an older one.
        self.schemas = {tool.name: tool.input_schema() for tool in tools.TOOLS}

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        tool = tools.BY_NAME.get(name)
        if tool is None:
            # Finding the tool is the protocol's business, not the tool's (MCP: tools/call).
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")
        problem = checks.problem(self.schemas[name], arguments)
        if problem is not None:
            return _error(f"{name}: {problem}")
        try:
            with _collector_paused():
                answer = tool.run(tools.root_of(self.default_root, arguments), arguments)
        except MemError as error:  # this front end's one translation, as the CLI has its own
            return _error(str(error))
        return _result(name, answer)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while a tool runs; the next one after it finds the call's
    temporaries freed.

    A query allocates thousands of short-lived containers, so the collector would otherwise
    run every few calls in the middle of one, walking what is still alive then (a quarter of
    a millisecond each, a few milliseconds for an older generation). The CLI runs `recall`
    with the collector off throughout; here a call's cycles are collected after it.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _well_formed(value: Any) -> Any:
    """The value with U+FFFD for each lone surrogate: the SDK's serializer refuses them (the
    text content keeps the exact escapes, "\\udcff", of the `--json` output)."""
    if isinstance(value, str):
        return js.well_formed(value)
    if isinstance(value, list):
        return [_well_formed(item) for item in value]
    if isinstance(value, dict):
        return {_well_formed(key): _well_formed(item) for key, item in value.items()}
    return value


def _result(name: str, answer: tools.Answer) -> types.CallToolResult:
    value = json.loads(answer.output)
    if "\\ud" in answer.output or "\\uD" in answer.output:  # a lone surrogate, maybe
        value = _well_formed(value)
    structured = value if isinstance(value, dict) else {"result": value}
    # A warning the CLI prints on stderr reaches the agent as a second text block.
    warnings = [f"mem {name}: warning: {warning}" for warning in answer.warnings]
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text) for text in [answer.output, *warnings]],
        structured_content=structured,
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)],
        structured_content={"error": message},
        is_error=True,
    )


def _tool_list(tool_set: str = "core") -> list[types.Tool]:
    return [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema(every=tool_set == "all"),
            annotations=types.ToolAnnotations(  # the title is the tool's own, said once
                read_only_hint=tool.read_only,
                destructive_hint=tool.destructive,
                idempotent_hint=tool.idempotent,
                open_world_hint=False,
            ),
        )
        for tool in tools.listed(tool_set)
    ]


def build(default_root: str, tool_set: str = "core") -> Server[Any]:
    session = Session(default_root)
    listed = _tool_list(tool_set)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return session.call(params.name, params.arguments or {})

    server: Server[Any] = Server(
        "mem",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # The SDK's one default middleware opens an OpenTelemetry span around every message:
    # a no-op unless the process installs a tracer provider, which `mem` never does, yet
    # a tenth of a trivial call's time. The SDK's documented opt-out is dropping it.
    server.middleware.clear()
    return server


def _claim_stdin() -> Any:
    """The request lines, read from a private copy of fd 0, which then reads the null device
    (as the SDK's own claim does: a child a tool starts never reads the protocol stream)."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return anyio.wrap_file(open(private, encoding="utf-8", errors="replace", newline="\n"))


class _CheckedLines:
    """The request lines the SDK's transport reads, each checked first, so that every request
    with an id is answered (JSON-RPC 2.0): the SDK drops a line it cannot validate unanswered.

    Not JSON: -32700 (id null). JSON that is no message: -32600, or -32602 for a request
    whose params do not fit. An id that is neither a number nor a string (JSON-RPC 2.0:
    "String, Number, or NULL"), or JSON nested too deep to decode: -32600, id null. A lone
    surrogate (`"a\\ud83d"`, an emoji cut by JSON.stringify), which the SDK cannot handle,
    is read as U+FFFD, as a byte that is not UTF-8 is.
    """

    def __init__(self, stdin: Any) -> None:
        self.stdin = stdin
        self.replies: Any = None
        self.answers = _Answers()

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.stdin.readline()
            if not line:
                # At the end of input the SDK cancels what it is still handling: a client
                # that closes its end after its last request must still hear every answer.
                await self.answers.all_sent()
                raise StopAsyncIteration
            checked = await self._checked(line)
            if checked is not None:
                return checked

    async def _checked(self, line: str) -> str | None:
        if not line.strip():
            return None
        try:
            value = json.loads(line)
        except ValueError:
            await self._reply(None, types.PARSE_ERROR, "Parse error")
            return None
        except RecursionError:
            await self._reply(None, types.INVALID_REQUEST, "Invalid request: nested too deep")
            return None
        if isinstance(value, dict) and not _valid_id(value.get("id")):
            await self._reply(None, types.INVALID_REQUEST, "Invalid request: id")
            return None
        if "\\ud" in line or "\\uD" in line:
            value = _well_formed(value)
            line = json.dumps(value, ensure_ascii=False)
        try:
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            request_id = value.get("id") if isinstance(value, dict) else None
            if isinstance(value, dict) and "id" not in value and "method" in value:
                return None  # a notification gets no answer, even a malformed one
            if isinstance(value, dict) and isinstance(value.get("method"), str):
                await self._reply(request_id, types.INVALID_PARAMS, "Invalid params")
            else:
                await self._reply(request_id, types.INVALID_REQUEST, "Invalid request")
            return None
        if isinstance(value, dict):
            self.answers.read(value)
        return line

    async def _reply(self, request_id: int | str | None, code: int, message: str) -> None:
        error = types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )
        await self.replies.send(SessionMessage(error))


def _valid_id(request_id: object) -> bool:
    """Whether a message's id (None when it has none) may be a JSON-RPC id."""
    return request_id is None or (
        isinstance(request_id, int | str) and not isinstance(request_id, bool)
    )


class _Answers:
    """The stream the server answers on, and the requests read that it has not answered."""

    def __init__(self) -> None:
        self.stream: Any = None
        self.waiting: set[int | str] = set()
        self.sent = anyio.Event()

    def read(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.waiting.add(message["id"])
        elif message.get("method") == "notifications/cancelled":
            # A cancelled request may go unanswered (MCP: cancellation).
            self.waiting.discard((message.get("params") or {}).get("requestId"))

    async def all_sent(self) -> None:
        while self.waiting:
            self.sent = anyio.Event()
            await self.sent.wait()

    async def send(self, message: SessionMessage) -> None:
        await self.stream.send(message)
        if isinstance(message.message, types.JSONRPCResponse | types.JSONRPCError):
            self.waiting.discard(message.message.id)
            self.sent.set()

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


def serve(default_root: str, tool_set: str = "core") -> None:
    """Serve on stdin/stdout until the client closes the stream."""
    index.keep_open(KEPT_INDEXES)
    server = build(default_root, tool_set)
    # What exists now (modules, the SDK's models and schemas, the tool table) lives as long
    # as the process: frozen, the collector never walks it again (an older generation's
    # collection over it paused a call by over 100 ms).
    gc.collect()
    gc.freeze()

    lines = _CheckedLines(_claim_stdin())

    async def run() -> None:
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.replies = lines.answers.stream = write_stream
            options = server.create_initialization_options()
            await server.run(read_stream, lines.answers, options)

    try:
        anyio.run(run)
    except* BrokenPipeError:
        # The client stopped reading (it quit mid-call): no one is left to answer, and the
        # SDK's transport raises from its writer. The server ends as on end of input.
        pass
