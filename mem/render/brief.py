"""The brief within a budget: the longest prefix of its entries that fits, as text or JSON. Pure.

The budget counts the characters of the whole output. An entry is shown whole or not at
all, and the first entry that does not fit ends the brief, so a larger budget holds every
entry of a smaller one. Sizes are reckoned with the widest counts the frame can show, so
the prefix chosen always fits; the output ends by saying how many entries were left out
and how to get them.
"""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js
from mem.core.rules import budgets

MORE = (
    "`mem show ID` prints one memory whole, `mem recall WORDS` searches them all,"
    " `mem context` lists every memory."
)
TEXT_TITLES = {
    "brief": "Project memory (mem), most relevant to the current work first:",
    "prompt": "Project memory (mem) that matches this prompt:",
    "edit": "Project memory (mem) about the file being edited:",
}
# Before every edit the agent needs the ids to ask for more, not the other commands.
TEXT_MORE = {"edit": "`mem show ID` prints one memory whole."}
# Before an edit: a heading at most this long, and no excerpt shorter (a few words say
# less than the heading).
EDIT_HEADING_CHARS = 120
SHORTEST_EXCERPT = 40


def _entry_text(entry: dict[str, Any], first_memory: bool) -> str:
    """An entry's lines, with the blank line before it (and the heading of its section)."""
    if entry["kind"] == "context":
        return f"\n## {entry['file']} (head)\n{entry['text']}\n"
    if entry["kind"] == "handoff":
        return f"\n## Latest handoff, {entry['file']} (open points)\n{entry['text']}\n"
    lines = ["\n## Memories\n"] if first_memory else []
    if entry["kind"] == "commit":  # `mem show SHA` prints it whole
        lines.append(f"- commit {entry['id']} {entry['date']}\n  {entry['heading']}")
    else:
        lines.append(f"- {entry['kind']} {entry['id']} ({entry['file']})\n  {entry['heading']}")
    if entry["summary"]:
        lines.append(f": {entry['summary']}")
    lines.append("\n")
    lines.append(amendment_text(entry, "  "))
    return "".join(lines)


def amendment_text(entry: dict[str, Any], indent: str) -> str:
    """The lines that say a note likely amends, or is amended by, another (a reader puts the
    newer first); "" for a note of no likely pair."""
    said = ""
    if "amends" in entry:
        said += f"{indent}Likely amends {entry['amends']}, an older note on the same subject.\n"
    if "amendedBy" in entry:
        said += (
            f"{indent}Likely amended by the newer {entry['amendedBy']}, shown first: follow it."
            f" If it replaces this note: {entry['supersede']}\n"
        )
    return said


def _text(kind: str, shown: list[str], total: int, budget: int) -> str:
    count = len(shown)
    head = f"{TEXT_TITLES[kind]} {count} of {total} entries (budget {budget} characters).\n"
    left = total - count
    more = TEXT_MORE.get(kind, MORE)
    tail = f"\n{left} {'entry' if left == 1 else 'entries'} left out. {more}\n"
    return head + "".join(shown) + tail


def _json(kind: str, shown: list[dict[str, Any]], total: int, budget: int) -> str:
    value = {
        "brief": kind,
        "budget": budget,
        "total": total,
        "shown": len(shown),
        "omitted": total - len(shown),
        "entries": shown,
        "more": MORE,
    }
    return js.stringify_pretty(value) + "\n"


def fit(
    entries: list[dict[str, Any]], total: int, budget: int, *, as_json: bool, kind: str = "brief"
) -> tuple[str, int]:
    """(output, number of entries shown): the longest prefix of entries within budget."""
    if as_json:
        # The frame with the widest counts; each entry adds its line and a separator.
        frame = len(_json(kind, [], total, budget)) - len("[]") + len("[\n\n  ]")
        frame += len(str(total)) - 1  # "shown": 0 may become as wide as the total
        sizes = [len(js.stringify_pretty(entry, "    ")) + len(",\n    ") for entry in entries]
    else:
        # "0 of" may become as wide as the total
        frame = len(_text(kind, [], total, budget)) + len(str(total)) - 1
        texts = []
        first_memory = True
        for entry in entries:
            is_memory = entry["kind"] not in ("context", "handoff")
            texts.append(_entry_text(entry, is_memory and first_memory))
            first_memory = first_memory and not is_memory
        sizes = [len(text) for text in texts]
    used = frame
    count = 0
    for size in sizes:
        if used + size > budget:
            break
        used += size
        count += 1
    if as_json:
        output = _json(kind, entries[:count], total, budget)
    else:
        output = _text(kind, texts[:count], total, budget)
    assert len(output) <= budget, (len(output), budget)
    return output, count


def fit_edit(entries: list[dict[str, Any]], total: int, budget: int) -> tuple[str, int]:
    """(output, number of entries shown): what the pre-edit hook says, within budget.

    Every note that governs the file counts, so first as many as fit by their kind, id and
    heading (cut at EDIT_HEADING_CHARS), best first; then the room left goes to their
    excerpts, best first, each as long as it still fits (none under SHORTEST_EXCERPT)."""
    frame = len(_text("edit", [], total, budget)) + len(str(total)) - 1
    bare = [_edit_entry(entry, "", position == 0) for position, entry in enumerate(entries)]
    room = budget - frame
    count = 0
    for text in bare:
        if len(text) > room:
            break
        room -= len(text)
        count += 1
    texts = bare[:count]
    for position, entry in enumerate(entries[:count]):
        excerpt = budgets.cut_at_word(entry["summary"], room - len(": "))
        if len(excerpt) >= min(SHORTEST_EXCERPT, len(entry["summary"])) and excerpt:
            texts[position] = _edit_entry(entry, excerpt, position == 0)
            room -= len(texts[position]) - len(bare[position])
    output = _text("edit", texts, total, budget)
    assert len(output) <= budget, (len(output), budget)
    return output, count


def _edit_entry(entry: dict[str, Any], excerpt: str, first: bool) -> str:
    """A memory before an edit: its id is all `mem show` needs, so no file."""
    heading = budgets.cut_at_word(entry["heading"], EDIT_HEADING_CHARS)
    lines = ["\n## Memories\n"] if first else []
    dated = f" {entry['date']}" if entry["kind"] == "commit" else ""
    lines.append(f"- {entry['kind']} {entry['id']}{dated}\n  {heading}")
    if excerpt:
        lines.append(f": {excerpt}")
    lines.append("\n")
    lines.append(amendment_text(entry, "  "))
    return "".join(lines)
