"""A model on 127.0.0.1 that speaks each agent host's wire format and records what it is sent.

Claude Code speaks the Anthropic Messages API (`POST /v1/messages`, streamed as SSE), Codex
the Responses API (`POST /v1/responses`, SSE) of a custom provider, Gemini CLI the Gemini
API (`:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`). Every request
is recorded. The model answers "done", unless a test scripted an edit: then the first
request that offers the host's edit tools gets a call of one (Claude Code's `Edit` of an
existing file is preceded by the `Read` it insists on), and every later one "done".

A test may also script memories (`Remember`): the model then writes them as the host's
prompt asks, each a new file through the host's own write tool (Claude Code's `Write`,
Codex's `apply_patch`, Gemini CLI's `write_file`), one a request, into the memory folder
that the host's system prompt names (MEMORY_FOLDER: Claude Code's auto memory, Gemini CLI's
private project memory, Codex's ad hoc notes folder); before the scripted edit, if any.

Bounded: a body over 32 MiB is refused, at most 500 requests are answered, and the server
shuts itself down after `lifetime` seconds even if the test never does.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 32 << 20
MAX_REQUESTS = 500
ANSWER = "done"
# Gemini CLI asks its own side questions in JSON (which model to route to, who speaks
# next): one answer holding every field they require.
SIDE_ANSWER = {
    "reasoning": ANSWER,
    "next_speaker": "user",
    "model_choice": "flash",
    "complexity_reasoning": ANSWER,
    "complexity_score": 1,
}
Event = tuple[str | None, Any]  # an SSE event: its name (or none) and its JSON data
# Where each host's system prompt names its memory folder (the first group): Claude Code
# 2.1.197's `# Memory` section, Gemini CLI 0.61.0's `**Private Project Memory**` bullet (its
# MEMORY.md), Codex 0.171.0's memory read path ("append a small Markdown note under
# `<memories_v2>/extensions/ad_hoc/notes/`"; "Write your update in ..." in its other one).
MEMORY_FOLDER = {
    "claude-code": re.compile(r"You have a persistent file-based memory at `([^`]+?)/?`"),
    "gemini": re.compile(r"\*\*Private Project Memory\*\* \(`([^`]+)/MEMORY\.md`\)"),
    "codex": re.compile(
        r"(?:a small Markdown note under `|Write your update in )([^`\n]+?)/?[`\n]"
    ),
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
class Remember:
    """New files for the host's memory folder: (name in the folder, content), in order."""

    files: tuple[tuple[str, str], ...]


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
    remember: Remember | None = None
    lifetime: float = 300.0
    requests: list[Request] = field(default_factory=list)
    edit_sent_at: int | None = None  # the index in `requests` of the one answered with it
    memory_folder: str | None = None  # as the host's prompt named it
    remembered: int = 0  # how many of `remember.files` were sent
    _read_sent: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> MockModel:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.model = self  # type: ignore[attr-defined]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        timer = threading.Timer(self.lifetime, self._server.shutdown)
        timer.daemon = True
        timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def model_requests(self) -> list[Request]:
        """The requests that asked for an answer (not a token count), in order."""
        return [
            request
            for request in self.requests
            if isinstance(request.body, dict)
            and {"messages", "input", "contents"} & request.body.keys()
            and "count_tokens" not in request.path
            and ":countTokens" not in request.path
        ]

    def record(self, path: str, body: Any) -> int:
        with self._lock:
            self.requests.append(Request(path, body))
            return len(self.requests) - 1

    def take_memory(self, host: str, index: int, offered: bool) -> Edit | None:
        """The next scripted memory, as a new file in the folder the host's prompt names."""
        with self._lock:
            if not offered or self.remember is None:
                return None
            if self.remembered >= len(self.remember.files):
                return None
            named = MEMORY_FOLDER[host].search(self.requests[index].text())
            if named is None:
                return None
            self.memory_folder = named.group(1)
            name, content = self.remember.files[self.remembered]
            self.remembered += 1
            return Edit(f"{self.memory_folder}/{name}", content)

    def take_read(self, offered: bool) -> bool:
        with self._lock:
            if not offered or self.edit is None or self.edit.old is None or self._read_sent:
                return False
            self._read_sent = True
            return True

    def take_edit(self, index: int, offered: bool) -> Edit | None:
        """The scripted edit, the first time a request offers the tools to make it."""
        with self._lock:
            if not offered or self.edit is None or self.edit_sent_at is not None:
                return None
            self.edit_sent_at = index
            return self.edit


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._model().record(self.path, None)
        self._json({"data": [], "models": []})

    def do_POST(self) -> None:
        model = self._model()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY or len(model.requests) >= MAX_REQUESTS:
            self.send_error(413)
            return
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        index = model.record(self.path, body)
        route = self.path.split("?", 1)[0]
        if not isinstance(body, dict) or route.endswith(("/count_tokens", ":countTokens")):
            self._json({"input_tokens": 1, "totalTokens": 1})
        elif route.endswith("/messages"):
            message = _anthropic(model, body, index)
            if body.get("stream"):
                self._sse(_anthropic_events(message))
            else:
                self._json(message)
        elif route.endswith("/responses"):
            self._sse(_responses_events(model, body, index))
        elif ":streamGenerateContent" in route:
            self._sse([(None, _gemini(model, body, index))])
        elif ":generateContent" in route:
            self._json(_gemini(model, body, index))
        else:
            self._json({})

    def _model(self) -> MockModel:
        model: MockModel = self.server.model  # type: ignore[attr-defined]
        return model

    def _send(self, content_type: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, value: Any) -> None:
        self._send("application/json", json.dumps(value).encode())

    def _sse(self, events: list[Event]) -> None:
        self._send(
            "text/event-stream",
            b"".join(
                (f"event: {name}\n" if name else "").encode()
                + b"data: "
                + json.dumps(data).encode()
                + b"\n\n"
                for name, data in events
            ),
        )


