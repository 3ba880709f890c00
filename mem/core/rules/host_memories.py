"""What the agent hosts remember, parsed into candidate notes (pure: text in, values out).

Each host keeps its memory as Markdown files (docs/import.md says where and how each was
verified). A reader here turns one file's text into `HostMemory` values, or into the reason
it was skipped: a skipped file is a line the user reads, never an exception.

Front matter is parsed strictly as the subset the hosts write: `key: value` lines, a value
optionally quoted, and one level of nesting (`metadata:` followed by indented `key: value`
lines, as Claude Code 2.1 writes `type`). Anything else (lists, block scalars, flow maps)
is not that subset and the file is skipped, rather than guessed at.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from mem.core.javascript import js

MAX_TITLE = 200  # as `mem note add` takes a title
MAX_BODY = 8000  # as `mem note add` takes a text (the source line included)
# Claude Code's memory types (its prompt's `type:` values) and the kind of note each makes.
# `user` memories describe how one person works: a lesson for whoever works with them.
# `reference` memories say where something is kept: a fact the team agreed on, a decision.
CLAUDE_KINDS = {
    "feedback": "lesson",
    "project": "decision",
    "user": "lesson",
    "reference": "decision",
}
UNTYPED_KIND = "lesson"  # a memory that says nothing of its type: something learned

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*?))?[ \t]*$")
_NESTED = re.compile(r"^[ \t]+([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(.*?)[ \t]*$")
_LINK_BULLET = re.compile(r"^\s*[-*]\s+\[[^\]]*\]\(([^)\s]+)\)")
_BULLET = re.compile(r"^\s*[-*]\s+(.+?)\s*$")
_HEADING_LIKE = re.compile(r"^#+(?:[ \t]|$)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_APPLIES_CWD = re.compile(r"^applies_to:\s*cwd=([^;\s]+)", re.MULTILINE)
_SURROGATE = re.compile("[\ud800-\udfff]")
_AD_HOC_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-")
GEMINI_SECTION = "## Gemini Added Memories"


class HostMemory(NamedTuple):
    """One memory a host keeps, as a candidate note."""

    host: str  # claude-code, codex, gemini, serena, vscode
    source: str  # the file it came from, as shown (`~` for the home folder)
    title: str
    kind: str  # decision, lesson or pattern
    body: str  # the note's text, without the source line
    date: str  # YYYY-MM-DD the file was last changed

    def text(self) -> str:
        """The note's text: its body, then the source on a line of its own."""
        line = f"- **Imported**: from {self.host}, {self.source}, {self.date}"
        return f"{self.body}\n{line}" if self.body else line


def _unquoted(value: str) -> str | None:
    """A scalar's value, or None when it is YAML beyond the subset. A double-quoted one may
    hold the escapes JSON shares with YAML (Claude Code 2.1.197 writes a description with a
    `"` or a `: ` in it as `"... \\"latest\\" ..."`); a single-quoted one, `''` for `'`."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            unquoted = json.loads(value)
        except ValueError:
            return None  # an escape YAML has and JSON has not (`\\x41`, `\\e`...)
        if not isinstance(unquoted, str) or _SURROGATE.search(unquoted):
            return None  # a lone surrogate (`\\ud800`) is no text a note can hold
        return unquoted
    if len(value) >= 2 and value[0] == value[-1] == "'":
        inner = value[1:-1]
        return inner.replace("''", "'") if "'" not in inner.replace("''", "") else None
    if value[:1] in ("[", "{", "|", ">", "&", "*", "!", '"', "'"):
        return None  # YAML beyond the subset: flow collections, block scalars, anchors, tags
    return value


def front_matter(text: str) -> tuple[dict[str, str], str] | str:
    """(fields, body) of a text that may open with `---` front matter; a str says why the
    front matter is not the subset mem reads. Nested keys are named `parent.key`."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    try:
        end = next(n for n in range(1, len(lines)) if lines[n].rstrip() == "---")
    except StopIteration:
        return "its front matter has no closing `---`"
    fields: dict[str, str] = {}
    parent: str | None = None
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        nested = _NESTED.match(line)
        if nested and parent is not None:
            value = _unquoted(nested.group(2))
            if value is None:
                return f"front matter line {number} is not a plain `key: value`"
            fields[f"{parent}.{nested.group(1)}"] = value
            continue
        match = _KEY.match(line)
        if not match:
            return f"front matter line {number} is not a plain `key: value`"
        key, raw = match.group(1), match.group(2)
        if raw is None or raw == "":
            parent = key  # `metadata:` opens one level of `key: value` lines
            continue
        value = _unquoted(raw)
        if value is None:
            return f"front matter line {number} is not a plain `key: value`"
        parent = None
        fields[key] = value
    return fields, "\n".join(lines[end + 1 :])


