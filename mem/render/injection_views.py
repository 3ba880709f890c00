"""What `mem injections` and `mem hook --dry-run` print. Pure."""

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
    shown = len(result["memories"])
    lines = [
        f"mem hook {result['event']} --host {result['host']} (dry run, nothing recorded):"
        f" {shown} {'memory' if shown == 1 else 'memories'}"
    ]
    lines += [_previewed(memory) for memory in result["memories"] if memory.get("id")]
    withheld = len(result["withheld"])
    if withheld:
        lines.append(
            f"{withheld} matching {'memory' if withheld == 1 else 'memories'} withheld,"
            f" {result['withheld'][0]['reason']} (session {result['session']}):"
        )
        lines += [_previewed(memory) for memory in result["withheld"]]
    lines.append("answer: " + (result["answer"].rstrip("\n") or "(empty)"))
    return "\n".join(lines) + "\n"


def _previewed(memory: dict[str, Any]) -> str:
    """A memory of a preview on one line: its file (a commit is of none) and heading."""
    where = "commit" if memory.get("kind") == "commit" else memory["file"]
    return f"    {memory['id']}  {where} § {memory['heading']}"


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
