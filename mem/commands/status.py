"""`mem status`: the health checks of `bmad-plus memory status` (bmad-mem.md 15), and more."""

from __future__ import annotations

import os
from typing import Any

from mem import index, layout
from mem.core.javascript import js
from mem.core.text import ndjson, parse
from mem.domain import stored_secrets
from mem.files import archives, brain, index_sources, locking, machine_paths, safe_paths, team
from mem.index import check, portfolio

RECEIPT_LIMIT = 1000
NOTE_FILES = layout.NOTE_NAMES


def count_entries(text: str) -> int:
    """Pure: lines that start with exactly `### ` (three hashes and a space)."""
    return sum(1 for line in text.split("\n") if line.startswith("### "))


def _mtime_date(path: str) -> str | None:
    info = machine_paths.file_info(path)
    return None if info is None else js.iso_from_ms(info.st_mtime_ns // 1_000_000)[:10]


def _note_file(directory: str, name: str) -> dict[str, Any]:
    path = os.path.join(directory, name)
    text = machine_paths.read_text(path) if os.path.isfile(path) else None
    return {
        "file": name,
        "exists": text is not None,
        "entries": count_entries(text) if text is not None else 0,
        "modified": _mtime_date(path) if text is not None else None,
        "hiddenByBom": None if text is None else parse.heading_hidden_by_bom(text),
    }


def project_memory(root: str) -> dict[str, Any]:
    directory = os.path.join(root, layout.AGENTS_MEMORY)
    if not os.path.isdir(directory):
        return {"dir": directory, "installed": False}
    sessions = os.path.join(root, layout.SESSIONS)
    handoffs = [name for name in index_sources.listing(sessions) if name.endswith(".md")]
    link = brain.read_link(root)
    context = os.path.join(root, layout.CONTEXT)
    found = {
        "dir": directory,
        "installed": True,
        "files": [_note_file(directory, name) for name in NOTE_FILES],
        "context": {"exists": os.path.isfile(context), "modified": _mtime_date(context)},
        "sessions": len(handoffs),
        "brainLink": None if link is None else link,
        "brainLinkExists": os.path.exists(os.path.join(root, brain.LINK)),
    }
    if team.is_team(root):  # deviation D13: one note a file
        files = team.note_files(root)
        found["noteFiles"] = {
            name: sum(1 for file in files if file.startswith(layout.NOTE_DIRS[name] + "/"))
            for name in NOTE_FILES
        }
    return found


def global_brain() -> dict[str, Any]:
    directory = brain.global_brain_dir()
    if not os.path.isdir(directory):
        return {"dir": directory, "installed": False}
    projects = [
        name
        for name in index_sources.listing(os.path.join(directory, "projects"))
        if name.endswith(".yaml")
    ]
    return {
        "dir": directory,
        "installed": True,
        "identity": os.path.isfile(os.path.join(directory, "identity.yaml")),
        "files": [_note_file(directory, name) for name in NOTE_FILES],
        "projectsDir": os.path.isdir(os.path.join(directory, "projects")),
        "projects": len(projects),
        "projectsIndex": os.path.isfile(os.path.join(directory, "projects-index.md")),
    }


def health(project: dict[str, Any], global_: dict[str, Any]) -> dict[str, Any]:
    """Pure: the reference's checks and rounded percentage (None when there is nothing to check)."""
    checks: list[bool] = []
    if project["installed"]:
        checks += [entry["exists"] for entry in project["files"]]
        checks += [project["context"]["exists"], project["sessions"] > 0]
    if global_["installed"]:
        checks += [global_["identity"], *(entry["exists"] for entry in global_["files"])]
        checks.append(global_["projectsDir"])
    passed = sum(checks)
    total = len(checks)
    percent = None if total == 0 else int(js.to_fixed(100 * passed / total, 0))
    return {"passed": passed, "total": total, "percent": percent}


def store_sizes(root: str) -> list[dict[str, Any]]:
    """Each store's classic file; in team layout (D13) also its shards and the largest one
    (the limit holds for each file)."""
    found = []
    is_team = team.is_team(root)
    for name, relative in layout.ARCHIVABLE.items():
        info = machine_paths.file_info(os.path.join(root, relative))
        size = 0 if info is None else info.st_size
        entry: dict[str, Any] = {
            "store": name,
            "file": relative,
            "bytes": size,
            "limit": safe_paths.STORE_LIMIT,
        }
        entry["percent"] = int(js.to_fixed(100 * size / safe_paths.STORE_LIMIT, 0))
        if is_team:
            infos = [
                machine_paths.file_info(os.path.join(root, shard))
                for shard in team.shards(root, relative)
            ]
            sizes = [info.st_size for info in infos if info is not None]
            entry["shards"] = len(sizes)
            entry["largestShardBytes"] = max(sizes, default=0)
        found.append(entry)
    return found


def receipts(root: str) -> int:
    """Live receipts: lines the store's archives hold count there (deviation D14)."""
    relative = layout.ARCHIVABLE["outcomes"]
    path = os.path.join(root, relative)
    text = machine_paths.read_small_text(path) if os.path.isfile(path) else None
    for shard in team.team_shards(root, relative):  # deviation D13
        shard_text = machine_paths.read_small_text(os.path.join(root, shard))
        if shard_text:
            text = (text or "") + ("" if not text or text.endswith("\n") else "\n") + shard_text
    if text is None:
        return 0
    return sum(1 for _ in ndjson.distinct_lines(text, archives.archived_lines(root, relative)))


def lock_state(root: str) -> dict[str, Any]:
    owner = locking.read_lock_owner(root)
    if owner is None:
        return {"state": "free"}
    return {
        "state": "held",
        "pid": owner.pid,
        "hostname": owner.hostname,
        "alive": owner.alive,
        "abandoned": owner.abandoned_unreadable,
    }


def _peeked_lock(root: str) -> dict[str, Any]:
    owner = locking.peek_lock_owner(root)
    if owner is None:
        return {"state": "free"}
    return {"state": "held", "pid": owner.pid, "hostname": owner.hostname, "alive": owner.alive}


def status(root: str) -> dict[str, Any]:
    project = project_memory(root)
    global_ = global_brain()
    return {
        "root": root,
        "project": project,
        "globalBrain": global_,
        "health": health(project, global_),
        "stores": store_sizes(root),
        "receipts": {"count": receipts(root), "limit": RECEIPT_LIMIT},
        "findings": check.store_findings(root),
        "lock": lock_state(root),
        "index": check.state(root),
        "secrets": stored_secrets.summary(root),
    }


def portfolio_status(
    root: str, explicit: str | None, progress: portfolio.Progress | None = None
) -> dict[str, Any]:
    """`mem status --portfolio`: one row per root of the portfolio, from its index."""
    brain_dir = brain.portfolio_brain(root, explicit)

    def read(open_index: index.OpenIndex) -> tuple[list[portfolio.Summary], str]:
        conn = open_index(brain_dir, index.PORTFOLIO).conn
        return portfolio.summaries(conn), conn.execute("PRAGMA database_list").fetchone()[2]

    summaries, path = index.answer(read, progress)
    rows = []
    for summary in summaries:
        last_write = summary.last_write_ns
        rows.append(
            {
                "name": summary.name,
                "path": summary.path,
                "role": summary.role,
                "found": summary.found,
                "notes": summary.notes,
                "events": summary.events,
                "lastWrite": None
                if last_write is None
                else js.iso_from_ms(last_write // 1_000_000),
                "retired": summary.retired,
                "evidenceChanged": summary.evidence_changed,
                "lock": (
                    _peeked_lock(summary.path)
                    if summary.found and summary.role == "project"
                    else None
                ),
            }
        )
    return {
        "brain": brain_dir,
        "index": path,
        "count": len(rows),
        "missing": sum(1 for row in rows if not row["found"]),
        "projects": rows,
    }
