"""Issue 36: `mem import` of 10,000 memories and `mem inbox accept --all`, beside writing as
many notes with `mem note add`.

A temporary home holds 10,000 Claude Code auto-memory files (random words from a fixed
vocabulary, the four types, seed 42) for a fresh copy of the demo project. Timed, each in a
process of its own: `mem import claude-code` (read, refuse secrets, find duplicates, fill the
inbox), `mem inbox accept --all` (write every note, classic layout), and `mem note add` for a
sample of notes (each a process, as an agent calls it) into the demo project and into the
filled one, reported per note and as the time of writing 10,000 that way.

    .venv/bin/python bench/import_bench.py [--memories 10000] [--sample 50]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mem.core.host_memories import claude_slug  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=50)
    args = parser.parse_args()
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
