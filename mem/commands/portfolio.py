"""`mem portfolio add|list|remove`: the projects registered in the portfolio's brain.

The portfolio is the linked (or detected) brain and the projects its `projects/*.yaml`
entries name (bmad-mem.md sections 16-17). Entries are mem's own files: adding one
rewrites it atomically, removing one deletes it; no project file is touched.
`projects-index.md` is regenerated after every change.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mem.core.rules import registry, secrets
from mem.domain import project_entries
from mem.errors import MemError
from mem.files import brain, machine_paths, safe_paths, writing


def listed(root: str, explicit: str | None) -> dict[str, Any]:
    brain_dir = brain.portfolio_brain(root, explicit)
    projects = project_entries.entries(brain_dir)
    return {
        "brain": brain_dir,
        "count": len(projects),
        "missing": sum(1 for project in projects if not project["found"]),
        "projects": projects,
    }


def register(brain_dir: str, fields: dict[str, object], date: str) -> tuple[str, bool]:
    """Write a project's entry, keeping what an earlier entry learned; (path, changed)."""
    path = str(fields["path"])
    entry_hash = project_entries.project_hash(path)
    relative = f"{registry.ENTRY_DIRECTORY}/{entry_hash}{registry.ENTRY_SUFFIX}"
    prior_text = machine_paths.read_small_text(os.path.join(brain_dir, relative))
    prior = {} if prior_text is None else registry.read_entry(prior_text)
    merged = {"name": os.path.basename(path), **prior, **fields, "hash": entry_hash}
    if prior_text is not None and {k: v for k, v in merged.items() if k != "last_scanned"} == {
        k: v for k, v in prior.items() if k != "last_scanned"
    }:
        return os.path.join(brain_dir, relative), False
    merged["last_scanned"] = date
    writing.replace_owned(brain_dir, relative, registry.entry_text(merged))
    return os.path.join(brain_dir, relative), True


def _refuse_secret_paths(paths: list[str], allowed: frozenset[str]) -> None:
    secrets.refuse([(f"PATH {number}", path) for number, path in enumerate(paths, 1)], allowed)


def add(
    root: str, explicit: str | None, paths: list[str], now: str, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    """Register projects (all or none: every path is checked before any entry is written)."""
    if not paths:
        raise MemError("Give at least one project directory to add.")
    allowed = secrets.allowed_kinds(allow_secrets)
    brain_dir = brain.portfolio_brain(root, explicit)
    # The path (and the name, its last part) goes into the brain's entry and its
    # projects-index.md, shared like any memory file. Checked as given before an error could
    # name it, and as resolved, where a link may lead; each is refused as `-d` would refuse
    # it (missing, a file, the file system root).
    _refuse_secret_paths([os.path.abspath(path) for path in paths], allowed)
    resolved = [safe_paths.project_root(path) for path in paths]
    _refuse_secret_paths(resolved, allowed)
    projects = list(dict.fromkeys(resolved))
    known = {item["path"]: item["entry"] for item in project_entries.entries(brain_dir)}
    added = []
    for project in projects:
        if project in known:  # whatever its entry's file name: one project, one entry
            added.append({"path": project, "entry": known[project], "added": False})
            continue
        entry, changed = register(brain_dir, {"path": project}, now[:10])
        added.append({"path": project, "entry": entry, "added": changed})
    index_file = project_entries.rebuild_projects_index(brain_dir, now[:10])
    return {"brain": brain_dir, "projects": added, "projectsIndex": index_file}


def remove(root: str, explicit: str | None, target: str, now: str) -> dict[str, Any]:
    """Unregister one project, named by its path or its name; its files are not touched."""
    brain_dir = brain.portfolio_brain(root, explicit)
    known = project_entries.entries(brain_dir)
    real = os.path.realpath(os.path.abspath(target))
    matching = [item for item in known if item["path"] == real]
    if not matching:
        matching = [item for item in known if item["name"] == target]
    if not matching:
        raise MemError(f'No registered project has the path or name "{target}".')
    if len({item["path"] for item in matching}) > 1:
        paths = ", ".join(item["path"] for item in matching)
        raise MemError(f'"{target}" names more than one project ({paths}); give its path.')
    removed = []
    for item in matching:
        relative = os.path.relpath(item["entry"], brain_dir).replace(os.sep, "/")
        writing.remove_owned(brain_dir, relative)
        removed.append({"path": item["path"], "name": item["name"], "entry": item["entry"]})
    index_file = project_entries.rebuild_projects_index(brain_dir, now[:10])
    return {"brain": brain_dir, "removed": removed, "projectsIndex": index_file}
