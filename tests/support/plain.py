"""A plain, obviously-correct recall over the canonical files: the oracle for the index."""

from __future__ import annotations

import os
from typing import Any

from mem.core.javascript import js
from mem.core.ranking import score
from mem.core.text import parse, tokens
from support.corpora import JOURNAL, NOTE_DIRS, NOTE_FILES


def plain_recall(root: str, query: str, now: str, limit: int = 8) -> list[dict[str, Any]]:
    terms = parse.query_tokens(query)
    now_ms = js.parse_date(now).ms  # type: ignore[union-attr]
    found: list[tuple[float, int, dict[str, Any]]] = []

    def lexical(text: str) -> float:
        tokens = parse.tokenize(text)
        return score.lexical([tokens.count(term) for term in terms], len(tokens))

    journal = os.path.join(root, JOURNAL)
    if os.path.exists(journal):
        with open(journal, "rb") as handle:
            for event in parse.parse_journal(handle.read()):
                value = lexical(event.text)
                if value > 0:
                    moment = event.timestamp()
                    value = score.decayed(value, None if moment is None else moment.ms, now_ms)
                    entry = {"score": value, "kind": "event", "ref": event.ref, "text": event.text}
                    found.append((value, len(found), entry))
    seen: set[str] = set()
    for directory in NOTE_DIRS:
        for name in NOTE_FILES:
            path = os.path.join(root, directory, name)
            if not os.path.isfile(path) or os.path.realpath(path) in seen:
                continue
            seen.add(os.path.realpath(path))
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", errors="replace")
            for note in parse.split_sections(text):
                value = lexical(note.text)
                if value > 0:
                    entry = {
                        "score": value,
                        "kind": "note",
                        "sourceFile": f"{directory}/{name}",
                        "ref": note.heading,
                        "text": note.display,
                    }
                    found.append((value, len(found), entry))
    found.sort(key=lambda item: (-item[0], item[1]))
    return [entry for _, _, entry in found[:limit]]


def comparable(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("score", "kind", "sourceFile", "ref", "text")
    return [{key: entry.get(key) for key in keys} for entry in entries]


def plain_bm25_counts(text: str, heading: str | None) -> dict[str, int]:
    """tokens.counts as its docstring says it, chunk by chunk (no shortcut, no cache): a
    note's heading words count HEADING_WEIGHT times."""
    found: dict[str, int] = {}
    for weight, part in ((1, text), (tokens.HEADING_WEIGHT - 1, heading or "")):
        for chunk in tokens.chunks(part):
            for term in tokens.general_terms(chunk):
                found[term] = found.get(term, 0) + weight
    return found