def note_body(text: str) -> str:
    """A memory's Markdown as a note's text: its headings (any line `mem note add` would
    take for one: `#`s then a space, a tab or nothing) become bold lines, blank runs
    shrink to one, ends trimmed."""
    out: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _HEADING_LIKE.match(line):
            words = line.strip(" \t#")
            line = f"**{words}**" if words else ""
        if line.strip() or (out and out[-1]):
            out.append(line.rstrip())
    return "\n".join(out).strip("\n")


def title_of(*choices: str) -> str:
    """The first non-empty choice as one line of at most MAX_TITLE characters."""
    for choice in choices:
        line = " ".join(js.trim(choice).split())
        if line:
            if len(line) <= MAX_TITLE:
                return line
            return line[: MAX_TITLE - 1].rsplit(" ", 1)[0] + "…"
    return ""


def _first_heading(text: str) -> tuple[str, str]:
    """(the first heading's title, the text without it), or ("", text)."""
    lines = text.strip("\n").split("\n")
    heading = _HEADING.match(lines[0]) if lines else None
    if heading:
        return heading.group(2), "\n".join(lines[1:])
    return "", text


def _stem(source: str) -> str:
    return source.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " ").replace("-", " ")


def one_file(
    host: str, text: str, source: str, date: str, kind: str = UNTYPED_KIND
) -> HostMemory | str:
    """A whole file as one memory (a Claude Code topic file, a Serena or VS Code memory, a
    Gemini private note): front matter (the subset) read for name, description and type."""
    parsed = front_matter(text)
    if isinstance(parsed, str):
        return parsed
    fields, rest = parsed
    heading, rest = _first_heading(rest)
    kind_name = fields.get("type") or fields.get("metadata.type") or ""
    if kind_name:
        if kind_name not in CLAUDE_KINDS:
            return f"its type {kind_name!r} is none of {', '.join(CLAUDE_KINDS)}"
        kind = CLAUDE_KINDS[kind_name]
    description = fields.get("description", "")
    title = title_of(heading, description, fields.get("name", ""), _stem(source))
    body = note_body(rest)
    shown = note_body(description)  # a description may read as a heading too ("#\t")
    if shown and description != title and shown not in body:
        body = f"{shown}\n\n{body}" if body else shown
    return HostMemory(host, source, title, kind, body, date)


def index_lines(host: str, text: str, source: str, date: str) -> tuple[list[HostMemory], list[str]]:
    """A MEMORY.md index: each bullet that is not a link to a file is a brief memory of its
    own (Gemini writes brief facts there); the linked files are read as files. Returns the
    memories and the files linked."""
    found: list[HostMemory] = []
    linked: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        link = _LINK_BULLET.match(line)
        if link:
            linked.append(link.group(1))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            fact = bullet.group(1)
            title = title_of(fact)
            body = "" if title == fact else fact
            found.append(HostMemory(host, f"{source}:{number}", title, UNTYPED_KIND, body, date))
    return found, linked


