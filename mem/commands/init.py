"""`mem init`: create the project's memory files, link the brain, index the project (portfolio.md).

Never overwrites a file: what exists is kept, a second run only refreshes the link's
`linked_at`. The only files rewritten are mem's own (`.brain-link`, `projects/*.yaml`).
"""

from __future__ import annotations

import os
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.prose import templates
from mem.core.rules import registry
from mem.domain import project_entries
from mem.errors import MemError
from mem.files import brain, safe_paths, writing
from mem.files.settings import TEAM_TEXT
from mem.files.team import is_team

PROJECT_MEMORY = layout.AGENTS_MEMORY
SESSIONS = layout.SESSIONS


# Deviation D11: git's built-in union driver merges two clones' appends to these stores
# without a conflict (readers count a line that ends up twice once).
UNION_MERGED = tuple(layout.ARCHIVABLE.values())
# Per machine: the brain's absolute path here, and a lock that exists only while a writer runs.
IGNORED = (layout.BRAIN_LINK, layout.WRITER_LOCK)


def init(root: str, now: str, team: bool = False) -> dict[str, Any]:
    """Create what is missing, link the brain, index the project in a global brain; with
    `team`, the settings file that turns the team layout on (deviation D13)."""
    created: list[str] = []
    existing: list[str] = []
    if team:
        if not writing.create_new(root, layout.SETTINGS, TEAM_TEXT):
            if not is_team(root):
                raise MemError(
                    f'{layout.SETTINGS} exists without layout = "team"; edit it to turn the'
                    " team layout on."
                )
            existing.append(layout.SETTINGS)
        else:
            created.append(layout.SETTINGS)
    for name, text in templates.PROJECT_FILES.items():
        relative = f"{PROJECT_MEMORY}/{name}"
        (created if writing.create_new(root, relative, text) else existing).append(relative)
    (created if writing.ensure_directory(root, SESSIONS) else existing).append(SESSIONS + "/")
    merge_lines = _add_union_merge_lines(root)
    detection = brain.brain_detection(root)
    warnings = list(detection.warnings)
    ignore_lines = _add_ignore_lines(root, warnings)
    found = detection.found
    brain_created: list[str] = []
    global_dir = brain.global_brain_dir()
    if found is None or found[1] == "bmad-global":
        # Create a global brain when none is found; complete a half-created one. Never rewrite.
        try:
            brain_created = _complete_global_brain(global_dir)
            found = (global_dir, "bmad-global")
        except MemError as error:  # the project's memory is set up without one
            warnings.append(f"Cannot create the global brain in {global_dir}: {error}")

    link = None
    if found is not None:
        link = {"linked_brain": found[0], "brain_type": found[1], "linked_at": now}
        writing.replace_owned(root, brain.LINK, js.stringify_pretty(link) + "\n")
    else:
        warnings.append(f"No brain is linked: {layout.BRAIN_LINK} was not written.")

    indexed = None
    if found is not None and found[1] == "bmad-global":
        try:
            indexed = _index_project(found[0], root, now[:10])
        except MemError as error:
            warnings.append(f"Cannot index the project in {found[0]}: {error}")
    return {
        "root": root,
        "created": created,
        "existing": existing,
        "brain": link,
        "brainCreated": [os.path.join(global_dir, name) for name in brain_created],
        "indexed": indexed,
        "gitattributes": merge_lines,
        "gitignore": ignore_lines,
        "warnings": warnings,
    }


def missing_merge_lines(text: str) -> list[str]:
    """Pure: the `<store> merge=union` lines a .gitattributes text lacks, in store order."""
    present = {tuple(line.split()) for line in text.split("\n")}
    return [
        f"{store} merge=union" for store in UNION_MERGED if (store, "merge=union") not in present
    ]


def _add_union_merge_lines(root: str) -> list[str]:
    """Append the missing lines to .gitattributes (created if absent); never rewrite it."""
    missing = missing_merge_lines(safe_paths.read_bounded(root, layout.GITATTRIBUTES) or "")
    if missing:
        writing.append_text(root, layout.GITATTRIBUTES, "".join(line + "\n" for line in missing))
    return missing


def missing_ignore_lines(text: str) -> list[str]:
    """Pure: the per-machine paths a .gitignore text does not list (as `path` or `/path`)."""
    present = {line.strip().lstrip("/") for line in text.split("\n")}
    return [path for path in IGNORED if path not in present]


def _add_ignore_lines(root: str, warnings: list[str]) -> list[str]:
    """Append the missing paths to .gitignore (created if absent); never rewrite it.

    A .gitignore that is a link or not a file is the user's arrangement: a warning, since
    a convenience must not stop the rest of init.
    """
    path = os.path.join(root, layout.GITIGNORE)
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
        warnings.append(
            f"{layout.GITIGNORE} is a link or not a file; add {' and '.join(IGNORED)} to it."
        )
        return []
    missing = missing_ignore_lines(safe_paths.read_bounded(root, layout.GITIGNORE) or "")
    if missing:
        writing.append_text(root, layout.GITIGNORE, "".join(path + "\n" for path in missing))
    return missing


def _complete_global_brain(directory: str) -> list[str]:
    created = []
    for name, text in templates.BRAIN_FILES.items():
        if writing.create_new(directory, name, text):
            created.append(name)
    if writing.ensure_directory(directory, "projects"):
        created.append("projects/")
    return created


def _index_project(brain_dir: str, root: str, date: str) -> str:
    relative = f"projects/{project_entries.project_hash(root)}.yaml"
    prior_text = safe_paths.read_bounded(brain_dir, relative)
    prior = {} if prior_text is None else registry.read_entry(prior_text)
    fields = {**prior}  # keep what a scan learned (stack, has_git)
    fields.update(
        {
            "path": root,
            "name": os.path.basename(root),
            "hash": project_entries.project_hash(root),
            "status": "active",
            "bmad_installed": True,
            "packs_installed": ["memory"],
        }
    )
    if prior_text is not None and fields == prior:
        return os.path.join(
            brain_dir, relative
        )  # a re-run changes nothing but the link's linked_at
    fields["last_scanned"] = date
    return project_entries.write_project_entry(brain_dir, fields)
