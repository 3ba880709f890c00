"""`mem mcp` as an agent meets it, driven by the MCP SDK's own client.

What a tool answers is asked of the server `mem mcp` builds, run in this process (starting a
server process is mostly importing the SDK: over a second of CPU a test); what only a
process shows (nothing but protocol on stdout, stray output, a client that quits, two
servers on one project) is asked of real `mem mcp` processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from support.cli import RunMem, mem_command
from support.demo import CACHE, RETRY, record_cache_evidence
from support.mcp_wire import exchange, opening, recall_request, replies_of
from support.nexus import relocated
from support.secret_samples import SAMPLES

from mem import index
from mem.cli.app import cli
from mem.errors import MemError
from mem.files import safe_paths
from mem.mcp import server

TOOL_NAMES = {
    "recall",
    "write",
    "reinforce",
    "patterns",
    "observe",
    "outcomes",
    "context",
    "audit",
    "evidence_add",
    "evidence_list",
    "supersede",
    "retract",
    "status",
    "note_add",
}


@asynccontextmanager
async def served(project: Path, *extra: str) -> AsyncIterator[Client]:
    command, *args = mem_command()
    parameters = StdioServerParameters(
        command=command, args=[*args, "mcp", "-d", str(project), *extra], env=dict(os.environ)
    )
    async with Client(parameters) as client:
        yield client


@asynccontextmanager
async def served_here(project: Path, tool_set: str = "core") -> AsyncIterator[Client]:
    """What `mem mcp -d PROJECT [--tools SET]` serves, in this process: its first sync, its
    indexes kept open between calls, its server, spoken to through the protocol's handshake."""
    root = safe_paths.project_root(str(project))
    with contextlib.suppress(MemError):
        index.sync_project(root)
    index.keep_open(server.KEPT_INDEXES)
    try:
        async with Client(server.build(root, tool_set), mode="legacy") as client:
            yield client
    finally:
        index.keep_open(0)


