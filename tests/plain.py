"""A plain, obviously-correct recall over the canonical files: the oracle for the index."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from mem.core import js, parse, score

NOTE_DIRS = (".bmad/memory", ".agents/memory")
NOTE_FILES = ("decisions.md", "lessons.md", "patterns.md")
NOTE_PATHS = [f"{directory}/{name}" for directory in NOTE_DIRS for name in NOTE_FILES]
JOURNAL = ".bmad/memory/journal.ndjson"


def events(words: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Journal lines of a random agent, day of October 2026 and task (of `words`)."""
    return st.builds(
        lambda agent, task, day: (
            f'{{"ts":"2026-10-{day:02d}T00:00:00.000Z","agent":"{agent}","task":"{task}"}}\n'
        ),
        st.sampled_from(["forge", "sentinel"]),
        words,
        st.integers(min_value=1, max_value=28),
    )


def write_corpus(
    root: Path,
    rng: random.Random,
    text: Callable[[int, int], str],
    *,
    sections: Callable[[], int],
    heading: tuple[int, int],
    body: tuple[int, int],
    events: int,
    days: tuple[int, int],
    task: tuple[int, int],
    now_ms: float,
) -> None:
    """Decisions and lessons in both memory folders, and a journal of events dated `days`
    before now_ms (a fifth of them without a zone: read in the reader's local time).

    `text(low, high)` makes a text of low to high words: the caller's word mix.
    """
    for directory in NOTE_DIRS:
        for name in ("decisions.md", "lessons.md"):
            notes = "".join(f"### {text(*heading)}\n{text(*body)}\n" for _ in range(sections()))
            path = root / directory / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("# Notes\n" + notes, encoding="utf-8")
    lines = []
    for _ in range(events):
        moment = now_ms - rng.randint(*days) * 86_400_000 - rng.randint(0, 86_400_000)
        stamp = js.iso_from_ms(moment)
        if rng.random() < 0.2:
            stamp = stamp[:-1]
        lines.append(json.dumps({"ts": stamp, "agent": "forge", "task": text(*task)}) + "\n")
    (root / JOURNAL).write_text("".join(lines), encoding="utf-8")


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
