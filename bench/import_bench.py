"""Issue 36: `mem import` of 10,000 memories and `mem inbox accept --all`, beside writing as
many notes with `mem note add`.

A temporary home holds 10,000 Claude Code auto-memory files (random words from a fixed
vocabulary, the four types, seed 42) for a fresh copy of the demo project. Timed, each in a
process of its own: `mem import claude-code` (read, refuse secrets, find duplicates, fill the
inbox), `mem inbox accept --all` (write every note, classic layout), and `mem note add` for a
sample of notes (each a process, as an agent calls it) into the demo project and into the
filled one, reported per note and as the time of writing 10,000 that way.

    .venv/bin/python bench/import_bench.py [--memories 10000] [--sample 50]
    .venv/bin/python bench/import_bench.py --likeness   (make bench-quality)

--likeness measures how `mem import` tells a memory that amends a project note from one
that amends none, on the real decision records of bench/amendments/ (SOURCES.md there): in
each project, the newer record of each of the 20 pairs its authors marked as superseding or
amending an earlier one is imported (it should amend that older note); every 7th other
record is taken out of the notes and imported (it should amend nothing: its authors marked
no amendment, though a sibling decision may share its subject); every 7th remaining record
is imported shortened to its heading and its first two sentences (a host's restatement of a
note: it should amend that note) and again in other case and spacing (an exact duplicate:
skipped, whichever measure). Each measure: the note it scores highest, when at least its
threshold. Printed: amendments found (right note), wrong notes offered, false offers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mem.core.ranking import amendments  # noqa: E402
from mem.core.rules import host_memories  # noqa: E402
from mem.core.rules.host_memories import claude_slug  # noqa: E402
from mem.domain import inbox  # noqa: E402

TYPES = ("feedback", "project", "reference", "user")


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(size)}
    return sorted(words)


def memory_text(rng: random.Random, words: list[str], number: int) -> str:
    title = " ".join(rng.choice(words) for _ in range(rng.randint(4, 8)))
    body = " ".join(rng.choice(words) for _ in range(rng.randint(10, 30)))
    return (
        f"---\nname: memory-{number}\ndescription: {title.capitalize()} {number}\n"
        f"metadata:\n  type: {TYPES[number % 4]}\n---\n\n{body}.\n\n**Why:** {rng.choice(words)}.\n"
    )


def mem_command() -> list[str]:
    script = Path(sys.executable).parent / "mem"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mem"]


def timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stdout}{done.stderr}")
    return elapsed


AMENDMENTS_SET = REPO / "bench" / "amendments"
EVERY = 7
Record = tuple[str, str]  # (heading, text)


def records(project: str) -> list[Record]:
    text = (AMENDMENTS_SET / project / ".agents/memory/decisions.md").read_text("utf-8")
    found = []
    for section in text.split("\n### ")[1:]:
        heading, _, body = section.partition("\n")
        found.append((heading.strip(), body.strip()))
    return found


def labelled() -> list[tuple[str, list[Record], list[tuple[str, Record, str | None]]]]:
    """Per project: its notes, and the memories imported into it, each with its label
    (near, unrelated, exact) and the heading of the note it should amend (or None)."""
    pairs = json.loads((AMENDMENTS_SET / "pairs.json").read_text("utf-8"))
    cases = []
    for project in sorted({pair["project"] for pair in pairs}):
        everything = records(project)
        newer = {pair["newer"]: pair["older"] for pair in pairs if pair["project"] == project}
        in_pairs = set(newer) | set(newer.values())
        # A title the set repeats (`X` and `X (2)`) is one subject, marked or not.
        titles = [record[0].removesuffix(" (2)") for record in everything]
        others = [
            record
            for record in everything
            if record[0] not in in_pairs and titles.count(record[0].removesuffix(" (2)")) == 1
        ]
        unrelated = others[::EVERY]
        notes = [r for r in everything if r[0] not in newer and r not in unrelated]
        imported: list[tuple[str, Record, str | None]] = []
        imported += [("amends", r, newer[r[0]]) for r in everything if r[0] in newer]
        imported += [("unrelated", r, None) for r in unrelated]
        for heading, text in [r for r in notes if r[0] not in in_pairs][3::EVERY]:
            sentences = re.split(r"(?<=[.!?])\s+", text)
            imported.append(("restated", (heading, " ".join(sentences[:2])), heading))
            spaced = ("  " + heading.upper(), text.replace(" ", "  ").upper())
            imported.append(("exact", spaced, heading))
        cases.append((project, notes, imported))
    return cases


def _terms(text: str) -> frozenset[str]:
    return frozenset(word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) > 2)


def jaccard_choice(notes: list[Record], memory: Record) -> str | None:
    """The measure mem import shipped with: the share of terms in common, at least 0.5."""
    words = _terms(f"{memory[0]}\n{memory[1]}")
    best: tuple[float, str] | None = None
    for heading, text in notes:
        other = _terms(f"{heading}\n{text}")
        score = len(words & other) / len(words | other) if words and other else 0.0
        if score >= 0.5 and (best is None or score > best[0]):
            best = (score, heading)
    return best[1] if best else None


def likeness_check() -> None:
    labels = ("amends", "restated", "unrelated")
    measures = (
        "share of terms >= 0.5 (before)",
        f"amendments' subject >= {inbox.NEAR} (now)",
        f"amendments' subject >= {amendments.SAME_SUBJECT}",
    )
    # measure -> label -> [the right note, a wrong note, a note where none is right]
    tally = {measure: {label: [0, 0, 0] for label in labels} for measure in measures}
    total = dict.fromkeys(labels, 0)
    exact = [0, 0]
    for _project, notes, imported in labelled():
        exact_keys = {(host_memories.normalized(h), host_memories.normalized(t)) for h, t in notes}
        near = inbox.NearNotes([*notes, *(memory for label, memory, _ in imported)])
        for heading, text in notes:
            near.add(near.subject(heading, text), {"heading": heading})
        for label, memory, expected in imported:
            if label == "exact":
                exact[0] += 1
                key = (host_memories.normalized(memory[0]), host_memories.normalized(memory[1]))
                exact[1] += key in exact_keys
                continue
            total[label] += 1
            subject = near.subject(*memory)
            for measure in measures:
                if measure.startswith("share"):
                    chosen = jaccard_choice(notes, memory)
                else:
                    at_least = inbox.NEAR if measure.endswith("(now)") else amendments.SAME_SUBJECT
                    chosen = (near.nearest(subject, at_least) or {}).get("heading")
                if chosen is not None:
                    tally[measure][label][0 if chosen == expected else 1 if expected else 2] += 1
    print("mem import likeness (bench/amendments: 10 projects of real decision records)")
    print(f"  exact duplicates recognised: {exact[1]}/{exact[0]}")
    for measure in measures:
        amends, restated, unrelated = (tally[measure][label] for label in labels)
        print(
            f"  {measure:32} marked amendments {amends[0]}/{total['amends']}"
            f" (wrong note {amends[1]}), restated notes {restated[0]}/{total['restated']}"
            f" (wrong note {restated[1]}), false offers {unrelated[2]}/{total['unrelated']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--likeness", action="store_true")
    args = parser.parse_args()
    if args.likeness:
        likeness_check()
        return
    rng = random.Random(42)
    words = vocabulary(rng)
    with tempfile.TemporaryDirectory(prefix="mem-import-bench-") as work:
        base = Path(work)
        env = {
            **os.environ,
            "HOME": str(base / "home"),
            "MEM_STATE_DIR": str(base / "state"),
            "MEM_CACHE_DIR": str(base / "cache"),
            "MEM_NOW": "2026-10-18T09:30:00.000Z",
        }
        env.pop("CLAUDE_CONFIG_DIR", None)
        project = base / "project"
        shutil.copytree(REPO / "fixtures" / "demo", project, symlinks=True)
        project = project.resolve()
        folder = base / "home" / ".claude" / "projects" / claude_slug(str(project)) / "memory"
        folder.mkdir(parents=True)
        for number in range(args.memories):
            text = memory_text(rng, words, number)
            (folder / f"memory_{number:05}.md").write_text(text, encoding="utf-8")
        mem = mem_command()
        imported = timed([*mem, "import", "claude-code", "--json"], env, project)
        accepted = timed([*mem, "inbox", "accept", "--all", "--json"], env, project)
        notes = sum(
            (project / ".agents" / "memory" / name).read_text(encoding="utf-8").count("\n### ")
            for name in ("decisions.md", "lessons.md", "patterns.md")
        )

        def note_add_sample(root: Path) -> float:
            samples = []
            for number in range(args.sample):
                title = f"Sample note {number} " + " ".join(rng.choice(words) for _ in range(4))
                body = " ".join(rng.choice(words) for _ in range(20))
                command = [*mem, "note", "add", "lesson", "--title", title, "--body", body]
                samples.append(timed(command, env, root))
            return sum(samples) / len(samples)

        fresh = base / "note-add"
        shutil.copytree(REPO / "fixtures" / "demo", fresh, symlinks=True)
        first = note_add_sample(fresh)  # into the demo's few notes
        last = note_add_sample(project)  # into the files accept filled
        note_add = (first + last) / 2

    n = args.memories
    print(f"mem import bench (issue 36): {n:,} Claude Code memories, load {os.getloadavg()[0]:.1f}")
    print(
        f"  mem import claude-code          {imported:8.2f} s"
        f"  ({imported / n * 1000:.2f} ms a memory)"
    )
    print(
        f"  mem inbox accept --all          {accepted:8.2f} s"
        f"  ({accepted / n * 1000:.2f} ms a note; {notes:,} notes in the files)"
    )
    print(f"  import + accept                 {imported + accepted:8.2f} s")
    print(
        f"  mem note add, one process each  {note_add * n:8.2f} s  for {n:,}"
        f" ({first * 1000:.0f} ms a note into the demo, {last * 1000:.0f} ms into the"
        f" {notes:,} notes; {args.sample} of each)"
    )


if __name__ == "__main__":
    main()