def with_server(project: Path, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with served_here(project) as client:
            await body(client)

    anyio.run(main)


def answered(result: CallToolResult, warnings: str = "") -> str:
    """The `--json` text of a successful call; any further block is a warning (CLI: stderr)."""
    assert not result.is_error, result.content
    content, *rest = result.content
    assert content.type == "text"
    assert result.structured_content == json.loads(content.text)
    assert "".join(block.text + "\n" for block in rest if block.type == "text") == warnings
    assert all(block.type == "text" for block in rest)
    return content.text


def failed(result: CallToolResult) -> str:
    assert result.is_error
    [content] = result.content
    assert content.type == "text"
    assert result.structured_content == {"error": content.text}
    return content.text


def cli_json(run_mem: RunMem, project: Path, *args: str) -> str:
    return cli_run(run_mem, project, *args)[0]


def cli_run(run_mem: RunMem, project: Path, *args: str) -> tuple[str, str]:
    done = run_mem(*args, "--json", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, done.stderr


class Snapshot:
    """The project's memory as it was, to compare a write's tool result with the CLI's."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.saved = project.parent / f"{project.name}-saved"
        shutil.rmtree(self.saved, ignore_errors=True)
        shutil.copytree(project, self.saved, symlinks=True)

    def restore(self) -> None:
        for name in (".bmad", ".agents"):
            shutil.rmtree(self.project / name, ignore_errors=True)
            if (self.saved / name).exists():
                shutil.copytree(self.saved / name, self.project / name, symlinks=True)


def test_the_tools_are_listed_with_schemas_and_annotations(project: Path) -> None:
    async def body(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == TOOL_NAMES
        for tool in listed.values():
            schema = tool.input_schema
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            assert "directory" in schema["properties"]
            assert tool.description and tool.annotations is not None
            assert tool.annotations.open_world_hint is False
        hints = {
            name: (
                tool.annotations.read_only_hint,
                tool.annotations.destructive_hint,
                tool.annotations.idempotent_hint,
            )
            for name, tool in listed.items()
            if tool.annotations is not None
        }
        for name in ("recall", "patterns", "outcomes", "context", "audit", "evidence_list"):
            assert hints[name] == (True, False, True), name
        assert hints["status"] == (True, False, True)
        assert hints["write"] == (False, False, False)
        assert hints["observe"] == (False, False, False)
        assert hints["reinforce"] == (False, True, False)
        for name in ("evidence_add", "supersede", "retract"):
            assert hints[name] == (False, False, True), name
        assert listed["recall"].input_schema["required"] == ["query"]
        assert listed["evidence_add"].input_schema["properties"]["sources"]["type"] == "array"

    # Every tool is listed only when asked for (issue 24: the default list stays small).
    async def main() -> None:
        async with served_here(project, "all") as client:
            await body(client)

    anyio.run(main)


def test_every_tool_answers_with_its_commands_json(git_project: Path, run_mem: RunMem) -> None:
    project = git_project
    assert record_cache_evidence(run_mem, project).returncode == 0
    calls: list[tuple[str, dict[str, Any], tuple[str, ...], bool]] = [
        (
            "recall",
            {"query": "postgres pooling", "limit": 3, "explain": True},
            ("recall", "postgres", "pooling", "--limit", "3", "--explain"),
            False,
        ),
        (
            "recall",
            {"query": "cache", "with_evidence": True},
            ("recall", "cache", "--with-evidence"),
            False,
        ),
        ("patterns", {}, ("patterns",), False),
        ("outcomes", {}, ("outcomes",), False),
        ("context", {"with_evidence": True}, ("context", "--with-evidence"), False),
        ("audit", {}, ("audit",), False),
        ("audit", {"memory_id": CACHE, "limit": 5}, ("audit", CACHE, "--limit", "5"), False),
        ("evidence_list", {"memory_id": CACHE}, ("evidence", "list", CACHE), False),
        (
            "write",
            {
                "agent": "forge",
                "cli": "claude-code",
                "model": "claude",
                "task": "tune the pool",
                "outcome": "success",
                "eval": 0.9,
                "accept": True,
                "ci": "pass",
            },
            (
                "write",
                "--agent",
                "forge",
                "--cli",
                "claude-code",
                "--model",
                "claude",
                "--task",
                "tune the pool",
                "--outcome",
                "success",
                "--eval",
                "0.9",
                "--accept",
                "true",
                "--ci",
                "pass",
            ),
            True,
        ),
        (
            "reinforce",
            {"pattern": "Retry budget", "eval": 1, "accept": "yes", "evidence": "a, b"},
            ("reinforce", "--pattern", "Retry budget", "--eval", "1", "--accept", "yes")
            + ("--evidence", "a, b"),
            True,
        ),
        (
            "evidence_add",
            {"memory_id": RETRY, "sources": ["src/retry.py"]},
            ("evidence", "add", RETRY, "--source", "src/retry.py"),
            True,
        ),
        (
            "evidence_add",
            {"memory_id": CACHE, "sources": ["src/policy.py"]},
            ("evidence", "add", CACHE, "--source", "src/policy.py"),
            True,
        ),
        (
            "supersede",
            {"memory_id": RETRY, "with": CACHE, "reason": "Policy changed"},
            ("supersede", RETRY, "--with", CACHE, "--reason", "Policy changed"),
            True,
        ),
        (
            "retract",
            {"memory_id": RETRY, "reason": "Wrong"},
            ("retract", RETRY, "--reason", "Wrong"),
            True,
        ),
        (
            "note_add",
            {"kind": "lesson", "title": "Webhooks retry", "body": "- **Rule**: dedupe"},
            ("note", "add", "lesson", "--title", "Webhooks retry", "--body", "- **Rule**: dedupe"),
            True,
        ),
        ("status", {}, ("status",), False),
    ]
    snapshot = Snapshot(project)
    seen: set[str] = set()

    async def body(client: Client) -> None:
        for name, arguments, command, writes in calls:
            result = await client.call_tool(name, arguments)
            if writes:
                snapshot.restore()
            output, warnings = cli_run(run_mem, project, *command)
            assert answered(result, warnings) == output, name
            assert bool(warnings) == (name == "reinforce")  # Retry budget is no pattern section
            if writes:
                snapshot.restore()
            seen.add(name)

    with_server(project, body)
    assert seen == TOOL_NAMES - {"observe"}


def test_observe_and_outcomes_answer_as_the_cli(tmp_path: Path, run_mem: RunMem) -> None:
    project = relocated("a-accepted", tmp_path)
    snapshot = Snapshot(project)

    async def body(client: Client) -> None:
        observed = answered(await client.call_tool("observe", {"input": "obs.json"}))
        listed = answered(await client.call_tool("outcomes", {}))
        again = await client.call_tool("observe", {"input": "obs.json"})
        snapshot.restore()
        assert observed == cli_json(run_mem, project, "observe", "--input", "obs.json")
        assert listed == cli_json(run_mem, project, "outcomes")
        done = run_mem("observe", "--input", "obs.json", "--json", cwd=project)
        assert done.returncode == 1
        assert json.loads(done.stdout) == {"error": failed(again)}

    with_server(project, body)


def test_a_user_error_is_a_tool_error_with_the_commands_message(
    project: Path, run_mem: RunMem
) -> None:
    cases: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
        ("recall", {"query": "  "}, ("recall", "  ")),
        ("recall", {"query": "x", "limit": 0}, ("recall", "x", "--limit", "0")),
        ("recall", {"query": "x", "scope": "galaxy"}, ("recall", "x", "--scope", "galaxy")),
        ("write", {"agent": ""}, ("write", "--agent", "")),
        ("reinforce", {"pattern": "  "}, ("reinforce", "--pattern", "  ")),
        ("evidence_list", {"memory_id": "mem_nope"}, ("evidence", "list", "mem_nope")),
        ("retract", {"memory_id": RETRY, "reason": ""}, ("retract", RETRY, "--reason", "")),
    ]

    async def body(client: Client) -> None:
        for name, arguments, command in cases:
            message = failed(await client.call_tool(name, arguments))
            done = run_mem(*command, "--json", cwd=project)
            assert done.returncode == 1
            assert json.loads(done.stdout) == {"error": message}, name

    with_server(project, body)


def test_malformed_arguments_are_tool_errors_and_the_server_keeps_serving(project: Path) -> None:
    async def body(client: Client) -> None:
        assert failed(await client.call_tool("recall", {"query": 5})) == (
            "recall: query must be a string, not 5"
        )
        assert failed(await client.call_tool("recall", {})) == (
            "recall: the argument query is required"
        )
        assert failed(await client.call_tool("recall", {"query": "x", "colour": "red"})) == (
            "recall: unknown argument colour (expected: query, scope, portfolio, limit, ranking,"
            " context_scope, include_archive, with_evidence, include_retired, explain,"
            " include_history, directory)"
        )
        assert failed(await client.call_tool("recall", {"query": "x", "limit": "8"})) == (
            'recall: limit must be an integer, not "8"'
        )
        assert failed(await client.call_tool("recall", {"query": "x", "explain": 1})) == (
            "recall: explain must be true or false, not 1"
        )
        assert failed(
            await client.call_tool("evidence_add", {"memory_id": CACHE, "sources": [1]})
        ) == ("evidence_add: sources must be an array of strings, not [1]")
        assert failed(await client.call_tool("write", {"agent": "a", "outcome": "maybe"})) == (
            'write: outcome must be one of success, failure, partial, abandoned, not "maybe"'
        )
        assert failed(await client.call_tool("write", {"agent": "a", "accept": None})) == (
            "write: accept must be true or false, a number or a string, not null"
        )
        with pytest.raises(MCPError, match="Unknown tool: forget"):
            await client.call_tool("forget", {})
        recalled = json.loads(answered(await client.call_tool("recall", {"query": "postgres"})))
        assert recalled["count"] > 0

    with_server(project, body)


def test_concurrent_calls_each_get_their_own_answer(project: Path, run_mem: RunMem) -> None:
    queries = ["postgres", "redis", "cache", "retry", "pooling", "sessions"] * 4
    expected = {query: cli_json(run_mem, project, "recall", query) for query in set(queries)}
    answers: dict[int, str] = {}
    written: list[str] = []

    async def body(client: Client) -> None:
        async def recall(position: int, query: str) -> None:
            answers[position] = answered(await client.call_tool("recall", {"query": query}))

        async def write(position: int) -> None:
            result = await client.call_tool("write", {"agent": "forge", "task": f"task {position}"})
            written.append(json.loads(answered(result))["written"]["id"])

        async with anyio.create_task_group() as group:
            for position, query in enumerate(queries):
                group.start_soon(recall, position, query)
            for position in range(5):
                group.start_soon(write, position)

    with_server(project, body)
    # The writes land in the journal but match none of the queries, so every answer is the
    # one the CLI gave before.
    assert {position: answers[position] for position in range(len(queries))} == {
        position: expected[query] for position, query in enumerate(queries)
    }
    journal = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8")
    assert sorted(written) == sorted(json.loads(line)["id"] for line in journal.splitlines()[-5:])


def test_edits_between_calls_are_seen_by_the_next_call(project: Path, run_mem: RunMem) -> None:
    decisions = project / ".agents/memory/decisions.md"

    async def recalled(client: Client, query: str) -> list[str]:
        result = json.loads(answered(await client.call_tool("recall", {"query": query})))
        return [entry["ref"] for entry in result["results"]]

    async def body(client: Client) -> None:
        assert await recalled(client, "zeppelin") == []
        with decisions.open("a", encoding="utf-8") as handle:
            handle.write("\n### Ship by zeppelin\nThe zeppelin carries the release.\n")
        assert await recalled(client, "zeppelin") == ["Ship by zeppelin"]
        # A same-size rewrite right away: the stat may look unchanged; the answer must not be.
        decisions.write_text(
            decisions.read_text(encoding="utf-8").replace("zeppelin", "dirigibl"),
            encoding="utf-8",
        )
        assert await recalled(client, "zeppelin") == []
        assert await recalled(client, "dirigibl") == ["Ship by dirigibl"]
        # The index is disposable: deleted or rebuilt by another process, answers stay right.
        shutil.rmtree(os.environ["MEM_CACHE_DIR"])
        assert await recalled(client, "dirigibl") == ["Ship by dirigibl"]
        assert run_mem("index", "rebuild", cwd=project).returncode == 0
        decisions.unlink()
        assert await recalled(client, "dirigibl") == []
        written = await client.call_tool("write", {"agent": "forge", "task": "dirigibl launch"})
        event_id = json.loads(answered(written))["written"]["id"]
        assert await recalled(client, "dirigibl") == [event_id]

    with_server(project, body)


def test_a_call_can_name_another_project(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".agents/memory").mkdir(parents=True)
    (other / ".agents/memory/lessons.md").write_text("### Only here\nkumquat\n", encoding="utf-8")

    async def body(client: Client) -> None:
        here = json.loads(answered(await client.call_tool("recall", {"query": "kumquat"})))
        there = json.loads(
            answered(
                await client.call_tool("recall", {"query": "kumquat", "directory": "../other"})
            )
        )
        absolute = json.loads(
            answered(
                await client.call_tool("recall", {"query": "kumquat", "directory": str(other)})
            )
        )
        assert here["count"] == 0
        missing = await client.call_tool("write", {"agent": "a", "directory": "../nowhere"})
        assert failed(missing).startswith("Project directory does not exist: ")
        assert not (tmp_path / "nowhere").exists()
        assert [entry["ref"] for entry in there["results"]] == ["Only here"]
        assert absolute == there

    with_server(project, body)


def test_nothing_but_protocol_reaches_stdout(project: Path) -> None:
    output, _ = exchange(
        [*mem_command(), "mcp", "-d", str(project)],
        opening(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            recall_request(3, "postgres"),
            recall_request(4, ""),
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "status"}},
        ),
        5,
    )
    replies = replies_of(output)
    assert [reply["id"] for reply in replies] == [1, 2, 3, 4, 5]
    assert all(reply["jsonrpc"] == "2.0" and "result" in reply for reply in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "mem"
    assert replies[3]["result"]["isError"] is True


STRAY_OUTPUT_SERVER = """
import os, sys
from mem.mcp import server

answer = server.Session.call

def call(self, name, arguments):
    os.write(1, b"stray bytes\\n")
    print("stray print", flush=True)
    return answer(self, name, arguments)

server.Session.call = call
server.serve(sys.argv[1])
os.write(1, b"the wire again\\n")
"""


def test_stray_output_during_a_call_goes_to_stderr_and_the_wire_comes_back(
    project: Path,
) -> None:
    output, errors = exchange(
        [sys.executable, "-c", STRAY_OUTPUT_SERVER, str(project)],
        opening(recall_request(2, "postgres")),
        2,
    )
    *protocol, last = output.decode().splitlines()
    replies = replies_of("\n".join(protocol).encode())
    assert [reply["id"] for reply in replies] == [1, 2]
    assert replies[1]["result"]["structuredContent"]["count"] > 0
    assert last == "the wire again"
    assert b"stray bytes" in errors and b"stray print" in errors


def test_a_client_that_quits_mid_call_ends_the_server_quietly(project: Path) -> None:
    requests = [recall_request(number, "postgres") for number in range(2, 200)]
    with subprocess.Popen(
        [*mem_command(), "mcp", "-d", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        assert server.stderr is not None
        server.stdin.write(opening(*requests))
        server.stdin.flush()
        assert replies_of(server.stdout.readline())[0]["id"] == 1
        # Both ends at once, as when the client's process dies: answers are still due.
        server.stdout.close()
        server.stdin.close()
        errors = server.stderr.read()
        server.wait(timeout=60)
    assert (server.returncode, errors) == (0, b"")


def test_without_the_sdk_mcp_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    result = CliRunner(catch_exceptions=False).invoke(cli, ["mcp"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "mem mcp: the MCP server needs the optional MCP SDK:"
        " pipx inject mem-project 'mcp>=2.3' (with pip: pip install './mem-project[mcp]')\n"
    )


def test_two_servers_on_one_project_see_each_others_writes(project: Path) -> None:
    async def main() -> None:
        async with served(project) as first, served(project) as second:

            async def refs(client: Client) -> list[str]:
                found = await client.call_tool("recall", {"query": "quokka"})
                return [entry["ref"] for entry in json.loads(answered(found))["results"]]

            assert await refs(first) == await refs(second) == []
            written = []
            async with anyio.create_task_group() as group:
                for position in range(6):
                    client = first if position % 2 else second

                    async def write(client: Client = client, position: int = position) -> None:
                        result = await client.call_tool(
                            "write", {"agent": "forge", "task": f"quokka {position}"}
                        )
                        written.append(json.loads(answered(result))["written"]["id"])

                    group.start_soon(write)
            assert sorted(await refs(first)) == sorted(await refs(second)) == sorted(written)

    anyio.run(main)


def test_writes_refuse_a_possible_secret_unless_its_kind_is_allowed(
    project: Path, run_mem: RunMem
) -> None:
    task = f"we learned: {SAMPLES['connection-string']} (done)"
    journal = project / ".bmad/memory/journal.ndjson"
    before = journal.read_bytes()

    async def body(client: Client) -> None:
        refused = failed(await client.call_tool("write", {"agent": "forge", "task": task}))
        done = run_mem("write", "--agent", "forge", "--task", task, "--json", cwd=project)
        assert (done.returncode, json.loads(done.stdout)) == (1, {"error": refused})
        assert journal.read_bytes() == before
        assert "connection-string" in refused and SAMPLES["connection-string"] not in refused
        allowed = await client.call_tool(
            "write", {"agent": "forge", "task": task, "allow_secret": ["connection-string"]}
        )
        assert json.loads(answered(allowed))["written"]["task"] == task

    with_server(project, body)
