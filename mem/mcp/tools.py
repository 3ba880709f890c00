"""The tools `mem mcp` serves: each one a `mem` command, answering with its `--json` output.

Every tool runs the command layer and the same render function the CLI's `--json` uses, so
a tool's result is that output byte for byte (the MCP server parses it once more for the
structured result). Nothing here knows the MCP SDK: the table is plain data, and the
server turns it into the protocol's tool list.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple

from mem import clock, layout
from mem.commands import (
    audit,
    context,
    evidence,
    note,
    observe,
    outcomes,
    patterns,
    recall,
    reinforce,
    retract,
    status,
    supersede,
    write,
)
from mem.core.javascript import js
from mem.files import safe_paths
from mem.render import action_views, memory_views, report

Arguments = dict[str, Any]


class Answer(NamedTuple):
    output: str  # the command's `--json` output
    warnings: tuple[str, ...] = ()  # what the command prints on stderr as `warning: ...`


class Tool(NamedTuple):
    name: str
    title: str
    description: str
    properties: dict[str, Any]  # JSON Schema of each argument (`directory` is added to all)
    required: tuple[str, ...]
    read_only: bool
    destructive: bool
    idempotent: bool
    run: Callable[[str, Arguments], Answer]  # (project root, arguments) -> what it answers
    # "core": listed by default; "admin" and "nexus" only with `mem mcp --tools all` (every
    # tool still answers a call, so a client's older list keeps working).
    tier: str = "core"
    # The arguments the default list shows (None: all); `--tools all` lists every one.
    core_properties: tuple[str, ...] | None = None

    def input_schema(self, every: bool = True) -> dict[str, Any]:
        shown = self.properties
        if not every and self.core_properties is not None:
            shown = {name: self.properties[name] for name in self.core_properties}
        return {
            "type": "object",
            "properties": {**shown, "directory": DIRECTORY},
            "required": list(self.required),
            "additionalProperties": False,
        }


DIRECTORY = {"type": "string", "description": "Project directory (default: the server's)."}
MEMORY_ID = {"type": "string", "description": "Full memory id (mem_ + 20 hex)."}
REASON = {"type": "string", "description": "Why (1 to 2000 characters)."}
CHECKOUT_ROOT = {
    "type": "string",
    "description": "Top level of the git work tree the sources live in (default: the project).",
}
SIGNALS = {
    "eval": {
        "type": ["number", "string"],
        "description": "Reward signal: evaluation score 0..1.",
    },
    "accept": {
        "type": ["boolean", "number", "string"],
        "description": "Reward signal: accepted (true/false, yes/no, or 0..1).",
    },
    "ci": {"type": ["number", "string"], "description": "Reward signal: pass, fail or 0..1."},
}


def root_of(default_root: str, arguments: Arguments) -> str:
    """The call's project: its `directory`, relative to the server's, else the server's."""
    directory = arguments.get("directory")
    if directory is None:
        return default_root
    # Like `-d`, a directory that does not exist is refused (D8), never made a new project.
    return safe_paths.project_root(os.path.join(default_root, directory))


