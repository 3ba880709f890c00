#!/usr/bin/env python3
"""Pre-edit hook quality on real notes: does `mem hook pre-edit` inject the notes that govern a
file about to change, and nothing for a file no note concerns?

    python bench/pre_edit.py [--mem PATH] [--misses]

bench/pre_edit/ripgrep.json (see bench/pre_edit/SOURCES.md and build.py) holds 1,200 commit
messages of BurntSushi/ripgrep as notes, evidence records for 40 of them, and an edit of
every file of the tree with its labels. The project is written to a temporary git checkout
(each edited file holding its edit's text), the evidence recorded with `mem evidence add`,
and each edit sent to `mem hook pre-edit --host claude-code` as Claude Code's Edit, in a
session of its own. Printed: the hit rate (of the (edit, governing note) pairs, the share
whose note was injected; goal >= 0.9), the same leaving out the pairs crowded out (the
answer full of other notes that govern the file: six at most, within 1,000 characters),
the clean rate (of
the edits no note governs, the share that injected nothing; goal >= 0.9), and the share
of injected notes that govern.
A report, not a test: it exits 0. Stdlib only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "pre_edit" / "ripgrep.json"
DECISIONS = ".agents/memory/decisions.md"
MEM_ID = re.compile(r"\bmem_[0-9a-f]{20}\b")


def memory_id(path: str, heading: str) -> str:
    """mem.core.rules.memory_ids.memory_id, restated so that the bench imports nothing of mem."""
    return "mem_" + hashlib.sha256(f"{path}\0{heading}".encode()).hexdigest()[:20]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def build_project(root: Path, data: dict) -> None:
    (root / ".agents/memory").mkdir(parents=True)
    notes = "".join(f"\n### {n['heading']}\n{n['body']}\n" for n in data["notes"])
    (root / DECISIONS).write_text("# Decisions\n" + notes, encoding="utf-8")
    for edit in data["edits"]:
        path = root / edit["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(edit["new_text"] + "\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", data["repository"])
    git(root, "add", "-A")
    git(root, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mem", default=str(Path(sys.executable).with_name("mem")))
    parser.add_argument("--misses", action="store_true", help="list every miss and false hit")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    ids = [memory_id(DECISIONS, note["heading"]) for note in data["notes"]]
    work = Path(tempfile.mkdtemp(prefix="mem-pre-edit-"))
    env = {
        **os.environ,
        "MEM_CACHE_DIR": str(work / "cache"),
        "MEM_STATE_DIR": str(work / "state"),
        "MEM_NOW": "2026-10-18T09:30:00.000Z",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    try:
        root = work / "ripgrep"
        build_project(root, data)
        for record in data["evidence"]:
            subprocess.run(
                [args.mem, "evidence", "add", ids[record["note"]], "--source", record["path"]],
                cwd=root,
                env=env,
                check=True,
                capture_output=True,
            )
        pairs = hits = crowded = negatives = clean = injected = governing = 0
        misses: list[str] = []
        for number, edit in enumerate(data["edits"]):
            payload = {
                "session_id": f"pre-edit-{number}",
                "cwd": str(root),
                "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_input": {
                    "file_path": str(root / edit["path"]),
                    "old_string": "",
                    "new_string": edit["new_text"],
                },
            }
            done = subprocess.run(
                [args.mem, "hook", "pre-edit", "--host", "claude-code"],
                input=json.dumps(payload),
                text=True,
                env=env,
                capture_output=True,
                check=False,
            )
            shown = set(MEM_ID.findall(done.stdout))
            wanted = {ids[note] for note in edit["governed_by"]}
            injected += len(shown)
            governing += len(shown & wanted)
            if wanted:
                pairs += len(wanted)
                hits += len(shown & wanted)
                # Crowded out: the budget was full of other notes that govern the file.
                full = bool(shown) and shown <= wanted
                for note in edit["governed_by"]:
                    if ids[note] not in shown:
                        crowded += full
                        why = "crowded" if full else "miss"
                        misses.append(f"{why:<7} {edit['path']}: {data['notes'][note]['heading']}")
            else:
                negatives += 1
                clean += not shown
            for note, memory in enumerate(ids):
                if memory in shown - wanted:
                    misses.append(f"false   {edit['path']}: {data['notes'][note]['heading']}")
        print(f"pre-edit on {len(data['notes'])} ripgrep commit notes, {len(data['edits'])} edits")
        print(f"  hit rate:   {hits / pairs:.3f} ({hits} of {pairs} (edit, governing note) pairs)")
        print(
            f"  hit rate within the budget: {hits / (pairs - crowded):.3f} ({crowded} pairs"
            " crowded out by other notes that govern the file: six at most, 1,000 characters)"
        )
        print(
            f"  clean rate: {clean / negatives:.3f} ({clean} of {negatives} edits no note governs)"
        )
        print(
            f"  precision:  {governing / max(injected, 1):.3f} ({governing} of {injected} injected)"
        )
        if args.misses:
            print("\n".join(sorted(misses)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
