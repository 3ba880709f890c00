#!/usr/bin/env python3
"""History in the hooks (issue 34): do `mem hook prompt` and `mem hook pre-edit` bring the
commit that governs a report or an edit, when the decision exists only as a commit?

    python bench/history_hooks.py [--misses]

Each project is a real git checkout of a public repository at the commit bench/hooks was
taken from (ripgrep, fzf, golang/tools; see bench/history_hooks/SOURCES.md) with an empty
`.agents/memory/`: no note at all, the decisions are in the history only. The checkouts are
made once, from a local mirror ($MEM_BENCH_MIRRORS/<owner>+<name>/repo, default
/work/.mirror) or else from GitHub, and kept under
${XDG_CACHE_HOME:-~/.cache}/mem-bench/history-repos/.

Labels are bench/hooks': a `long` prompt of prompts.json is governed by the commits whose
message says they fix its issue. Printed, per project and in all:
- prompt: the governing commit injected by the prompt hook (a fresh session, after the
  session start that indexes the history); where the hook's bm25 over the commits (its
  searched terms and their emphasis, mem_api.commit_ranking) ranks it first; over
  the answerable reports (a governing commit carrying a decision, bench/hook_quality.py's
  `carries_decision`, not a bare "Fix #123");
- unrelated: bench/hooks' 53 unrelated reports asked in every project, and its same-domain
  reports in theirs: the share that injected any commit;
- pre-edit: for each governing commit, an edit (Claude Code's Edit, a session of its own) of
  each file it changed that is still there at the labelled commit, whose new text is the
  lines that commit added to the file: the share of edits whose answer holds it, and the
  same with an empty new text (the newest commits that touched the file, no matching).

Runs `mem` in this process through mem_api.py (the hook's own entry, `mem.commands.hook.run`),
in a temporary MEM_CACHE_DIR. A report, not a test: it exits 0. Also written to
bench/out/history_hooks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT_DIR = HERE / "out"
# name in bench/hooks -> (GitHub repository, the commit bench/hooks' notes were taken at)
REPOSITORIES = {
    "ripgrep": ("BurntSushi/ripgrep", "3fce3b5bb0236da2df6d99672afb8a719642eca7"),
    "fzf": ("junegunn/fzf", "956562daaa82ddf55ea8f7aeab56883377b742c6"),
    "gotools": ("golang/tools", "8f0f8c7bde0eea32e01e570a0e330c60a0cbaecc"),
}
SHORT_SHA = re.compile(r"^- commit ([0-9a-f]{7,}) ", re.MULTILINE)
ADDED_CHARS = 4000  # of the lines a commit added to a file: an edit's new text
BLOCK_LINES = 30  # of those lines still in the file: the text an edit replaces
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.decode("utf-8", "replace")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mem-bench" / "history-repos"


def checkout(name: str) -> Path:
    """The repository at its labelled commit, with an empty `.agents/memory/`: made once."""
    repository, sha = REPOSITORIES[name]
    target = cache_root() / f"{name}-{sha[:12]}"
    if (target / ".agents" / "memory").is_dir():
        return target
    mirrors = Path(os.environ.get("MEM_BENCH_MIRRORS", "/work/.mirror"))
    mirror = mirrors / repository.replace("/", "+") / "repo"
    source = str(mirror) if mirror.is_dir() else f"https://github.com/{repository}.git"
    building = target.with_name(target.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "clone", "-q", "--no-checkout", source, str(building)],
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    git(building, "checkout", "-q", "-B", "bench", sha)
    (building / ".agents" / "memory").mkdir(parents=True)
    with open(building / ".git" / "info" / "exclude", "a", encoding="utf-8") as exclude:
        exclude.write(".agents/\n")
    building.rename(target)
    return target


def injected(answer: str) -> list[str]:
    """The short shas of the commits a hook's answer shows."""
    if not answer.strip():
        return []
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    return SHORT_SHA.findall(context)


def holds(shown: list[str], governing: list[str]) -> bool:
    return any(sha.startswith(short) for short in shown for sha in governing)


def added(root: Path, sha: str, path: str) -> tuple[str, str]:
    """The lines a commit added to a file (an edit's new text), and the largest block of
    them (at most BLOCK_LINES) that the file still holds as it is now ("" when none): the
    text an edit of the code that commit wrote replaces."""
    diff = git(root, "show", "--format=", "--unified=0", "--no-color", sha, "--", path)
    hunks: list[list[str]] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            hunks.append([])
        elif line.startswith("+") and not line.startswith("+++") and hunks:
            hunks[-1].append(line[1:])
    now = (root / path).read_text(encoding="utf-8", errors="replace")
    block = ""
    for hunk in sorted(hunks, key=len, reverse=True):
        text = "\n".join(hunk[:BLOCK_LINES])
        if text.strip() and len(text.strip()) >= 8 and text in now:
            block = text
            break
    return "\n".join(line for hunk in hunks for line in hunk)[:ADDED_CHARS], block