def _option(value: Any) -> str | None:
    """A JSON argument as the CLI would have received it on the command line."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return js.number_to_string(value)


def _allowed(arguments: Arguments) -> tuple[str, ...]:
    return tuple(arguments.get("allow_secret", ()))


def _recall(root: str, arguments: Arguments) -> Answer:
    found = recall.recall(
        root,
        arguments["query"],
        clock.now_iso(),
        scope=arguments.get("scope", "project"),
        ranking=arguments.get("ranking"),
        include_history=arguments.get("include_history", False),
        portfolio=arguments.get("portfolio"),
        limit=_option(arguments.get("limit")),
        context_scope=arguments.get("context_scope"),
        include_archive=arguments.get("include_archive", False),
        with_evidence=arguments.get("with_evidence", False),
        include_retired=arguments.get("include_retired", False),
        explain=arguments.get("explain", False),
        amendments=True,  # an agent's own reader: likely amendments first and marked
    )
    asked = found.request
    return Answer(
        action_views.recall(
            asked.query, asked.scope, asked.ranking, found.entries, as_json=True, as_reference=False
        )
    )


def _write(root: str, arguments: Arguments) -> Answer:
    event = write.write(
        root,
        clock.now_iso(),
        agent=arguments.get("agent"),
        cli=arguments.get("cli"),
        model=arguments.get("model"),
        task=arguments.get("task"),
        outcome=arguments.get("outcome"),
        eval_=_option(arguments.get("eval")),
        accept=_option(arguments.get("accept")),
        ci=_option(arguments.get("ci")),
        allow_secrets=_allowed(arguments),
    )
    return Answer(action_views.write(event, as_json=True))


def _reinforce(root: str, arguments: Arguments) -> Answer:
    result, warning = reinforce.reinforce(
        root,
        clock.now_iso(),
        pattern=arguments.get("pattern"),
        eval_=_option(arguments.get("eval")),
        accept=_option(arguments.get("accept")),
        ci=_option(arguments.get("ci")),
        evidence=arguments.get("evidence"),
        allow_secrets=_allowed(arguments),
    )
    return Answer(
        action_views.reinforce(result, as_json=True), () if warning is None else (warning,)
    )


def _patterns(root: str, arguments: Arguments) -> Answer:
    return Answer(action_views.patterns(patterns.listed(root), as_json=True))


def _observe(root: str, arguments: Arguments) -> Answer:
    receipt = observe.observe(root, arguments["input"], clock.now_iso(), _allowed(arguments))
    return Answer(action_views.observe(receipt, as_json=True))


def _outcomes(root: str, arguments: Arguments) -> Answer:
    return Answer(action_views.outcomes(outcomes.listed(root), as_json=True))


def _context(root: str, arguments: Arguments) -> Answer:
    state = context.gather(root, arguments.get("with_evidence", False))
    return Answer(memory_views.context(state, as_json=True))


def _audit(root: str, arguments: Arguments) -> Answer:
    results, total = audit.audit(
        root, arguments.get("memory_id"), arguments.get("root"), _option(arguments.get("limit"))
    )
    return Answer(memory_views.audit(results, total, as_json=True))


def _evidence_add(root: str, arguments: Arguments) -> Answer:
    added = evidence.add(
        root,
        arguments["memory_id"],
        list(arguments["sources"]),
        arguments.get("root"),
        clock.now_iso(),
        _allowed(arguments),
    )
    return Answer(memory_views.evidence_added(added, as_json=True))


def _evidence_list(root: str, arguments: Arguments) -> Answer:
    memory, records = evidence.listed(root, arguments["memory_id"])
    return Answer(memory_views.evidence_list(memory, records, as_json=True))


def _supersede(root: str, arguments: Arguments) -> Answer:
    outcome = supersede.supersede(
        root,
        arguments["memory_id"],
        arguments.get("with"),
        arguments.get("reason"),
        clock.now_iso(),
        _allowed(arguments),
    )
    return Answer(memory_views.lifecycle_outcome("supersede", outcome, as_json=True))


def _retract(root: str, arguments: Arguments) -> Answer:
    outcome = retract.retract(
        root, arguments["memory_id"], arguments.get("reason"), clock.now_iso(), _allowed(arguments)
    )
    return Answer(memory_views.lifecycle_outcome("retract", outcome, as_json=True))


def _note_add(root: str, arguments: Arguments) -> Answer:
    result = note.add(
        root,
        arguments["kind"],
        arguments["title"],
        arguments.get("body"),
        clock.now_iso(),
        _allowed(arguments),
    )
    return Answer(memory_views.note_added(result, as_json=True))


def _status(root: str, arguments: Arguments) -> Answer:
    return Answer(report.status(status.status(root), as_json=True))


ALLOW_SECRET = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Write even though the text holds a possible secret of these kinds (false"
    " positives); recorded nowhere.",
}


# Descriptions are short on purpose: every session pays for the whole tools/list (at most
# 4,000 characters by default, tests/test_mcp_tool_list_size.py); the CLI's --help has the rest.
TOOLS = [
    Tool(
        "recall",
        "Recall memory",
        "Ranked decisions, lessons, patterns and journal events for a query (`mem recall`).",
        {
            "query": {"type": "string", "description": "Words to look for."},
            "scope": {"type": "string", "description": "project, or portfolio (+ brain)."},
            "portfolio": {"type": "string", "description": "Portfolio brain folder."},
            "limit": {"type": "integer", "description": "1 to 1000 (default 8)."},
            "ranking": {
                "type": "string",
                "enum": ["lexical", "evidence", "bm25"],
                "description": (
                    "evidence boosts notes backed by accepted Nexus work; bm25 finds words of"
                    " every script, parts of identifiers and stems (default: $MEM_RANKING,"
                    " the project's mem.toml, the user's config.toml, else lexical)."
                ),
            },
            "context_scope": {
                "type": "string",
                "description": "With ranking evidence: comma-separated project paths.",
            },
            "include_archive": {"type": "boolean", "description": "Also archived journals."},
            "with_evidence": {
                "type": "boolean",
                "description": "Add each note's lifecycle and audit status.",
            },
            "include_retired": {
                "type": "boolean",
                "description": "Also superseded and retracted notes.",
            },
            "explain": {"type": "boolean", "description": "Every part of each score."},
            "include_history": {
                "type": "boolean",
                "description": (
                    "With ranking bm25: also the project's git commits (scope all: every"
                    " registered project's; default: mem.toml's history)."
                ),
            },
        },
        ("query",),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_recall,
        core_properties=("query", "scope", "limit", "include_retired"),
    ),
    Tool(
        "context",
        "Project memory context",
        "Session start: context.md, latest handoff, brain, commits, every memory's status.",
        {
            "with_evidence": {
                "type": "boolean",
                "description": "Add each memory's audit and outcome receipts.",
            }
        },
        (),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_context,
        core_properties=(),
    ),
    Tool(
        "write",
        "Write a journal event",
        "Append what an agent did, and how it went, to the journal.",
        {
            "agent": {"type": "string", "description": "The agent that acted."},
            "cli": {"type": "string", "description": "The coding CLI."},
            "model": {"type": "string", "description": "The model id."},
            "task": {"type": "string", "description": "What was attempted."},
            "outcome": {
                "type": "string",
                "enum": ["success", "failure", "partial", "abandoned"],
            },
            **SIGNALS,
            "allow_secret": ALLOW_SECRET,
        },
        ("agent",),
        read_only=False,
        destructive=False,
        idempotent=False,
        run=_write,
        core_properties=("agent", "cli", "model", "task", "outcome"),
    ),
    Tool(
        "note_add",
        "Add a decision, lesson or pattern",
        "Append a dated, well-formed ### section to the kind's notes file (in team layout: a"
        " file of its own).",
        {
            "kind": {"type": "string", "enum": ["decision", "lesson", "pattern"]},
            "title": {"type": "string", "description": "One line, at most 200."},
            "body": {"type": "string", "description": "Markdown, no headings (default: fields)."},
            "allow_secret": ALLOW_SECRET,
        },
        ("kind", "title"),
        read_only=False,
        destructive=False,
        idempotent=False,
        run=_note_add,
        core_properties=("kind", "title", "body"),
    ),
    Tool(
        "supersede",
        "Supersede a memory",
        "Record that another memory replaces this one.",
        {
            "memory_id": MEMORY_ID,
            "with": {**MEMORY_ID, "description": "Id of the memory that replaces it."},
            "reason": REASON,
            "allow_secret": ALLOW_SECRET,
        },
        ("memory_id", "with", "reason"),
        read_only=False,
        destructive=False,  # an appended event; the memory itself stays
        idempotent=True,
        run=_supersede,
        core_properties=("memory_id", "with", "reason"),
    ),
    Tool(
        "retract",
        "Retract a memory",
        "Record that a memory's current revision is withdrawn.",
        {"memory_id": MEMORY_ID, "reason": REASON, "allow_secret": ALLOW_SECRET},
        ("memory_id", "reason"),
        read_only=False,
        destructive=False,
        idempotent=True,
        run=_retract,
        core_properties=("memory_id", "reason"),
    ),
    Tool(
        "reinforce",
        "Reinforce a pattern",
        "Fold reward signals into a pattern's score (`mem reinforce`).",
        {
            "pattern": {"type": "string", "description": "The pattern's heading."},
            **SIGNALS,
            "evidence": {"type": "string", "description": "Comma-separated journal event ids."},
            "allow_secret": ALLOW_SECRET,
        },
        ("pattern",),
        read_only=False,
        destructive=True,  # the stored score is replaced by the folded one
        idempotent=False,
        run=_reinforce,
        tier="admin",
    ),
    Tool(
        "patterns",
        "List scored patterns",
        "Every scored pattern, best first: `mem patterns --json`.",
        {},
        (),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_patterns,
        tier="admin",
    ),
    Tool(
        "status",
        "Memory status",
        "Health of memory, stores, writer lock and index: `mem status --json`.",
        {},
        (),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_status,
        tier="admin",
    ),
    Tool(
        "audit",
        "Audit memory evidence",
        "Compare recorded evidence with the checkout, writing nothing: `mem audit --json`.",
        {
            "memory_id": {**MEMORY_ID, "description": "One memory (default: every audited one)."},
            "root": CHECKOUT_ROOT,
            "limit": {
                "type": "integer",
                "description": "Memories to list, 1 to 1000 (default 20).",
            },
        },
        (),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_audit,
        tier="admin",
    ),
    Tool(
        "evidence_add",
        "Record evidence",
        "Record the SHA-256 of source files a memory's current revision rests on:"
        " `mem evidence add --json`. A source already recorded is not written again.",
        {
            "memory_id": MEMORY_ID,
            "sources": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Source files, relative to the checkout root (1 to 50).",
            },
            "root": CHECKOUT_ROOT,
            "allow_secret": ALLOW_SECRET,
        },
        ("memory_id", "sources"),
        read_only=False,
        destructive=False,
        idempotent=True,
        run=_evidence_add,
        tier="admin",
    ),
    Tool(
        "evidence_list",
        "List evidence",
        "A memory's evidence records, all revisions, marking the current ones:"
        " `mem evidence list --json`.",
        {"memory_id": MEMORY_ID},
        ("memory_id",),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_evidence_list,
        tier="admin",
    ),
    Tool(
        "observe",
        "Observe an accepted outcome",
        "Record that accepted, verified Nexus work supports a memory section (an outcome"
        f" receipt in {layout.BMAD_MEMORY}/outcomes.ndjson): `mem observe --json`.",
        {
            "input": {"type": "string", "description": "Project-relative JSON observation file."},
            "allow_secret": ALLOW_SECRET,
        },
        ("input",),
        read_only=False,
        destructive=False,
        idempotent=False,
        run=_observe,
        tier="nexus",
    ),
    Tool(
        "outcomes",
        "List outcome receipts",
        "Every outcome receipt with its eligibility, recomputed from the files:"
        " `mem outcomes --json`.",
        {},
        (),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_outcomes,
        tier="nexus",
    ),
]
TOOL_SETS = ("core", "all")


def listed(tool_set: str) -> list[Tool]:
    """The tools `tools/list` shows: the core ones, or every one with `--tools all`."""
    return [tool for tool in TOOLS if tool_set == "all" or tool.tier == "core"]


BY_NAME = {tool.name: tool for tool in TOOLS}