def _anthropic(model: MockModel, body: dict[str, Any], index: int) -> dict[str, Any]:
    """Claude Code's answer, a whole Messages API message."""
    tools = {tool.get("name") for tool in body.get("tools") or []}
    block: dict[str, Any] = {"type": "text", "text": ANSWER}
    if memory := model.take_memory("claude-code", index, "Write" in tools):
        arguments = {"file_path": memory.path, "content": memory.content}
        block = _tool_use(f"toolu_mock{index}", "Write", arguments)
    elif model.take_read("Read" in tools):
        # Claude Code edits only a file the model has read in the session.
        assert model.edit is not None
        block = _tool_use(f"toolu_mock{index}", "Read", {"file_path": model.edit.path})
    elif edit := model.take_edit(index, {"Edit", "Write"} <= tools):
        if edit.old is None:
            block = _tool_use(
                f"toolu_mock{index}", "Write", {"file_path": edit.path, "content": edit.content}
            )
        else:
            arguments = {"file_path": edit.path, "old_string": edit.old, "new_string": edit.content}
            block = _tool_use(f"toolu_mock{index}", "Edit", arguments)
    return {
        "id": f"msg_mock{index}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "mock"),
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _tool_use(id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": arguments}


def _anthropic_events(message: dict[str, Any]) -> list[Event]:
    """The message streamed: one content block, whole in one delta."""
    [block] = message["content"]
    if block["type"] == "text":
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    ending = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
        {"type": "content_block_start", "index": 0, "content_block": start},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": ending, "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]
    return [(event["type"], event) for event in events]


def _responses_events(model: MockModel, body: dict[str, Any], index: int) -> list[Event]:
    """Codex's answer: one output item (a message, or the apply_patch call) in a response."""
    kinds = {tool.get("name"): tool.get("type") for tool in body.get("tools") or []}
    item: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "id": f"msg_mock{index}",
        "content": [{"type": "output_text", "text": ANSWER}],
    }
    edit = model.take_memory("codex", index, "apply_patch" in kinds)
    if edit := edit or model.take_edit(index, "apply_patch" in kinds):
        call = {"id": f"call_mock{index}", "call_id": f"call_mock{index}", "name": "apply_patch"}
        if kinds["apply_patch"] == "custom":  # the freeform tool: the patch as it is
            item = {"type": "custom_tool_call", **call, "input": _patch(edit)}
        else:
            item = {
                "type": "function_call",
                **call,
                "arguments": json.dumps({"input": _patch(edit)}),
            }
    response = {"id": f"resp_mock{index}", "object": "response", "status": "completed"}
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {**response, "usage": usage}},
    ]
    return [(event["type"], event) for event in events]


def _patch(edit: Edit) -> str:
    added = "".join(f"+{line}\n" for line in edit.content.splitlines())
    if edit.old is None:
        return f"*** Begin Patch\n*** Add File: {edit.path}\n{added}*** End Patch\n"
    removed = "".join(f"-{line}\n" for line in edit.old.splitlines())
    return f"*** Begin Patch\n*** Update File: {edit.path}\n@@\n{removed}{added}*** End Patch\n"


def _gemini(model: MockModel, body: dict[str, Any], index: int) -> dict[str, Any]:
    """Gemini CLI's answer, a GenerateContentResponse (also each SSE event of a stream)."""
    declared = {
        declaration.get("name")
        for tool in body.get("tools") or []
        for declaration in tool.get("functionDeclarations") or []
    }
    config = body.get("generationConfig") or {}
    part: dict[str, Any] = {"text": ANSWER}
    if config.get("responseMimeType") == "application/json":
        part = {"text": json.dumps(SIDE_ANSWER)}
    elif edit := model.take_memory("gemini", index, "write_file" in declared) or model.take_edit(
        index, {"write_file", "replace"} <= declared
    ):
        if edit.old is None:
            call = {"name": "write_file", "args": {"file_path": edit.path, "content": edit.content}}
        else:
            arguments = {
                "file_path": edit.path,
                "old_string": edit.old,
                "new_string": edit.content,
                "instruction": "Apply the edit.",
            }
            call = {"name": "replace", "args": arguments}
        part = {"functionCall": call}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "mock"}
