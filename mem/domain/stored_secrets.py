"""Possible secrets already stored in memory files, stores and brains.

`mem audit --secrets` lists them and `mem status` counts them. Writes go through
`mem.core.rules.secrets` before anything is stored; this finds what got in another way (an
editor, a merge, a `mem` older than the check). It only reads: no store, no index, no
lock file, no cache. A finding names a file, a line and a kind, never the text.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mem.core.rules import secrets
from mem.domain import project_entries
from mem.files import brain, memory_tree


def audit(root: str, portfolio: bool, allow: Iterable[str] = ()) -> dict[str, Any]:
    """Findings in the project's memory; with `portfolio`, also the brain and its projects.

    Findings of an allowed kind are left out (a team's known false positive, named in its CI
    command line, since a write's `--allow-secret` is recorded nowhere). Documentation
    examples and placeholders (`example-<kind>`) are listed apart and never counted: they
    are not secrets, and a write lets them through. A file it could not read (a link, a
    FIFO, a permission) is listed in `skipped` and fails the gate as a finding does: what
    the audit has not read it cannot vouch for.
    """
    allowed = secrets.allowed_kinds(allow)
    places: list[tuple[str, list[memory_tree.MemoryFile]]] = [("", memory_tree.project_files(root))]
    brain_dir = None
    missing: list[str] = []
    if portfolio:
        brain_dir = brain.linked_brain(root)
        if brain_dir is not None:
            places.append((brain_dir, memory_tree.brain_files(brain_dir)))
            projects, missing = _registered_projects(brain_dir, root)
            places += [(project, memory_tree.project_files(project)) for project in projects]
    findings: list[dict[str, Any]] = []
    examples: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    scanned = 0
    for base, found in places:
        for item in found:
            shown = secrets.shown_name(os.path.join(base, item.relative) if base else item.relative)
            if item.problem is not None:
                skipped.append({"file": shown, "reason": item.problem})
                continue
            try:
                found_here = _scan(item)
            except OSError as error:
                skipped.append({"file": shown, "reason": f"unreadable ({error.strerror})"})
                continue
            scanned += 1
            for finding in found_here:
                listed = {
                    "file": shown,
                    "line": finding.line,
                    "column": finding.column,
                    "kind": finding.kind,
                    "label": secrets.label(finding.kind),
                }
                if secrets.is_example(finding.kind):
                    examples.append(listed)  # shown, so nothing is left out unsaid; not counted
                elif finding.kind not in allowed:
                    findings.append(listed)
    return {
        "root": root,
        "portfolio": portfolio,
        "brain": brain_dir,
        "scanned": scanned,
        "count": len(findings),
        "files": len({finding["file"] for finding in findings}),
        "findings": findings,
        "examples": examples,
        "skipped": skipped,
        "missingProjects": [secrets.shown_name(path) for path in missing],
        "failed": bool(findings or skipped),
    }


def _scan(item: memory_tree.MemoryFile) -> list[secrets.Finding]:
    """The findings of a whole file, however large, its lines numbered from the file's start."""
    found: list[secrets.Finding] = []
    for first_line, text in memory_tree.blocks(item):
        found += [
            secrets.Finding(finding.line + first_line - 1, finding.column, finding.kind)
            for finding in secrets.scan_stored(text)
        ]
    return found


def _registered_projects(brain_dir: str, root: str) -> tuple[list[str], list[str]]:
    """(existing, missing) project roots registered in the brain, other than `root`, sorted."""
    found: set[str] = set()
    missing: set[str] = set()
    for entry in project_entries.entries(brain_dir):
        if entry["path"] != root:
            (found if entry["found"] else missing).add(entry["path"])
    return sorted(found), sorted(missing)


def summary(root: str) -> dict[str, int]:
    """For `mem status`: how many findings, in how many of the project's memory files, and
    how many files could not be read."""
    result = audit(root, portfolio=False)
    return {
        "findings": result["count"],
        "files": result["files"],
        "scanned": result["scanned"],
        "skipped": len(result["skipped"]),
    }