def gemini_added(text: str, source: str, date: str) -> list[HostMemory]:
    """The bullets of a GEMINI.md's `## Gemini Added Memories` section (older Gemini CLI's
    save_memory tool wrote there); the rest of the file is hand-written instructions."""
    lines = text.split("\n")
    found: list[HostMemory] = []
    inside = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            inside = line.rstrip() == GEMINI_SECTION
            continue
        bullet = _BULLET.match(line) if inside else None
        if bullet:
            fact = bullet.group(1)
            title = title_of(fact)
            body = "" if title == fact else fact
            found.append(
                HostMemory("gemini", f"{source}:{number}", title, UNTYPED_KIND, body, date)
            )
    return found


def _within(path: str, root: str) -> bool:
    path, root = path.rstrip("/"), root.rstrip("/")
    return path == root or path.startswith(root + "/")


def codex_task_groups(text: str, source: str, date: str, root: str) -> tuple[list[HostMemory], int]:
    """Codex's MEMORY.md: one memory per `# Task Group:` block whose `applies_to: cwd=` is
    this project (or a folder in it); blocks of other folders are left, and counted."""
    blocks: list[tuple[int, str, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("# Task Group:"):
            blocks.append((number, line.removeprefix("# Task Group:").strip(), []))
        elif blocks:
            blocks[-1][2].append(line)
    found: list[HostMemory] = []
    left = 0
    for number, title, lines in blocks:
        block = "\n".join(lines)
        cwd = _APPLIES_CWD.search(block)
        if cwd is None or not _within(cwd.group(1), root):
            left += 1
            continue
        body = note_body(block)
        found.append(
            HostMemory("codex", f"{source}:{number}", title_of(title), "lesson", body, date)
        )
    return found, left


def codex_skill(text: str, source: str, date: str) -> HostMemory | str:
    """A skill Codex wrote (`skills/<name>/SKILL.md`): a way of doing something, a pattern."""
    parsed = front_matter(text)
    if isinstance(parsed, str):
        return parsed
    fields, rest = parsed
    heading, rest = _first_heading(rest)
    folder = source.rsplit("/", 2)[-2] if source.count("/") >= 2 else ""
    title = title_of(fields.get("name", ""), heading, folder.replace("-", " "))
    body = note_body(rest)
    description = note_body(fields.get("description", ""))
    if description and description not in body:
        body = f"{description}\n\n{body}" if body else description
    return HostMemory("codex", source, title, "pattern", body, date)


def codex_ad_hoc_note(text: str, source: str, date: str) -> HostMemory:
    """A note Codex 0.171 writes when the user asks it to remember, forget or correct
    something (`memories_v2/extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS-slug>.md`, to be
    consolidated later): its first heading, else its first line, is the title."""
    heading, rest = _first_heading(text)
    body = note_body(rest)
    title = title_of(heading)
    if not title:
        first, _, after = body.partition("\n")
        title = title_of(first)
        if title == first:
            body = after.strip("\n")
    if not title:
        name = source.rsplit("/", 1)[-1].removesuffix(".md")
        title = title_of(_AD_HOC_STAMP.sub("", name).replace("-", " "))
    return HostMemory("codex", source, title, UNTYPED_KIND, body, date)


def claude_slug(path: str) -> str:
    """Claude Code's folder name for a project (its `$E`): every character that is not an
    ASCII letter or digit becomes `-`; past 200, cut and suffixed with a hash of the path."""
    # JavaScript replaces each UTF-16 code unit: a character past U+FFFF is two dashes.
    slug = re.sub(r"[^a-zA-Z0-9]", lambda m: "--" if ord(m.group()) > 0xFFFF else "-", path)
    if len(slug) <= 200:
        return slug
    value = 0
    units = path.encode("utf-16-le", "surrogatepass")
    for at in range(0, len(units), 2):  # JavaScript's charCodeAt: UTF-16 code units
        code = units[at] | units[at + 1] << 8
        value = ((value << 5) - value + code) & 0xFFFFFFFF
    if value >= 1 << 31:
        value -= 1 << 32
    return f"{slug[:200]}-{_base36(abs(value))}"


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if not number:
            return out


def normalized(text: str) -> str:
    """Text compared for exact duplicates: case and spacing set aside."""
    return " ".join(text.lower().split())
