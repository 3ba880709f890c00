"""What `mem injections`, `mem note add` and `mem show` print. Pure."""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js


def listed(records: list[dict[str, Any]], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty({"count": len(records), "injections": records}) + "\n"
    if not records:
        return "mem injections: none recorded for this project on this machine.\n"
    lines = []
    for record in records:
        source = f" ({record['source']})" if record.get("source") else ""
        said = (
            f"nothing printed: {len(record['memories'])} matching memories"
            f" {record.get('reason', 'withheld')}"
            if record.get("kind") == "withheld"
            else f"{len(record['memories'])} memories, {record['bytes']} bytes,"
            f" sha256 {record['sha256'][:12]}"
        )
        lines.append(
            f"{record['ts']}  {record['host']}  session {record.get('session') or '-'}"
            f"  {record['event']}{source}  {said}"
        )
        lines += [
            f"    {memory['id']}  revision {memory['revision'][:12]}"
            for memory in record["memories"]
        ]
    return "\n".join(lines) + "\n"


def hook_preview(result: dict[str, Any], *, as_json: bool) -> str:
    """`mem hook EVENT --dry-run`: the answer the host would get, and what was withheld."""
    if as_json:
        return js.stringify_pretty(result) + "\n"
    lines = [
        f"mem hook {result['event']} --host {result['host']} (dry run, nothing recorded):"
        f" {len(result['memories'])} memories"
    ]
    lines += [
        f"    {memory['id']}  {memory['file']} § {memory['heading']}"
        for memory in result["memories"]
        if memory.get("id")
    ]
    if result["withheld"]:
        lines.append(
            f"{len(result['withheld'])} matching memories withheld,"
            f" {result['withheld'][0]['reason']} (session {result['session']}):"
        )
        lines += [
            f"    {memory['id']}  {memory['file']} § {memory['heading']}"
            for memory in result["withheld"]
        ]
    lines.append("answer: " + (result["answer"].rstrip("\n") or "(empty)"))
    return "\n".join(lines) + "\n"


def outcomes(results: list[dict[str, Any]], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty({"count": len(results), "memories": results}) + "\n"
    if not results:
        return "mem injections: no memory was injected in this project on this machine.\n"
    lines = []
    for item in results:
        ended = ", ".join(f"{name} {count}" for name, count in item["ended"].items() if count)
        lines.append(
            f"{item['id']}  injected {item['injections']}x into {item['sessions']} sessions"
            + (f"; ended: {ended}" if ended else "")
        )
    return "\n".join(lines) + "\n"


def note_added(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    made = " (created from its template)" if result["created"] else ""
    if result.get("ownFile"):  # team layout (deviation D13)
        made = " (a file of its own)"
    return (
        f"mem note: added {result['kind']} {result['id']} to {result['file']}{made}"
        f" § {result['heading']}\n"
    )


def memory_shown(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    if result.get("kind") == "commit":
        paths = "".join(f"  {path}\n" for path in result["paths"])
        return (
            f"{result['sha']}  git § {result['ref']}  ({result['date']})\n\n"
            f"{result['text']}\n" + (f"\npaths:\n{paths}" if paths else "")
        )
    status = result["status"]
    if result["supersededBy"]:
        status += f" by {result['supersededBy']}"
    return (
        f"{result['id']}  {result['file']} § {result['heading']}  ({status})\n\n"
        f"### {result['text']}\n"
    )
