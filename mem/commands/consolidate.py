"""`mem consolidate`: duplicates, stale decisions and promotion candidates (portfolio.md).

An audit only: it writes nothing, deletes nothing; each finding carries a proposal a
person can apply.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import registry
from mem.core.text import markdown
from mem.domain import memories
from mem.files import brain, machine_paths, safe_paths

STALE_DECISION_DAYS = 90
DAY_MS = 86_400_000
BRAIN_KINDS = layout.NOTE_NAMES


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


def _brain_entries(brain_dir: str) -> list[dict[str, str]]:
    entries = []
    seen: set[str] = set()
    for relative in [f"memory/{kind}" for kind in BRAIN_KINDS] + list(BRAIN_KINDS):
        path = os.path.realpath(os.path.join(brain_dir, relative))
        if path in seen:
            continue
        seen.add(path)
        content = safe_paths.read_bounded(brain_dir, relative)
        for memory in memories.from_text(relative, content or ""):
            entries.append(
                {
                    "location": os.path.join(brain_dir, relative),
                    "heading": memory.heading,
                    "text": memory.text,
                }
            )
    return entries


def _finding(kind: str, members: list[str], **fields: Any) -> dict[str, Any]:
    key = "\0".join([kind, *sorted(members)])
    return {"id": "c_" + hashlib.sha256(key.encode()).hexdigest()[:12], "kind": kind, **fields}


def consolidate(root: str, now: str) -> dict[str, Any]:
    """Audit only: duplicates, stale active decisions, lessons recurring across projects."""
    found = memories.load(root)
    entries = [
        {"location": m.file, "heading": m.heading, "text": m.text, "id": m.id} for m in found
    ]
    brain_dir = brain.linked_brain(root)
    if brain_dir is not None:
        entries += _brain_entries(brain_dir)
    findings = _duplicates(entries)
    findings += _stale_decisions(found, now)
    findings += _promotion_candidates(root, found, brain_dir)
    counts = {
        kind: sum(1 for finding in findings if finding["kind"] == kind)
        for kind in ("duplicate", "stale-decision", "promotion-candidate")
    }
    return {"root": root, "brain": brain_dir, "counts": counts, "findings": findings}


def _duplicates(entries: list[dict[str, str]]) -> list[dict[str, Any]]:
    findings = []
    reported: list[set[int]] = []
    for basis, key in (("heading", "heading"), ("text", "text")):
        groups: dict[str, list[int]] = {}
        for position, entry in enumerate(entries):
            value = entry[key] if key == "heading" else entry["text"][len(entry["heading"]) :]
            normalised = _normalised(value)
            if normalised:
                groups.setdefault(normalised, []).append(position)
        for positions in groups.values():
            if len(positions) < 2 or set(positions) in reported:
                continue
            reported.append(set(positions))
            members = [entries[p] for p in positions]
            richest = max(members, key=lambda entry: len(entry["text"]))
            where = [f"{m['location']} § {m['heading']}" for m in members]
            # a proposal is Markdown a person applies: its values stay on their line
            keep, *others = [
                f"{markdown.inline(m['location'])} § {markdown.inline(m['heading'])}"
                for m in sorted(members, key=lambda member: member is not richest)
            ]
            findings.append(
                _finding(
                    "duplicate",
                    where,
                    basis=f"same {basis}",
                    entries=[_member(m) for m in members],
                    proposal=(
                        f"Keep {keep} (the richest version); "
                        f"merge anything it lacks from {'; '.join(others)} and prefix the others' "
                        "headings with [ARCHIVED]."
                    ),
                )
            )
    return findings


def _memory_member(memory: memories.Memory) -> dict[str, str]:
    return {"location": memory.file, "heading": memory.heading, "id": memory.id}


def _member(entry: dict[str, str]) -> dict[str, str]:
    member = {"location": entry["location"], "heading": entry["heading"]}
    if "id" in entry:
        member["id"] = entry["id"]
    return member


_STATUS = re.compile(r"\*\*Status\*\*\s*:\s*(.*)", re.IGNORECASE)


def _stale_decisions(project: list[memories.Memory], now: str) -> list[dict[str, Any]]:
    now_parsed = js.parse_date(now)
    assert now_parsed is not None, "clock.now_iso() is always ISO"
    findings = []
    for memory in project:
        dated = re.match(r"(\d{4}-\d{2}-\d{2})", memory.heading)
        if memory.kind != "decisions.md" or dated is None:
            continue
        status = _STATUS.search(memory.body)
        if status is not None and not status.group(1).strip().lower().startswith("active"):
            continue
        day = js.parse_date(dated.group(1))
        if day is None:
            continue
        age = int((now_parsed.ms - day.ms) // DAY_MS)
        if age <= STALE_DECISION_DAYS:
            continue
        findings.append(
            _finding(
                "stale-decision",
                [memory.id],
                memory=_memory_member(memory),
                ageDays=age,
                proposal=(
                    f"Review it ({age} days old); if it no longer holds, set its status to "
                    "superseded or rolled-back and rename the heading to "
                    f'"### [ARCHIVED] {markdown.inline(memory.heading)}".'
                ),
            )
        )
    return findings


def _promotion_candidates(
    root: str, project: list[memories.Memory], brain_dir: str | None
) -> list[dict[str, Any]]:
    if brain_dir is None:
        return []
    elsewhere: dict[str, list[str]] = {}
    for name in safe_paths.list_names(brain_dir, "projects"):
        if not name.endswith(".yaml"):
            continue
        entry = registry.read_entry(safe_paths.read_bounded(brain_dir, f"projects/{name}") or "")
        other = entry.get("path")
        if not isinstance(other, str) or os.path.realpath(other) == root:
            continue
        headings: set[str] = set()
        for relative in (f"{layout.AGENTS_MEMORY}/lessons.md", f"{layout.BMAD_MEMORY}/lessons.md"):
            text = machine_paths.read_small_text(os.path.join(other, relative)) or ""
            headings |= {_normalised(m.heading) for m in memories.from_text(relative, text)}
        for heading in headings:
            elsewhere.setdefault(heading, []).append(other)
    findings = []
    for memory in project:
        projects = elsewhere.get(_normalised(memory.heading))
        if memory.kind != "lessons.md" or not projects:
            continue
        findings.append(
            _finding(
                "promotion-candidate",
                [memory.id],
                memory=_memory_member(memory),
                projects=sorted(projects),
                proposal=f"mem promote {memory.id} --approve --by NAME",
            )
        )
    return findings