def share(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.2f} ({sum(hits)}/{len(hits)})" if hits else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the reports missed")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import hook_quality  # bench/hooks' labels and its notion of a decision
    import mem_api

    prompts = json.loads((hook_quality.HOOKS / "prompts.json").read_text(encoding="utf-8"))
    rows: dict[str, dict[str, list[bool]]] = {}
    timings: list[str] = []
    misses: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mem-history-hooks-") as tmp:
        os.environ["MEM_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["MEM_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ["MEM_NOW"] = mem_api.MEM_NOW
        os.environ.update(GIT_ENV)
        hook, ranking = mem_api.hook_answer(), mem_api.commit_ranking()
        sessions = iter(range(1_000_000))

        def ask(event: str, root: Path, **fields: object) -> str:
            payload = {"cwd": str(root), "session_id": f"bench-{next(sessions)}", **fields}
            return hook(event, json.dumps(payload).encode("utf-8"))

        for name in REPOSITORIES:
            root = checkout(name)
            labels = {
                row_sha: fixes for _, _, fixes, row_sha in _commit_rows(hook_quality, name) if fixes
            }
            decisions = {row_sha for *_, row_sha in _commit_rows(hook_quality, name, True)}
            started = time.perf_counter()
            ask("session-start", root, source="startup")  # indexes the history
            timings.append(
                f"{name}: session start, history indexed: {time.perf_counter() - started:.2f} s"
            )
            row: dict[str, list[bool]] = {key: [] for key in COLUMNS}
            rows[name] = row
            started = time.perf_counter()
            asked = 0
            for case in prompts["long"]:
                if case["project"] != name:
                    continue
                governing_short = [s for s, fixes in labels.items() if case["issue"] in fixes]
                governing = [git(root, "rev-parse", s).strip() for s in governing_short]
                shown = injected(ask("prompt", root, prompt=case["prompt"]))
                asked += 1
                hit = holds(shown, governing)
                first = ranking(str(root), case["prompt"], 1)
                ranked_first = bool(first) and first[0] in governing
                answerable = any(s in decisions for s in governing_short)
                row["prompt"].append(hit)
                row["first"].append(ranked_first)
                if answerable:
                    row["answerable"].append(hit)
                if not hit:
                    misses.append(f"prompt  {name} #{case['issue']}: shown {shown}")
                for sha in governing:
                    changed = [
                        p
                        for p in git(root, "show", "--format=", "--name-only", sha).splitlines()
                        if p and (root / p).is_file()
                    ]
                    for path in changed:
                        text, block = added(root, sha, path)
                        row["owned"].append(bool(block))
                        for key, old, new in (
                            ("edit", block, text),
                            ("edit_text", "", text),
                            ("edit_empty", "", ""),
                        ):
                            tool_input = {
                                "file_path": str(root / path),
                                "old_string": old,
                                "new_string": new,
                            }
                            answer = ask("pre-edit", root, tool_name="Edit", tool_input=tool_input)
                            shown = injected(answer)
                            row[key].append(holds(shown, [sha]))
                            if key == "edit" and block:
                                row["edit_owned"].append(row[key][-1])
                            if key == "edit" and not row[key][-1]:
                                misses.append(f"edit    {name} {sha[:7]} {path}: shown {shown}")
            for case in prompts["unrelated"]:
                row["unrelated"].append(bool(injected(ask("prompt", root, prompt=case["prompt"]))))
                asked += 1
            for case in prompts["near"]:
                if case["project"] == name:
                    row["near"].append(bool(injected(ask("prompt", root, prompt=case["prompt"]))))
                    asked += 1
            timings.append(
                f"{name}: {asked} prompts and {len(row['edit']) * 3} edits,"
                f" {time.perf_counter() - started:.1f} s"
            )
    rows["all"] = {key: [hit for row in rows.values() for hit in row[key]] for key in COLUMNS}
    lines = [
        "| project | " + " | ".join(COLUMNS.values()) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for name, row in rows.items():
        lines.append(f"| {name} | " + " | ".join(share(row[key]) for key in COLUMNS) + " |")
    report = "\n".join(lines)
    print("History in the hooks: decisions only as commits (bench/history_hooks.py)")
    print(report)
    for line in timings:
        print(f"  {line}")
    if args.misses:
        print("\n".join(misses))
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / "history_hooks.md").write_text(report + "\n", encoding="utf-8")
    return 0


COLUMNS = {
    "prompt": "prompt: governing commit injected",
    "first": "the hook's bm25 ranks it first",
    "answerable": "answerable: injected",
    "unrelated": "unrelated: anything injected",
    "near": "same domain: anything injected",
    "owned": "pre-edit: the file still holds lines it wrote",
    "edit": "pre-edit (replacing lines it wrote, its added lines as new text): it injected",
    "edit_owned": "pre-edit, of those: it injected",
    "edit_text": "pre-edit (its added lines as new text only): it injected",
    "edit_empty": "pre-edit (no text): it injected",
}


def _commit_rows(hook_quality, name: str, decisions_only: bool = False):
    """(heading, body, issues fixed, 12-hex sha) of bench/hooks' commits of a project."""
    import gzip

    with gzip.open(hook_quality.HOOKS / f"{name}.ndjson.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if decisions_only and not hook_quality.carries_decision(row["body"]):
                continue
            yield row["subject"], row["body"], row["fixes"], row["commit"]


if __name__ == "__main__":
    sys.exit(main())
