"""A note written well-formed: one `###` section added to the project's memory.

`mem note add` and `mem inbox accept` both write through `add`, so a note is written one way:
in the template's format (mem.core.prose.templates) to the project's classic memory file
(`.agents/memory/decisions.md`, `lessons.md`, `patterns.md`), created from its template
when missing; decisions and lessons dated (YYYY-MM-DD from the caller's "now"), patterns
named, as `mem reinforce` finds them. In team layout (deviation D13) each note is a file of
its own, `.agents/memory/<decisions|lessons|patterns>/<date>-<slug>-<writer>.md`, and a
heading is refused when any memory file of its kind already has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.prose import templates
from mem.core.rules import secrets
from mem.domain import memories
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
    (written,) = _write(root, [(kind, title, text)], now)
    if isinstance(written, str):
        raise MemError(f"{written}; nothing added.")
    return written


def add_many(
    root: str,
    notes: Sequence[tuple[str, str, str, str]],
    now: str,
    allow_secrets: Iterable[str] = (),
) -> list[dict[str, Any] | str]:
    """Notes (what the user calls it, kind, title, text) written as `add` writes each,
    under one writer lock and with one read of each file: each result is `add`'s, or why
    that note was not written (a heading its kind has, a file that would grow past 2 MiB).
    A note that is not well-formed or holds a possible secret is refused before anything
    is written."""
    checked = [_checked(kind, title, text) for _, kind, title, text in notes]
    fields = [
        (note[0], f"{title}\n{text}") for note, (title, text) in zip(notes, checked, strict=True)
    ]
    secrets.refuse(fields, allow_secrets)
    return _write(
        root, [(kind, *pair) for (_, kind, _, _), pair in zip(notes, checked, strict=True)], now
    )


def _write(
    root: str, notes: Sequence[tuple[str, str, str]], now: str
) -> list[dict[str, Any] | str]:
    sections = []
    for kind, title, text in notes:
        heading = title if kind == "pattern" else f"{now[:10]} — {title}"
        sections.append((kind, heading, f"### {heading}\n{text}\n"))
    with locking.writer_lock(root):
        if team.is_team(root):
            return _write_files(root, sections, now)
        results: list[dict[str, Any] | str] = [""] * len(sections)
        for name in sorted({KINDS[kind] for kind, _, _ in sections}):
            relative = f"{layout.AGENTS_MEMORY}/{name}"
            prior = safe_paths.read_bounded(root, relative)
            created = prior is None
            if prior is None:
                prior = templates.PROJECT_FILES[name]
            existing = {memory.heading for memory in memories.from_text(relative, prior)}
            size = len((prior + "\n").encode("utf-8"))
            additions: list[str] = []
            for number, (kind, heading, section) in enumerate(sections):
                if KINDS[kind] != name:
                    continue
                addition = "\n" + section  # a blank line before it
                grown = size + len(addition.encode("utf-8"))
                if heading in existing:
                    results[number] = f'{relative} already has a section headed "{heading}"'
                elif grown > safe_paths.STORE_LIMIT:
                    results[number] = f"{relative} would grow past 2 MiB"
                else:
                    existing.add(heading)
                    size = grown
                    additions.append(addition)
                    results[number] = _result(kind, relative, heading, section, created)
            if additions and created:
                writing.create_new(root, relative, prior + "".join(additions))
            elif additions:  # append_text ends a last line first
                writing.append_text(root, relative, "".join(additions))
    return results


def _write_files(
    root: str, sections: Sequence[tuple[str, str, str]], now: str
) -> list[dict[str, Any] | str]:
    """Deviation D13: each note in a new file of its own."""
    held: dict[tuple[str, str], str] = {}
    for memory in memories.load(root):
        if layout.is_note_file(memory.file):
            held.setdefault((layout.note_file_kind(memory.file), memory.heading), memory.file)
        elif memory.file == f"{layout.AGENTS_MEMORY}/{memory.kind}":
            held.setdefault((memory.kind, memory.heading), memory.file)
    writer = writing.writer_id(root)
    results: list[dict[str, Any] | str] = []
    for kind, heading, section in sections:
        name = KINDS[kind]
        if (name, heading) in held:
            results.append(f'{held[(name, heading)]} already has a section headed "{heading}"')
            continue
        base = team.note_file_name(name, now[:10], js.trim(heading.split(" — ", 1)[-1]), writer)
        relative, number = base, 1
        while not writing.create_new(root, relative, section):
            number += 1
            relative = base.removesuffix(".md") + f"-{number}.md"
        held[(name, heading)] = relative
        results.append({**_result(kind, relative, heading, section, True), "ownFile": True})
    return results


def _result(kind: str, relative: str, heading: str, section: str, created: bool) -> dict[str, Any]:
    (memory,) = memories.from_text(relative, section)
    return {
        "file": relative,
        "created": created,
        "kind": kind,
        "id": memory.id,
        "heading": heading,
        "revision": memory.revision,
    }
