"""The memory protocol block `mem init --agents` keeps in AGENTS.md, CLAUDE.md, GEMINI.md. Pure.

The block teaches the seed's read and write protocol (read at session start, write on the
trigger during work, hand off at the end) and the four guardrails with their memory links.
It lives between two marker lines; everything outside them is the person's, byte for byte.

Placement is reversible: appended to a file, the block brings exactly one newline of its
own before the begin marker (a blank line after a file that ended with one, or the end of
a last line that had none), and removal takes that newline back with the block, so adding
then removing restores the original bytes. One case cannot be told apart from a block the
person moved: a file that had no final newline, then got text written below the block. There
the newline stays on removal, as nothing of the person's is ever taken.
"""

from __future__ import annotations

from typing import NamedTuple

from mem.errors import MemError
from mem.layout import AGENTS_MEMORY as AGENTS
from mem.layout import BMAD_MEMORY as BMAD

BEGIN = (
    "<!-- BEGIN mem agents: managed by `mem init --agents`; edit outside this block,"
    " `mem init --agents --remove` takes it out -->"
)
BEGIN_PREFIX = "<!-- BEGIN mem agents"
END = "<!-- END mem agents -->"

BODY = f"""## Project memory (`mem`)

This project keeps what it learned in Markdown: `{AGENTS}/decisions.md`,
`lessons.md`, `patterns.md` (one `###` section per entry), `context.md` and `sessions/`
(handoffs), and an append-only journal in `{BMAD}/`. Read and write it with the
`mem` command (or the same tools over MCP: `mem mcp`). Memory is optional: a missing file
is skipped, never an error. Dates are YYYY-MM-DD.

### At session start: read

1. `mem context --json`: the project context, the latest handoff, the linked brain, the
   last commits, and every memory with its status (`active`, `superseded`, `retracted`).
2. `mem recall <words of the task> --json`: the decisions, lessons, patterns and journal
   events that match the task. Follow active memories; superseded and retracted ones are
   history, not instructions.

### During work: write on the trigger

- A non-obvious choice is made (you would explain the "why" to a colleague): add a
  `### YYYY-MM-DD — <title>` section to `{AGENTS}/decisions.md` with Context,
  Decision, Rationale, Consequences, Status.
- Something unexpected happens or an assumption proves wrong: add a lesson to
  `{AGENTS}/lessons.md` (context, impact, the rule for next time) immediately, not
  at the end of the session.
- A solution works and could be reused: add it to `{AGENTS}/patterns.md` (problem,
  shape, trade-off, status `candidate`); when it is reused, score it with
  `mem reinforce --pattern "<heading>" --eval X --accept yes|no --ci pass|fail`.
- The project changes meaningfully (new module, stack change): update
  `{AGENTS}/context.md`.
- A task ends: record it in the journal with
  `mem write --agent <you> --cli <your cli> --task "<what>" --outcome <how it went>`
  (success, failure, partial or abandoned).
- A memory is replaced or proves wrong: record it with
  `mem supersede <old-id> --with <new-id> --reason "<why>"` or
  `mem retract <id> --reason "<why>"` (ids as `mem context --json` lists them). Never
  delete or rewrite a memory.

### At session end: hand off

Write a handoff of what was done, what is unfinished and the open questions with
`mem handoff --topic "<topic>" --stdin`, update `context.md`, look at pending lessons, and
only propose (never apply) promotions to the brain (`mem consolidate`).

### Guardrails

| Rule | In short | Memory link |
| --- | --- | --- |
| G1 Think Before Coding | State assumptions; if uncertain, ask. | Check `decisions.md` before deciding again (`mem recall`). |
| G2 Simplicity First | The minimum that solves the problem, nothing speculative. | Check `patterns.md` for an existing solution. |
| G3 Surgical Changes | Touch only what you must; match the existing style. | Log surprises in `lessons.md`. |
| G4 Goal-Driven Execution | Define success criteria before implementing. | Log non-obvious decisions in `decisions.md`. |
"""  # noqa: E501 (a Markdown table row is one line)

BLOCK = f"{BEGIN}\n{BODY}{END}\n"
# Claude Code reads CLAUDE.md, not AGENTS.md, and Gemini CLI reads GEMINI.md; both expand an
# `@file` line. Importing AGENTS.md keeps one copy of the block (and of its context cost).
IMPORTS = {"CLAUDE.md": "@AGENTS.md", "GEMINI.md": "@./AGENTS.md"}


def import_block(name: str) -> str:
    """The block of an instruction file that imports AGENTS.md rather than repeating it."""
    return f"{BEGIN}\n{IMPORTS[name]}\n{END}\n"


def imports_agents(text: str) -> bool:
    """Whether a file already pulls AGENTS.md in (a line `@AGENTS.md` or `@./AGENTS.md`)."""
    return any(line.strip() in ("@AGENTS.md", "@./AGENTS.md") for line in text.split("\n"))


class Span(NamedTuple):
    start: int  # offset of the begin marker's line
    end: int  # offset just past the end marker's line (and its newline, if any)


def find(text: str, label: str) -> Span | None:
    """Where the block is, or None; a damaged block (one marker, two blocks) is refused."""
    starts: list[int] = []
    ends: list[int] = []
    offset = 0
    for line in text.split("\n"):  # lines end at \n only, as everywhere in mem
        content = line.removesuffix("\r")
        if content.startswith(BEGIN_PREFIX):
            starts.append(offset)
        elif content == END:
            ends.append(min(offset + len(line) + 1, len(text)))
        offset += len(line) + 1
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise MemError(
            f"{label}: the mem agents block is damaged (expected one '{BEGIN_PREFIX} ...' line"
            f" and one '{END}' line after it); fix the markers by hand."
        )
    return Span(starts[0], ends[0])


def with_block(text: str, label: str, block: str = BLOCK) -> str:
    """The text with the current block: replaced in place, or appended."""
    span = find(text, label)
    if span is not None:
        return text[: span.start] + block + text[span.end :]
    if not text:
        return block
    return text + "\n" + block


def without_block(text: str, label: str) -> str | None:
    """The text with the block (and the newline it brought) taken out; None when it has none."""
    span = find(text, label)
    if span is None:
        return None
    start = span.start
    brought_newline = text[:start].endswith("\n\n") or (
        span.end == len(text) and text[:start].endswith("\n")
    )
    if brought_newline:
        start -= 1
    return text[:start] + text[span.end :]
