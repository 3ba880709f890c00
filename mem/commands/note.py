"""`mem note add` and `mem show`: one memory section written well-formed, or read whole.

`mem note add decision|lesson|pattern --title ...` appends a `###` section in the template's
format (mem.core.templates) to the project's classic memory file
(`.agents/memory/decisions.md`, `lessons.md`, `patterns.md`), created from its template
when missing, so an agent never hand-edits Markdown. Decisions and lessons are dated
(YYYY-MM-DD from the command's "now"); patterns are named, as `mem reinforce` finds them.

In team layout (deviation D13) each note is a file of its own,
`.agents/memory/<decisions|lessons|patterns>/<date>-<slug>-<writer>.md`, so two branches
that each add a note never touch the same file; a heading is refused when any memory file
of its kind already has it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core import js, secrets, templates
from mem.domain import lifecycle_events, memories
from mem.errors import MemError
from mem.files import locking, safe_paths, team, writing

MAX_TITLE = 200
MAX_BODY = 8000
KINDS = {"decision": "decisions.md", "lesson": "lessons.md", "pattern": "patterns.md"}
# The template's fields, written when no text is given, for a person or agent to fill in.
SKELETONS = {
    "decision": "- **Context**: …\n- **Decision**: …\n- **Rationale**: …\n"
    "- **Consequences**: …\n- **Status**: active",
    "lesson": "- **Context**: …\n- **Impact**: …\n- **Rule**: …",
    "pattern": "- **Problem**: …\n- **Shape**: …\n- **Trade-off**: …\n- **Status**: candidate",
}


def _checked(kind: str, title: str | None, body: str | None) -> tuple[str, str]:
    if kind not in KINDS:
        raise MemError(f"The kind must be decision, lesson or pattern, not {kind!r}.")
    title = js.trim(title or "")
    if not title or "\n" in title or "\r" in title or len(title) > MAX_TITLE:
        raise MemError(f"--title must be one line of 1 to {MAX_TITLE} characters.")
    text = (body or "").strip("\n")
    if len(text) > MAX_BODY:
        raise MemError(f"The note text must be at most {MAX_BODY} characters.")
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#") and line.lstrip("#")[:1] in (" ", "\t", ""):
            raise MemError(
                f"The note text, line {number}: a Markdown heading would split the note;"
                " use bold or a list item instead."
            )
    return title, text or SKELETONS[kind]


def add(
    root: str,
    kind: str,
    title: str | None,
    body: str | None,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> dict[str, Any]:
    """Append the section; returns where it went, its heading, id and revision."""
    title, text = _checked(kind, title, body)
    secrets.refuse([("--title", title), ("the note text", body)], allow_secrets)
    name = KINDS[kind]
    relative = f"{layout.AGENTS_MEMORY}/{name}"
    heading = title if kind == "pattern" else f"{now[:10]} — {title}"
    section = f"### {heading}\n{text}\n"
    if team.is_team(root):
        return _add_file(root, kind, name, heading, section, now)
    with locking.writer_lock(root):
        prior = safe_paths.read_bounded(root, relative)
        created = prior is None
        if prior is None:
            prior = templates.PROJECT_FILES[name]
        existing = {memory.heading for memory in memories.from_text(relative, prior)}
        if heading in existing:
            raise MemError(f'{relative} already has a section headed "{heading}"; nothing added.')
        addition = "\n" + section  # a blank line before it (append_text ends a last line first)
        if len((prior + "\n" + addition).encode("utf-8")) > safe_paths.STORE_LIMIT:
            raise MemError(f"{relative} would grow past 2 MiB; nothing added.")
        if created:
            writing.create_new(root, relative, prior + addition)
        else:
            writing.append_text(root, relative, addition)
    (memory,) = memories.from_text(relative, section)
    return {
        "file": relative,
        "created": created,
        "kind": kind,
        "id": memory.id,
        "heading": heading,
        "revision": memory.revision,
    }


def _add_file(
    root: str, kind: str, name: str, heading: str, section: str, now: str
) -> dict[str, Any]:
    """Deviation D13: the note in a new file of its own."""
    with locking.writer_lock(root):
        classic = f"{layout.AGENTS_MEMORY}/{name}"
        for memory in memories.load(root):
            same_kind = memory.file == classic or (
                layout.is_note_file(memory.file) and layout.note_file_kind(memory.file) == name
            )
            if same_kind and memory.heading == heading:
                raise MemError(
                    f'{memory.file} already has a section headed "{heading}"; nothing added.'
                )
        base = team.note_file_name(
            name, now[:10], js.trim(heading.split(" — ", 1)[-1]), writing.writer_id(root)
        )
        relative, number = base, 1
        while not writing.create_new(root, relative, section):
            number += 1
            relative = base.removesuffix(".md") + f"-{number}.md"
    (memory,) = memories.from_text(relative, section)
    return {
        "file": relative,
        "created": True,
        "ownFile": True,
        "kind": kind,
        "id": memory.id,
        "heading": heading,
        "revision": memory.revision,
    }


def show(root: str, memory_id: str) -> dict[str, Any]:
    """One memory whole, with its lifecycle status; or a commit, for a (short) sha."""
    from mem.domain import history

    if history.is_sha(memory_id):
        return history.shown(root, memory_id)
    current, statuses = lifecycle_events.project_statuses(root)
    memory = memories.resolve(current, memory_id, suggest=True)
    status = statuses[(memory.id, memory.revision)]
    return {
        **memory.ref(),
        "status": status.status,
        "supersededBy": status.superseded_by,
        "text": memory.text,
    }
