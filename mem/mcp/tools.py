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

from mem import clock, layout, render
from mem.commands import (
    audit,
    context,
    evidence,
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
from mem.core import js
from mem.files import safe_paths
from mem.render import memory_views, report

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

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {**self.properties, "directory": DIRECTORY},
            "required": list(self.required),
            "additionalProperties": False,
        }


DIRECTORY = {
    "type": "string",
    "description": "Project directory for this call (absolute, or relative to the server's"
    " directory, `mem mcp -d`); default: the server's directory.",
}
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
    request = recall.Request(
        query=arguments["query"],
        scope=arguments.get("scope", "project"),
        portfolio=arguments.get("portfolio"),
        limit=_option(arguments.get("limit")),
        ranking=arguments.get("ranking") or recall.default_ranking(),
        context_scope=arguments.get("context_scope"),
        include_archive=arguments.get("include_archive", False),
        with_evidence=arguments.get("with_evidence", False),
        include_retired=arguments.get("include_retired", False),
        explain=arguments.get("explain", False),
    )
    results = recall.recall(root, request, clock.now_iso())
    return Answer(
        render.recall(request.query, request.scope, request.ranking, results, as_json=True)
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
    return Answer(render.write(event, as_json=True))


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
    return Answer(render.reinforce(result, as_json=True), () if warning is None else (warning,))


def _patterns(root: str, arguments: Arguments) -> Answer:
    return Answer(render.patterns(patterns.listed(root), as_json=True))


def _observe(root: str, arguments: Arguments) -> Answer:
    receipt = observe.observe(root, arguments["input"], clock.now_iso(), _allowed(arguments))
    return Answer(render.observe(receipt, as_json=True))


def _outcomes(root: str, arguments: Arguments) -> Answer:
    return Answer(render.outcomes(outcomes.listed(root), as_json=True))


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


def _status(root: str, arguments: Arguments) -> Answer:
    return Answer(report.status(status.status(root), as_json=True))


ALLOW_SECRET = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Write even though the text holds a possible secret of these kinds (false"
    " positives); recorded nowhere.",
}


TOOLS = [
    Tool(
        "recall",
        "Recall memory",
        "Ranked notes (decisions, lessons, patterns) and journal events for a query: the"
        " result of `mem recall --json`. Call it at session start with the words of the task,"
        " and before deciding anything the project may have decided before.",
        {
            "query": {"type": "string", "description": "The words to look for."},
            "scope": {
                "type": "string",
                "description": "project, or portfolio (adds the linked brain's notes).",
            },
            "portfolio": {
                "type": "string",
                "description": "Portfolio brain folder (default: the linked brain).",
            },
            "limit": {"type": "integer", "description": "Results to keep, 1 to 1000 (default 8)."},
            "ranking": {
                "type": "string",
                "enum": ["lexical", "evidence", "bm25"],
                "description": (
                    "evidence boosts notes backed by accepted Nexus work; bm25 finds words of"
                    " every script, parts of identifiers and stems (default $MEM_RANKING,"
                    " else lexical)."
                ),
            },
            "context_scope": {
                "type": "string",
                "description": "With ranking evidence: comma-separated project paths.",
            },
            "include_archive": {"type": "boolean", "description": "Also search archived journals."},
            "with_evidence": {
                "type": "boolean",
                "description": "Add each note's lifecycle and audit status.",
            },
            "include_retired": {
                "type": "boolean",
                "description": "Also list superseded and retracted notes, with their status.",
            },
            "explain": {
                "type": "boolean",
                "description": "Add every part of each result's score under `explain`.",
            },
        },
        ("query",),
        read_only=True,
        destructive=False,
        idempotent=True,
        run=_recall,
    ),
    Tool(
        "write",
        "Write a journal event",
        "Append one event (what an agent did, and how it went) to"
        f" {layout.BMAD_MEMORY}/journal.ndjson: `mem write --json`.",
        {
            "agent": {"type": "string", "description": "The agent that acted (required)."},
            "cli": {"type": "string", "description": "The coding CLI (claude-code, codex-cli...)."},
            "model": {"type": "string", "description": "The model id."},
            "task": {"type": "string", "description": "What was attempted."},
            "outcome": {
                "type": "string",
                "enum": ["success", "failure", "partial", "abandoned"],
                "description": "How it went.",
            },
            **SIGNALS,
            "allow_secret": ALLOW_SECRET,
        },
        ("agent",),
        read_only=False,
        destructive=False,
        idempotent=False,
        run=_write,
    ),
    Tool(
        "reinforce",
        "Reinforce a pattern",
        "Fold reward signals into a pattern's score (Elo and Beta) in"
        f" {layout.BMAD_MEMORY}/pattern-scores.json: `mem reinforce --json`. Proposes, never"
        " applies, a promotion once the mean reaches 0.7 over 3 updates.",
        {
            "pattern": {"type": "string", "description": "The pattern's heading in patterns.md."},
            **SIGNALS,
            "evidence": {
                "type": "string",
                "description": "Comma-separated journal event ids backing the reinforcement.",
            },
            "allow_secret": ALLOW_SECRET,
        },
        ("pattern",),
        read_only=False,
        destructive=True,  # the stored score is replaced by the folded one
        idempotent=False,
        run=_reinforce,
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
    ),
    Tool(
        "context",
        "Project memory context",
        "What an agent needs at session start: context.md, the latest handoff, the linked"
        " brain, recent commits and every memory with its status: `mem context --json`.",
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
    ),
    Tool(
        "supersede",
        "Supersede a memory",
        "Record that a memory's current revision is replaced by another memory (a lifecycle"
        " event; the Markdown is never touched): `mem supersede --json`.",
        {
            "memory_id": MEMORY_ID,
            "with": {**MEMORY_ID, "description": "Full id of the memory that replaces it."},
            "reason": REASON,
            "allow_secret": ALLOW_SECRET,
        },
        ("memory_id", "with", "reason"),
        read_only=False,
        destructive=False,  # an appended event; the memory itself stays
        idempotent=True,
        run=_supersede,
    ),
    Tool(
        "retract",
        "Retract a memory",
        "Record that a memory's current revision is withdrawn (a lifecycle event; the Markdown"
        " is never touched): `mem retract --json`.",
        {"memory_id": MEMORY_ID, "reason": REASON, "allow_secret": ALLOW_SECRET},
        ("memory_id", "reason"),
        read_only=False,
        destructive=False,
        idempotent=True,
        run=_retract,
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
    ),
]
BY_NAME = {tool.name: tool for tool in TOOLS}
