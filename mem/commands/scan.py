"""`mem scan`: find projects under a folder, index them in the global brain (bmad-mem.md 16)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from mem.core.javascript import js
from mem.core.rules import secrets
from mem.domain import project_entries
from mem.errors import MemError
from mem.files import brain, machine_paths, safe_paths

DAY_MS = 86_400_000
MARKERS = [
    ("package.json", None),
    ("Cargo.toml", "Rust"),
    ("pyproject.toml", "Python"),
    ("requirements.txt", "Python"),
    ("go.mod", "Go"),
    ("composer.json", "PHP"),
    ("Gemfile", "Ruby"),
    ("pom.xml", "Java"),
    ("build.gradle", "Java/Kotlin"),
]
PACKAGE_STACKS = [
    ("next", "Next.js"),
    ("nuxt", "Nuxt"),
    ("react", "React"),
    ("vue", "Vue.js"),
    ("svelte", "Svelte"),
    ("express", "Express"),
    ("fastify", "Fastify"),
    ("electron", "Electron"),
    ("tauri", "Tauri"),
]
SKIP = frozenset(
    "node_modules .git vendor __pycache__ dist build .next .nuxt .svelte-kit target .venv venv"
    " .cache .output coverage .turbo .angular $RECYCLE.BIN".split()
    + [
        "System Volume Information",
        "Windows",
        "Program Files",
        "Program Files (x86)",
        "ProgramData",
        "AppData",
        "Recovery",
        "PerfLogs",
    ]
)
YAML_KEYS = ["path", "name", "hash", "stack", "status", "bmad_installed", "has_git", "last_scanned"]


class Options(NamedTuple):
    depth: int = 4
    active_days: int = 30
    paused_days: int = 180


def scan_brain(folder: str, explicit: str | None) -> str:
    """Where `mem scan FOLDER --register` registers: --brain, else the brain detected
    from the scanned folder (its `_brain/` or a parent's, $BMAD_PLUS_BRAIN, the global one)."""
    if not os.path.isdir(folder):
        raise MemError(f"Directory not found: {os.path.abspath(folder)}")
    return brain.portfolio_brain(safe_paths.project_root(folder), explicit)


def parse_count(name: str, text: str | None, default: int, minimum: int = 1) -> int:
    """An integer option of at least `minimum`; anything else is an error, not a silent default."""
    if text is None:
        return default
    if not re.fullmatch(r"[0-9]+", text.strip()) or int(text) < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer of at least {minimum}"
        raise MemError(f'--{name} must be {kind} (got "{text}")')
    return int(text)


def status_for(mtime_ms: float | None, now_ms: float, options: Options) -> str:
    if mtime_ms is None:
        return "unknown"
    age_days = (now_ms - mtime_ms) / DAY_MS
    if age_days < options.active_days:
        return "active"
    if age_days < options.paused_days:
        return "paused"
    return "archived"


def package_stack(text: str | None) -> tuple[str, str | None]:
    """(stack, package name) from a package.json's text; unreadable JSON is plain Node.js."""
    try:
        package = js.parse_json(text or "")
    except ValueError:
        return "Node.js", None
    if not isinstance(package, dict):
        return "Node.js", None
    dependencies: dict[str, object] = {}
    for key in ("dependencies", "devDependencies"):
        if isinstance(package.get(key), dict):
            dependencies.update(package[key])
    name = package.get("name")
    name = name if isinstance(name, str) and name else None
    for dependency, stack in PACKAGE_STACKS:
        if dependency in dependencies:
            return stack, name
    return "Node.js", name


def _project(
    directory: str, stack: str, name: str | None, now_ms: float, options: Options
) -> dict[str, object]:
    info = machine_paths.file_info(directory)
    mtime_ms = None if info is None else info.st_mtime_ns / 1_000_000

    def exists(name: str) -> bool:
        return machine_paths.file_info(os.path.join(directory, name)) is not None

    return {
        "path": directory,
        "name": name or os.path.basename(directory),
        "hash": project_entries.project_hash(directory),
        "stack": stack,
        "status": status_for(mtime_ms, now_ms, options),
        "bmad": exists(".agents") or exists("_bmad"),
        "hasAgentsMd": exists("AGENTS.md"),
        "hasGit": exists(".git"),
    }


def discover(
    root: str, options: Options, now_ms: float, progress: Callable[[str], None] | None = None
) -> list[dict[str, object]]:
    """Projects below root in directory-name order; a project's own subfolders are not searched."""
    found: list[dict[str, object]] = []

    def visit(directory: str, depth: int) -> None:
        if depth > options.depth:
            return
        if progress is not None:
            progress(directory)
        names = machine_paths.subdirectories(directory)
        if names is None:
            return
        for marker, stack in MARKERS:
            if machine_paths.file_info(os.path.join(directory, marker)) is not None:
                name = None
                if stack is None:
                    stack, name = package_stack(
                        machine_paths.read_small_text(os.path.join(directory, marker))
                    )
                found.append(_project(directory, stack, name, now_ms, options))
                return
        if depth > 0 and machine_paths.file_info(os.path.join(directory, ".git")) is not None:
            found.append(_project(directory, "Unknown", None, now_ms, options))
            return
        for name in names:
            if not name.startswith(".") and name not in SKIP:
                visit(os.path.join(directory, name), depth + 1)

    visit(root, 0)
    return found


def scan(
    directory: str,
    now: str,
    *,
    depth: str | None = None,
    active_days: str | None = None,
    paused_days: str | None = None,
    index: bool = False,
    register: bool = False,
    explicit: str | None = None,
    progress: Callable[[str], None] | None = None,
    allow_secrets: Iterable[str] = (),
) -> dict[str, object]:
    """Find projects; with `index` (--yes), write their entries in the global brain; with
    `register`, in the portfolio's brain (`explicit`, --brain, else the folder's).

    What goes into the brain (each project's path and name, a folder's or its
    package.json's) is checked for secrets first, as every writer's text is: one found
    means nothing is written."""
    allowed = secrets.allowed_kinds(allow_secrets)
    options = Options(
        parse_count("depth", depth, 4, minimum=0),  # depth 0: only the folder itself
        parse_count("active-days", active_days, 30),
        parse_count("paused-days", paused_days, 180),
    )
    brain_dir = scan_brain(directory, explicit) if register else None
    index = index or register
    if not os.path.isdir(directory):
        raise MemError(f"Directory not found: {os.path.abspath(directory)}")
    root = safe_paths.project_root(directory)  # as `mem init` resolves it: one hash per project
    parsed = js.parse_date(now)
    assert parsed is not None, "clock.now_iso() is always ISO"
    projects = discover(root, options, parsed.ms, progress)
    brain_dir = brain_dir or brain.global_brain_dir()
    result: dict[str, object] = {
        "root": root,
        "depth": options.depth,
        "activeDays": options.active_days,
        "pausedDays": options.paused_days,
        "count": len(projects),
        "projects": projects,
        "indexed": 0,
        "projectsDir": os.path.join(brain_dir, "projects"),
        "projectsIndex": None,
    }
    if index and projects:
        secrets.refuse(
            [
                (f"the {part} of project {number}", str(project[part]))
                for number, project in enumerate(projects, 1)
                for part in ("path", "name")
            ],
            allowed,
        )
        date = now[:10]
        for project in projects:
            project_entries.write_project_entry(
                brain_dir,
                {
                    "path": project["path"],
                    "name": project["name"],
                    "hash": project["hash"],
                    "stack": project["stack"],
                    "status": project["status"],
                    "bmad_installed": project["bmad"],
                    "has_git": project["hasGit"],
                    "last_scanned": date,
                },
            )
        result["indexed"] = len(projects)
        result["projectsIndex"] = project_entries.rebuild_projects_index(brain_dir, date)
    return result
