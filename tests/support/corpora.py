"""Corpora for tests: where the canonical files live, random ones (hypothesis strategies of the
shapes that stress recall's bounds), and writers of a corpus to a project's folder."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

from mem.core.javascript import js

NOTE_DIRS = (".bmad/memory", ".agents/memory")
NOTE_FILES = ("decisions.md", "lessons.md", "patterns.md")
NOTE_PATHS = [f"{directory}/{name}" for directory in NOTE_DIRS for name in NOTE_FILES]
JOURNAL = ".bmad/memory/journal.ndjson"
NOW = "2026-10-18T09:30:00.000Z"
NOW_MS = 1_792_315_800_000.0


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


def write_files(root: Path, files: dict[str, str] | dict[str, bytes]) -> None:
    """Each file's text (UTF-8) or bytes at its path below root, folders made as needed."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


# Random corpora for the top-k: many exact ties, one very common word, lengths on both sides
# of the exact length classes (128 tokens), events spread over many 4-day buckets (past and
# future, dated and not), queries of stop words only and repeated terms.
COMMON = ["the", "the", "the", "to", "postgres", "cache"]
RARE = ["pgbouncer", "café", "2026-06-02", "x_y", "z9", "a"]

word = st.sampled_from(COMMON + RARE)


def many_words(vocabulary: list[str], low: int, high: int) -> st.SearchStrategy[str]:
    """A text of low to high words, each drawn at random from `vocabulary`: one seed drawn, not
    one choice a word. A long text drawn word by word costs hypothesis about a thousand times
    what the index and the oracle cost for it (on test_pruning, 143 s of 151 s went to drawing
    and mutating corpora); its words one by one are not what the property is about, so losing
    shrinking word by word loses nothing a failure needs (the seed and the length still shrink)."""
    return st.builds(
        lambda size, seed: " ".join(random.Random(seed).choices(vocabulary, k=size)),
        st.integers(min_value=low, max_value=high),
        st.integers(min_value=0, max_value=2**32 - 1),
    )


def many_sections(vocabulary: list[str], low: int, high: int) -> st.SearchStrategy[str]:
    """low to high sections, `### HEADING\nBODY\n`, a heading of 1 to 8 words and a body of
    0 to 8, each word drawn at random from `vocabulary`: one seed drawn, as many_words."""

    def sections(count: int, seed: int) -> str:
        rng = random.Random(seed)
        return "".join(
            f"### {' '.join(rng.choices(vocabulary, k=rng.randint(1, 8)))}\n"
            f"{' '.join(rng.choices(vocabulary, k=rng.randint(0, 8)))}\n"
            for _ in range(count)
        )

    return st.builds(
        sections,
        st.integers(min_value=low, max_value=high),
        st.integers(min_value=0, max_value=2**32 - 1),
    )


# Short texts tie often, word by word; long ones reach past the exact length classes (128 tokens).
tie_text = st.one_of(st.lists(word, max_size=6).map(" ".join), many_words(COMMON + RARE, 100, 300))
tie_section = st.tuples(tie_text, tie_text).map(lambda parts: f"### {parts[0]}\n{parts[1]}\n")
tie_notes = st.lists(tie_section, max_size=12).map(lambda sections: "# Notes\n" + "".join(sections))
# Days from long ago to the future, so decay bounds cross many buckets; or no usable ts.
tie_stamp = st.one_of(
    st.integers(min_value=-400, max_value=30).map(
        lambda days: js.iso_from_ms(NOW_MS + days * 86_400_000 + 3_600_000 * (days % 5))
    ),
    st.sampled_from([None, "not a date", 1_790_000_000_000]),
)
tie_event = st.builds(
    lambda ts, agent, task: json.dumps({"ts": ts, "agent": agent, "task": task}) + "\n",
    tie_stamp,
    st.sampled_from(["forge", "the"]),
    tie_text,
)
tie_corpus = st.fixed_dictionaries(
    {path: tie_notes for path in NOTE_PATHS[:3]},
    optional={JOURNAL: st.lists(tie_event, max_size=25).map("".join), NOTE_PATHS[4]: tie_notes},
)
tie_query = st.one_of(
    st.lists(word, min_size=1, max_size=6).map(" ".join),
    st.just("the the the"),
    st.just("the to"),
    st.just("The THE tHe"),
)
limit = st.one_of(st.sampled_from([1, 2, 3, 8, 1000]), st.integers(min_value=1, max_value=60))


# Headings of write_dated_notes: few dates, so that many notes share one within a file and
# across files; headings that only look dated, and undated ones.
DATED_HEADINGS = (
    "2026-10-0{day} — {words}",
    "2026-09-3{last} — {words}",
    "Undated {words}",
    "2026-1-0{day} not a date: {words}",
    "20261017 {words}",
)
SUBJECT_WORDS = (
    "pool sizes retry budget webhook queue postgres replica cache tokens session cookie"
    " deploy canary rollback schema migration index timeout backoff worker lock"
).split()


def write_dated_notes(root: Path, notes: int, seed: int = 7) -> Path:
    """`notes` notes over the six memory files, of a few subject words each (so that the
    bm25 ranking and the amendments find something), in headings of DATED_HEADINGS."""
    rng = random.Random(seed)
    for relative in NOTE_PATHS:
        sections = []
        for n in range(notes // len(NOTE_PATHS)):
            words = " ".join(rng.sample(SUBJECT_WORDS, 3))
            heading = rng.choice(DATED_HEADINGS).format(
                day=rng.randint(1, 3), last=rng.randint(0, 1), words=f"{words} {n}"
            )
            body = " ".join(rng.choices(SUBJECT_WORDS, k=12))
            sections.append(f"### {heading}\n- **Decision**: {body}.\n")
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Notes\n\n" + "\n".join(sections), encoding="utf-8")
    return root
