"""A model on 127.0.0.1 that speaks each agent host's wire format and records what it is sent.

Claude Code speaks the Anthropic Messages API (`POST /v1/messages`, streamed as SSE), Codex
the Responses API (`POST /v1/responses`, SSE) of a custom provider, Gemini CLI the Gemini
API (`:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`). Every request
body is recorded. The model answers "done", unless a test scripted an edit: then the first
request that offers the host's edit tool gets a call of it, and every later one "done".

The server is bounded: request bodies over 32 MiB are refused, it answers at most 500
requests, and it shuts itself down after `lifetime` seconds even if the test never does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 32 << 20
MAX_REQUESTS = 500
ANSWER = "done"
# Gemini CLI asks its own side questions in JSON (which model to route to, who speaks
# next): one answer with every field they require.
SIDE_ANSWER = {
    "reasoning": ANSWER,
    "next_speaker": "user",
    "model_choice": "flash",
    "complexity_reasoning": ANSWER,
    "complexity_score": 1,
}


@dataclass(slots=True, frozen=True)
class Edit:
    """Through the host's own edit tool: write `content` to `path` (absolute), a new file;
    or, given `old`, replace `old` with `content` in it (Claude Code's `Edit`, Codex's
    `*** Update File`, Gemini CLI's `replace`)."""

    path: str
    content: str
    old: str | None = None


@dataclass(slots=True, frozen=True)
class Request:
    path: str
    body: Any  # the parsed JSON, or the text when it was not JSON

    def strings(self) -> Iterator[str]:
        """Every string in the body, decoded: what the model would read."""
        stack = [self.body]
        while stack:
            value = stack.pop()
            if isinstance(value, str):
                yield value
            elif isinstance(value, dict):
                stack.extend(reversed(list(value.values())))
            elif isinstance(value, list):
                stack.extend(reversed(value))

    def text(self) -> str:
        return "\n".join(self.strings())


@dataclass
class MockModel:
    edit: Edit | None = None
    lifetime: float = 300.0
    requests: list[Request] = field(default_factory=list)
    edit_sent_at: int | None = None  # the index in `requests` of the request answered with it
    _read_sent: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> MockModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                model._record(self.path, None)
                self._json({"data": [], "models": []})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY or len(model.requests) >= MAX_REQUESTS:
                    self.send_error(413)
                    return
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                index = model._record(self.path, body)
                route = self.path.split("?", 1)[0]
                if route.endswith("/count_tokens") or route.endswith(":countTokens"):
                    self._json({"input_tokens": 1, "totalTokens": 1})
                elif route.endswith("/messages"):
                    self._anthropic(body, index)
                elif route.endswith("/responses"):
                    self._responses(body, index)
                elif ":streamGenerateContent" in route or ":generateContent" in route:
                    self._gemini(body, index, stream=":streamGenerateContent" in route)
                else:
                    self._json({})

            def _json(self, value: Any) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str | None, Any]]) -> None:
                data = b"".join(
                    (f"event: {name}\n" if name else "").encode()
                    + b"data: "
                    + json.dumps(value).encode()
                    + b"\n\n"
                    for name, value in events
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _anthropic(self, body: Any, index: int) -> None:
                tools = {tool.get("name") for tool in body.get("tools") or []}
                block: dict[str, Any] = {"type": "text", "text": ANSWER}
                if model._take_read(index, "Read" in tools):
                    # Claude Code edits only a file the model read in this session.
                    assert model.edit is not None
                    block = {"type": "tool_use", "id": "toolu_mock0", "name": "Read", "input": {"file_path": model.edit.path}}
                elif {"Edit", "Write"} <= tools and model._take_edit(index):
                    edit = model.edit
                    assert edit is not None
                    name, arguments = (
                        ("Write", {"file_path": edit.path, "content": edit.content})
                        if edit.old is None
                        else ("Edit", {"file_path": edit.path, "old_string": edit.old, "new_string": edit.content})
                    )
                    block = {"type": "tool_use", "id": "toolu_mock1", "name": name, "input": arguments}
                stop = "tool_use" if block["type"] == "tool_use" else "end_turn"
                message = {
                    "id": f"msg_mock{index}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "mock"),
                    "content": [block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
                if not body.get("stream"):
                    self._json(message)
                    return
                if block["type"] == "text":
                    start = {"type": "text", "text": ""}
                    delta = {"type": "text_delta", "text": ANSWER}
                else:
                    start = {**block, "input": {}}
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                self._sse(
                    [
                        ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}),
                        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
                        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                        ("message_stop", {"type": "message_stop"}),
                    ]
                )

            def _responses(self, body: Any, index: int) -> None:
                tools = body.get("tools") or []
                names = {tool.get("name") for tool in tools}
                item: dict[str, Any] = {
                    "type": "message",
                    "role": "assistant",
                    "id": f"msg_mock{index}",
                    "content": [{"type": "output_text", "text": ANSWER}],
                }
                if "apply_patch" in names and model._take_edit(index):
                    assert model.edit is not None
                    patch = _apply_patch(model.edit)
                    kind = next(tool.get("type") for tool in tools if tool.get("name") == "apply_patch")
                    if kind == "custom":
                        item = {"type": "custom_tool_call", "id": "ctc_mock1", "call_id": "call_mock1", "name": "apply_patch", "input": patch}
                    else:
                        item = {"type": "function_call", "id": "fc_mock1", "call_id": "call_mock1", "name": "apply_patch", "arguments": json.dumps({"input": patch})}
                response = {"id": f"resp_mock{index}", "object": "response", "status": "completed"}
                usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1, "output_tokens_details": None, "total_tokens": 2}
                self._sse(
                    [
                        ("response.created", {"type": "response.created", "response": response}),
                        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                        ("response.completed", {"type": "response.completed", "response": {**response, "usage": usage}}),
                    ]
                )

            def _gemini(self, body: Any, index: int, stream: bool) -> None:
                declared = {
                    declaration.get("name")
                    for tool in body.get("tools") or []
                    for declaration in tool.get("functionDeclarations") or []
                }
                config = body.get("generationConfig") or body.get("config") or {}
                part: dict[str, Any] = {"text": ANSWER}
                if config.get("responseMimeType") == "application/json":
                    # Gemini CLI's own side questions (next speaker, routing) want JSON.
                    part = {"text": json.dumps(SIDE_ANSWER)}
                elif {"write_file", "replace"} <= declared and model._take_edit(index):
                    edit = model.edit
                    assert edit is not None
                    call = (
                        {"name": "write_file", "args": {"file_path": edit.path, "content": edit.content}}
                        if edit.old is None
                        else {"name": "replace", "args": {"file_path": edit.path, "old_string": edit.old, "new_string": edit.content, "instruction": "Apply the edit."}}
                    )
                    part = {"functionCall": call}
                answer = {
                    "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
                    "modelVersion": "mock",
                }
                if stream:
                    self._sse([(None, answer)])
                else:
                    self._json(answer)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        timer = threading.Timer(self.lifetime, self._server.shutdown)
        timer.daemon = True
        timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _record(self, path: str, body: Any) -> int:
        with self._lock:
            self.requests.append(Request(path, body))
            return len(self.requests) - 1

    def _take_read(self, index: int, offered: bool) -> bool:
        with self._lock:
            if not offered or self.edit is None or self.edit.old is None or self._read_sent:
                return False
            self._read_sent = True
            return True

    def _take_edit(self, index: int) -> bool:
        with self._lock:
            if self.edit is None or self.edit_sent_at is not None:
                return False
            self.edit_sent_at = index
            return True

    def model_requests(self) -> list[Request]:
        """The requests that asked the model for an answer (not token counts)."""
        return [
            request
            for request in self.requests
            if isinstance(request.body, dict)
            and ("messages" in request.body or "input" in request.body or "contents" in request.body)
            and "count_tokens" not in request.path
            and ":countTokens" not in request.path
        ]


def _apply_patch(edit: Edit) -> str:
    added = "".join(f"+{line}\n" for line in edit.content.splitlines())
    if edit.old is None:
        return f"*** Begin Patch\n*** Add File: {edit.path}\n{added}*** End Patch\n"
    removed = "".join(f"-{line}\n" for line in edit.old.splitlines())
    return f"*** Begin Patch\n*** Update File: {edit.path}\n@@\n{removed}{added}*** End Patch\n"
