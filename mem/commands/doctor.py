"""`mem doctor merge [BRANCH...]`: which memory files a merge would conflict in, and the fix.

Each branch (default: every local and remote-tracking branch but the checked-out one) is
merged with HEAD by `git merge-tree --write-tree`, which touches neither the worktree nor
the index, so the answer holds for any merge engine: it is about the files, not about the
merge drivers `.gitattributes` may name (which GitHub's merges ignore).
"""

from __future__ import annotations

import os
from typing import Any

from mem import layout
from mem.errors import MemError
from mem.files import gitrepo, team

MEMORY_FOLDERS = (layout.BMAD_MEMORY + "/", layout.AGENTS_MEMORY + "/")
TEAM_FIX = f"turn on the team layout (`mem init --team`, commit {layout.SETTINGS})"


def merge(root: str, branches: list[str]) -> dict[str, Any]:
    top = gitrepo.toplevel(root)
    if top is None:
        raise MemError(f"{root} is not in a git work tree.")
    prefix = os.path.relpath(root, top).replace(os.sep, "/")
    prefix = "" if prefix == "." else prefix + "/"
    if not branches:
        branches = gitrepo.merge_branches(root) or []
    is_team = team.is_team(root)
    found = []
    for branch in branches:
        merged = gitrepo.merge_conflicts(root, branch)
        conflicts = merged.conflicts
        if conflicts is None:
            if merged.reason:  # git's words: a read-only checkout, a branch it cannot find...
                raise MemError(f"git merge-tree cannot merge {branch} with HEAD: {merged.reason}")
            raise MemError(
                f"git merge-tree cannot merge {branch} with HEAD (no such branch, unrelated"
                " histories, or a git older than 2.38)."
            )
        memory = [
            path[len(prefix) :]
            for path in conflicts
            if path.startswith(prefix) and path[len(prefix) :].startswith(MEMORY_FOLDERS)
        ]
        found.append(
            {
                "branch": branch,
                "memoryConflicts": [{"file": path, "fix": fix(path, is_team)} for path in memory],
                "otherConflicts": len(conflicts) - len(memory),
            }
        )
    return {
        "root": root,
        "team": is_team,
        "branches": found,
        "conflicting": sum(1 for entry in found if entry["memoryConflicts"]),
    }


def fix(path: str, is_team: bool) -> str:
    """Pure: what stops this memory file from conflicting again."""
    if layout.unsharded(path) != path or layout.is_note_file(path):
        return (
            "a team-layout file written on both sides (the same writer id on two clones or"
            " branches of one name?): keep both sides' lines, then give one clone a new id by"
            f" deleting its {team.WRITER_FILE}"
        )
    if path in layout.ARCHIVABLE.values():
        if is_team:
            return "keep both sides' lines (new records go to shards, this file no longer grows)"
        return f"{TEAM_FIX}: new records then go to per-writer shards"
    if path in layout.MEMORY_FILES:
        if is_team:
            return (
                "keep both sides' sections (`mem note add` writes new notes to files of their own)"
            )
        return f"{TEAM_FIX}: `mem note add` then writes each note to a file of its own"
    if path == layout.PATTERN_SCORES:
        if is_team:
            return "take either side: reinforcements are kept in shards and folded on read"
        return f"{TEAM_FIX}: reinforcements then go to shards, folded on read"
    return "resolve it by hand: only one writer edits this file"
