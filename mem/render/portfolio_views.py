"""Every byte `mem portfolio` and `mem status --portfolio` print. Pure.

Like every view in mem/render: `view(values..., *, as_json) -> str`, the exact bytes.
"""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js
from mem.render.action_views import one_line as shown


def _lines(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _json(result: dict[str, Any]) -> str:
    return js.stringify_pretty(result) + "\n"


def listed(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    projects = result["projects"]
    if not projects:
        return f"mem portfolio: no projects registered in {result['brain']}\n"
    missing = f", {result['missing']} not found" if result["missing"] else ""
    lines = [f"mem portfolio: {result['count']} project(s) in {result['brain']}{missing}"]
    width = max(len(shown(project["name"])) for project in projects)
    for project in projects:
        gone = "" if project["found"] else "  (not found)"
        lines.append(f"  {shown(project['name']):<{width}}  {shown(project['path'])}{gone}")
    return _lines(lines)


def added(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    lines = []
    for project in result["projects"]:
        verb = "registered" if project["added"] else "already registered"
        lines.append(f"mem portfolio: {verb} {shown(project['path'])} ({project['entry']})")
    return _lines(lines)


def removed(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    return _lines(
        [
            f"mem portfolio: unregistered {shown(item['name'])} ({shown(item['path'])});"
            " its files are untouched"
            for item in result["removed"]
        ]
    )


COLUMNS = ("notes", "events", "last write", "retired", "evidence changed", "lock")


def _lock(lock: dict[str, Any] | None) -> str:
    if lock is None:
        return "-"
    if lock["state"] == "free":
        return "free"
    if lock["pid"] is None:
        return "held (owner unreadable)"
    alive = {True: "alive", False: "dead", None: "other host"}[lock["alive"]]
    return f"held by {lock['pid']} ({alive})"


def status(result: dict[str, Any], *, as_json: bool) -> str:
    """One row per root: counts, newest write, retired notes, evidence drift, lock."""
    if as_json:
        return _json(result)
    missing = f", {result['missing']} not found" if result["missing"] else ""
    lines = [f"mem status: portfolio of {result['brain']} ({result['count']} root(s){missing})"]
    rows = [("project", *COLUMNS, "path")]
    for project in result["projects"]:
        name = shown(project["name"]) + (" (brain)" if project["role"] == "brain" else "")
        path = shown(project["path"])
        if not project["found"]:
            rows.append((name, "-", "-", "-", "-", "-", "-", f"{path} (not found)"))
            continue
        rows.append(
            (
                name,
                str(project["notes"]),
                str(project["events"]),
                (project["lastWrite"] or "-")[:10],
                str(project["retired"]),
                str(project["evidenceChanged"]),
                _lock(project["lock"]),
                path,
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [
            cell.ljust(width) if column in (0, 6) else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  " + "  ".join(cells) + "  " + row[-1])
    lines.append(f"  index: {result['index']}")
    return _lines(lines)
