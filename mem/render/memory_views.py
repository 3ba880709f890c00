"""Every byte that note add, show, evidence, audit, supersede, retract and context print. Pure.

Like every view in mem/render: `view(values..., *, as_json) -> str`, the exact bytes.
"""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js
from mem.core.rules.memory import Added, Memory, MemoryAudit, Outcome, SourceAudit


def _pretty(value: Any) -> str:
    return js.stringify_pretty(value) + "\n"


def _label(memory: Memory | dict[str, Any]) -> str:
    if isinstance(memory, Memory):
        return f"{memory.id}  {memory.file} § {memory.heading}"
    return f"{memory['id']}  {memory['file']} § {memory['heading']}"


def evidence_added(added: Added, *, as_json: bool) -> str:
    if as_json:
        return _pretty({"written": added.written, "unchanged": added.unchanged})
    written = {record["source"]["path"] for record in added.written}
    memory = added.memory
    lines = [
        f"mem evidence: {path} {'recorded' if path in written else 'already recorded'}"
        f" for {memory.id} (revision {memory.revision[:12]})"
        for path in added.paths
    ]
    return "\n".join(lines) + "\n"


def evidence_list(memory: Memory, records: list[dict[str, Any]], *, as_json: bool) -> str:
    if as_json:
        return _pretty({"count": len(records), "results": records})
    where = f"{memory.id} ({memory.file} § {memory.heading})"
    if not records:
        return f"mem evidence: no records for {where}\n"
    lines = [f"mem evidence: {len(records)} record(s) for {where}"]
    for record in records:
        source = record["source"]
        state = "current" if record["current"] else "older revision"
        lines.append(
            f"  {source['path']}  sha256 {source['sha256'][:12]}  {source['size']} bytes"
            f"  revision {record['memory']['revision'][:12]} ({state})"
            f"  {record['repo']}  {record['ts']}"
        )
    return "\n".join(lines) + "\n"


def _source_line(source: SourceAudit, indent: str) -> str:
    return f"{indent}{source.status}  {source.path}: {source.reason}"


def _audit_lines(item: MemoryAudit, indent: str) -> list[str]:
    lines = [
        _source_line(source, indent) for source in item.sources if source.status != "unchanged"
    ]
    if item.status == "unknown":
        if item.older_records:
            lines.append(
                f"{indent}no evidence for the current revision"
                f" ({item.older_records} record(s) for earlier revisions)"
            )
        else:
            lines.append(f"{indent}no evidence recorded")
    return lines


def audit(results: list[MemoryAudit], total: int, *, as_json: bool) -> str:
    if as_json:
        return _pretty({"count": len(results), "results": [item.to_json() for item in results]})
    if not results:
        return "mem audit: no memories have evidence.\n"
    lines = []
    for item in results:
        lines.append(f"{item.status}  {_label(item.memory)}")
        lines.extend(_audit_lines(item, "  "))
    if total > len(results):
        lines.append(
            f"mem audit: showing {len(results)} of {total} memories with evidence (--limit)"
        )
    return "\n".join(lines) + "\n"


def lifecycle_outcome(action: str, outcome: Outcome, *, as_json: bool) -> str:
    event = outcome.event
    if as_json:
        key = "written" if outcome.written else "unchanged"
        return _pretty({"written": None, "unchanged": None, key: event})
    memory_id = event["memory"]["id"]
    state = f"superseded by {event['with']['id']}" if event["with"] else "retracted"
    if outcome.written:
        return f"mem {action}: {memory_id} {state} (event {event['id'][:12]})\n"
    return f"mem {action}: {memory_id} was already {state} at this revision; nothing written\n"


def context(state: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _pretty(state)
    lines = [f"mem context: {state['project']}"]
    for name in ("context", "handoff"):
        part = state[name]
        lines.append("")
        if part is None:
            lines.append(f"## {name}: missing")
        else:
            lines.append(f"## {name} ({part['path']})")
            lines.append(js.trim(part["text"]))
    lines.append("")
    brain = state["brain"]
    if brain is None:
        lines.append("## brain: missing")
    else:
        lines.append(f"## brain: {brain['linkedBrain']} ({brain['brainType']})")
    lines.append("")
    commits = state["commits"]
    if commits is None:
        lines.append("## commits: missing (not a git work tree)")
    else:
        lines.append(f"## commits ({len(commits)})")
        lines.extend(f"{commit['hash'][:12]} {commit['subject']}" for commit in commits)
    lines.append("")
    lines.append(f"## memories ({len(state['memories'])})")
    for memory in state["memories"]:
        line = f"{memory['status']}  {_label(memory)}"
        if memory["supersededBy"]:
            line += f" -> {memory['supersededBy']}"
        if memory["status"] == "retracted":
            line += f" (reason: {memory['reason']})"
        lines.append(line)
        if "evidence" in memory:
            lines.extend(_evidence_envelope(memory["evidence"]))
    for hidden in state["hiddenByBom"]:
        lines.append(
            f"hidden  {hidden['file']} § {hidden['heading']}: a byte order mark before the"
            " file's first ### hides it from recall (as the reference reads it); delete the mark"
        )
    return "\n".join(lines) + "\n"


def _evidence_envelope(envelope: dict[str, Any]) -> list[str]:
    lines = [f"    evidence: {envelope['status']}"]
    for source in envelope["sources"]:
        if source["status"] != "unchanged":
            lines.append(f"      {source['status']}  {source['path']}: {source['reason']}")
    for receipt in envelope["outcomes"]:
        lines.append(f"    outcome {receipt['id'][:12]}: {receipt['reason'] or 'accepted-current'}")
    return lines


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
