#!/usr/bin/env python3
"""Build the pre-edit labelled set from a ripgrep checkout (run once; its output is committed).

    python bench/pre_edit/build.py /path/to/ripgrep   # a clone of BurntSushi/ripgrep

Notes: the newest NOTES commits' messages (subject as the heading, after its date; body as
the text), as a project's decisions. Evidence: for EVIDENCE_NOTES of them, a file the
commit changed that its message does not name. Edits: every file of the tree at HEAD, the
new text a window of its content around its first definition.

Labels, independent of mem's rules: an edit of file F is governed by a note when the note
holds F's path with its folders, or F's file name when no other file of the tree has it and
it is no dotfile (.gitignore names a kind of file), or a name the
edit's text defines that reads as an identifier (an underscore or an inner capital), or
evidence on F. An edit no note governs is a negative.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

NOTES = 1200
EVIDENCE_NOTES = 40
WINDOW = 30  # lines of new text per edit
OUT = Path(__file__).resolve().parent
DEFINITION = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:fn|struct|enum|trait|impl|type|mod)\b")
DEFINED = re.compile(r"\b(?:fn|struct|enum|trait|type|class|def)\s+([A-Za-z_][A-Za-z0-9_]*)")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def identifier_like(name: str) -> bool:
    return "_" in name.strip("_") or any(c.isupper() for c in name[1:])


def main() -> None:
    repo = Path(sys.argv[1])
    head = git(repo, "rev-parse", "HEAD").strip()
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
    files = [f for f in files if f and not f.startswith("tests/data/")]
    names = Counter(f.rsplit("/", 1)[-1] for f in files)
    log = git(
        repo,
        "log",
        "--no-merges",
        f"-{NOTES}",
        "--format=%x1e%H%x1f%ad%x1f%s%x1f%b",
        "--date=short",
    )
    notes = []
    headings: set[str] = set()
    for entry in log.split("\x1e")[1:]:
        sha, day, subject, body = entry.split("\x1f")
        heading = f"{day} — {subject.strip()}"
        if heading in headings:  # a heading names one memory: the commit tells twins apart
            heading += f" ({sha[:7]})"
        headings.add(heading)
        notes.append({"commit": sha, "heading": heading, "body": body.strip()})
    texts = [f"{n['heading']}\n{n['body']}" for n in notes]

    suffixes = Counter(
        "/".join(f.split("/")[-depth:]) for f in files for depth in range(2, f.count("/") + 2)
    )

    def names_file(text: str, path: str) -> bool:
        """The path, or a trailing part of it with a folder that no other file's path ends
        with, or a file name no other file has; a dotfile's name (.gitignore) names a kind
        of file, and so does a plain word without an extension (README, summary)."""
        parts = path.split("/")
        for depth in range(2, len(parts) + 1):
            suffix = "/".join(parts[-depth:])
            pattern = rf"(?<![\w./-]){re.escape(suffix)}(?![\w-])"
            if (depth == len(parts) or suffixes[suffix] == 1) and re.search(pattern, text):
                return True
        base = parts[-1]
        plain = "." not in base and "-" not in base and "_" not in base
        if names[base] > 1 or base.startswith(".") or plain:
            return False
        return re.search(rf"(?<![\w/.-]){re.escape(base)}(?![\w-])", text) is not None

    edits = []
    for path in files:
        try:
            content = git(repo, "show", f"HEAD:{path}")
        except (subprocess.CalledProcessError, UnicodeDecodeError):
            continue
        lines = content.split("\n")
        start = next((i for i, line in enumerate(lines) if DEFINITION.match(line)), 0)
        new_text = "\n".join(lines[start : start + WINDOW])
        if "\0" in new_text:
            continue
        edits.append({"path": path, "new_text": new_text})

    evidence = []
    for index, note in enumerate(notes):
        if len(evidence) >= EVIDENCE_NOTES:
            break
        changed = git(repo, "show", "--name-only", "--format=", note["commit"]).split()
        changed = [f for f in changed if f in files and f.endswith(".rs")]
        unnamed = [f for f in changed if not names_file(texts[index], f)]
        if 1 <= len(changed) <= 3 and unnamed:
            evidence.append({"note": index, "path": unnamed[0]})

    for edit in edits:
        defined = {n for n in DEFINED.findall(edit["new_text"]) if identifier_like(n)}
        governed = set()
        for index, text in enumerate(texts):
            words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
            if names_file(text, edit["path"]) or defined & words:
                governed.add(index)
        governed |= {e["note"] for e in evidence if e["path"] == edit["path"]}
        edit["governed_by"] = sorted(governed)

    data = {
        "repository": "https://github.com/BurntSushi/ripgrep",
        "commit": head,
        "notes": notes,
        "evidence": evidence,
        "edits": edits,
    }
    (OUT / "ripgrep.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    positives = sum(len(e["governed_by"]) for e in edits)
    negatives = sum(1 for e in edits if not e["governed_by"])
    print(
        f"{len(notes)} notes, {len(evidence)} evidence, {len(edits)} edits:"
        f" {positives} (edit, note) pairs, {negatives} edits no note governs"
    )


if __name__ == "__main__":
    main()
