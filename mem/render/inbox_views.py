"""What `mem import` and `mem inbox` print. Pure."""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js


def _amends(candidate: dict[str, Any]) -> str:
    near = candidate.get("amends")
    if not near:
        return ""
    return f"  (amends {near['id']} § {near['heading']}, likeness {near['likeness']})"


def _line(candidate: dict[str, Any]) -> str:
    return f"{candidate['id']}  {candidate['kind']}  {candidate['title']}{_amends(candidate)}"


def imported(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    lines: list[str] = []
    total = 0
    for host in result["hosts"]:
        name = host["host"]
        total += len(host["offered"])
        lines.extend(f"mem import: {name}: {skipped}" for skipped in host["skipped"])
        lines.extend(f"mem import: {name}: left {left}" for left in host["left"])
        lines.extend(f"  {_line(candidate)}" for candidate in host["offered"])
        if not host["offered"] and not host["duplicates"] and not host["skipped"]:
            looked = ", ".join(host["looked"])
            lines.append(f"mem import: {name}: no memories found; looked in {looked}")
            continue
        verb = "would offer" if result["dryRun"] else "offered"
        lines.append(
            f"mem import: {name}: {verb} {len(host['offered'])}, "
            f"{host['duplicates']} already known, {len(host['skipped'])} skipped"
        )
    if total and not result["dryRun"]:
        lines.append("Review them: mem inbox list; mem inbox accept ID...|--all")
    elif result["dryRun"]:
        lines.append("Dry run: nothing was written.")
    return "\n".join(lines) + "\n"


def listed(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    if not result["candidates"]:
        return "mem inbox: nothing waiting (mem import HOST brings a host's memories here).\n"
    lines = []
    for candidate in result["candidates"]:
        state = "" if candidate["state"] == "pending" else f"  [{candidate['state']}]"
        lines.append(
            f"{_line(candidate)}{state}\n    from {candidate['host']} {candidate['source']}"
        )
    return "\n".join(lines) + "\n"


def shown(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    parts = [
        f"{_line(candidate)}  [{candidate['state']}]\n\n"
        f"### {candidate['title']}\n{candidate['text']}\n"
        for candidate in result["candidates"]
    ]
    return "\n".join(parts)


def decided(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    verb = "accepted" if result["verb"] == "accept" else "rejected"
    lines = []
    for candidate in result["changed"]:
        into = f" as {candidate['memory']}" if candidate.get("memory") else ""
        lines.append(f"mem inbox: {verb} {candidate['id']}{into} § {candidate['title']}")
    for candidate in result["unchanged"]:
        lines.append(f"mem inbox: {candidate['id']} was already {verb}")
    for candidate in result["kept"]:
        lines.append(f"mem inbox: {candidate['id']} not {verb}: {candidate['why']}")
    if not lines:
        lines.append("mem inbox: nothing waiting.")
    return "\n".join(lines) + "\n"
