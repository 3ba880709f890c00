"""Project and portfolio memory: init, handoff, export, promote, consolidate (portfolio.md).

mem proposes, a person approves: nothing here prompts, deletes memory or rewrites a
person's file. The only files rewritten are mem's own (`.brain-link`, `projects/*.yaml`).
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core import js, registry, secrets, templates
from mem.domain import memories, project_entries
from mem.errors import MemError
from mem.files import brain, host, locking, safe_paths, writing

PROJECT_MEMORY = layout.AGENTS_MEMORY
SESSIONS = layout.SESSIONS
PROMOTIONS = layout.PROMOTIONS
STALE_DECISION_DAYS = 90
DAY_MS = 86_400_000
MAX_SLUG = 60
BRAIN_KINDS = layout.NOTE_NAMES


# ---- init


# Deviation D11: git's built-in union driver merges two clones' appends to these stores
# without a conflict (readers count a line that ends up twice once).
UNION_MERGED = tuple(layout.ARCHIVABLE.values())


def init(root: str, now: str) -> dict[str, Any]:
    """Create what is missing, link the brain, index the project in a global brain."""
    created: list[str] = []
    existing: list[str] = []
    for name, text in templates.PROJECT_FILES.items():
        relative = f"{PROJECT_MEMORY}/{name}"
        (created if writing.create_new(root, relative, text) else existing).append(relative)
    (created if writing.ensure_directory(root, SESSIONS) else existing).append(SESSIONS + "/")
    merge_lines = _add_union_merge_lines(root)

    detection = brain.brain_detection(root)
    warnings = list(detection.warnings)
    found = detection.found
    brain_created: list[str] = []
    global_dir = brain.global_brain_dir()
    if found is None or found[1] == "bmad-global":
        # Create a global brain when none is found; complete a half-created one. Never rewrite.
        try:
            brain_created = _complete_global_brain(global_dir)
            found = (global_dir, "bmad-global")
        except OSError as error:
            warnings.append(f"Cannot create the global brain in {global_dir}: {error.strerror}.")

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
        except OSError as error:
            warnings.append(f"Cannot index the project in {found[0]}: {error.strerror}.")
    return {
        "root": root,
        "created": created,
        "existing": existing,
        "brain": link,
        "brainCreated": [os.path.join(global_dir, name) for name in brain_created],
        "indexed": indexed,
        "gitattributes": merge_lines,
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


# ---- handoff


def slug(topic: str) -> str:
    """A file-name-safe form of a topic: `Auth refactor, part 2` -> `auth-refactor-part-2`."""
    ascii_text = unicodedata.normalize("NFKD", topic).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return words[:MAX_SLUG].rstrip("-")


def read_input_file(path: str) -> str:
    if not os.path.isfile(path):
        raise MemError(f"Cannot read {path}: no such file.")
    text = host.read_small_text(path)
    if text is None:
        raise MemError(f"Cannot read {path}: unreadable or larger than 2 MiB.")
    return text


def handoff(
    root: str, topic: str, text: str, now: str, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    """Write `.agents/memory/sessions/<date>-<topic>.md`, never replacing an earlier handoff."""
    topic_slug = slug(topic)
    if not topic_slug:
        raise MemError("--topic must contain at least one letter or digit.")
    if not js.trim(text):
        raise MemError("The handoff text is empty; nothing was written.")
    secrets.refuse([("--topic", topic), ("the handoff text", text)], allow_secrets)
    if not text.endswith("\n"):
        text += "\n"
    stem = f"{SESSIONS}/{now[:10]}-{topic_slug}"
    for number in range(1, 1000):
        relative = f"{stem}.md" if number == 1 else f"{stem}-{number}.md"
        if writing.create_new(root, relative, text):
            return {
                "path": os.path.join(root, relative),
                "file": relative,
                "bytes": len(text.encode()),
            }
    raise MemError(f"Too many handoffs named {stem}-*.md; choose another topic.")


# ---- export


def export(
    root: str, now: str, output: str | None, force: bool, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    brain_dir = brain.global_brain_dir()
    if not os.path.isdir(brain_dir):
        raise MemError("Global brain not found. Nothing to export.")
    path = (
        os.path.abspath(output)
        if output
        else os.path.join(root, f"bmad-brain-export-{now[:10]}.md")
    )
    lines = ["# BMAD+ Brain Export", f"> Exported: {now}", ""]
    included = []
    for name in ("identity.yaml", *BRAIN_KINDS):
        content = safe_paths.read_bounded(brain_dir, name)
        if content is not None:
            lines += [f"## {name}", "```", js.trim(content), "```", ""]
            included.append(name)
    if os.path.isdir(os.path.join(brain_dir, "projects")):
        lines += ["## Projects", ""]
        for name in safe_paths.list_names(brain_dir, "projects"):
            if name.endswith(".yaml"):
                content = safe_paths.read_bounded(brain_dir, f"projects/{name}") or ""
                lines += [f"### {name}", "```yaml", js.trim(content), "```", ""]
                included.append(f"projects/{name}")
    text = "\n".join(lines)
    secrets.refuse([("the export", text)], allow_secrets)
    writing.write_export(path, text, force)
    return {"path": path, "brain": brain_dir, "included": included, "bytes": len(text.encode())}


# ---- promote


def promote(
    root: str,
    memory_id: str,
    approve: bool,
    by: str | None,
    now: str,
    allow_secrets: Iterable[str] = (),
) -> dict[str, Any]:
    """Show, or with approval append, a project memory to the brain file of its kind."""
    if approve and not (by and js.trim(by)):
        raise MemError("--approve requires --by NAME (who approved the promotion).")
    memory = memories.resolve(memories.load(root), memory_id, suggest=True)
    brain_dir = brain.linked_brain(root)
    if brain_dir is None:
        raise MemError("No brain is linked or detected; run `mem init` first.")
    target = (
        f"memory/{memory.kind}"
        if os.path.isfile(os.path.join(brain_dir, "memory", memory.kind))
        else memory.kind
    )
    target_path = os.path.join(brain_dir, target)
    section = f"\n### {memory.text}\n\nPromoted from {os.path.basename(root)} on {now[:10]}\n"
    result: dict[str, Any] = {
        "memory": {
            "id": memory.id,
            "file": memory.file,
            "heading": memory.heading,
            "revision": memory.revision,
        },
        "target": target_path,
        "append": section,
        "approved": approve,
        "promotion": None,
    }
    if not approve:
        return result
    secrets.refuse([("--by", by), (f"the section of memory {memory.id}", section)], allow_secrets)
    with locking.writer_lock(root):
        earlier = _applied_promotion(root, memory)
        if earlier is not None:
            raise MemError(
                f"Memory {memory.id} was already promoted to {earlier.get('target')} on "
                f"{earlier.get('ts')}; nothing was written."
            )
        record: dict[str, Any] = {
            "kind": "memory-promotion",
            "memoryId": memory.id,
            "file": memory.file,
            "heading": memory.heading,
            "revision": memory.revision,
            "target": target_path,
            "ts": now,
            "status": "APPLIED",
            "approvedBy": by,
            "approvedAt": now,
        }
        record = {"id": hashlib.sha256(js.stringify(record).encode()).hexdigest(), **record}
        line = js.stringify(record) + "\n"
        prior = safe_paths.read_bounded(root, PROMOTIONS) or ""
        if len(prior.encode()) + len(line.encode()) > safe_paths.STORE_LIMIT:
            raise MemError("Memory store is full; archive it explicitly before adding records.")
        writing.append_text(brain_dir, target, section)
        writing.append_line(root, PROMOTIONS, line)
    result["promotion"] = record
    return result


def _applied_promotion(root: str, memory: memories.Memory) -> dict[str, Any] | None:
    content = safe_paths.read_bounded(root, PROMOTIONS) or ""
    for line in content.split("\n"):
        try:
            record = js.parse_json(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("kind") == "memory-promotion"
            and record.get("memoryId") == memory.id
            and record.get("revision") == memory.revision
            and record.get("status") == "APPLIED"
        ):
            return record
    return None


# ---- consolidate


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
            others = [w for m, w in zip(members, where, strict=True) if m is not richest]
            findings.append(
                _finding(
                    "duplicate",
                    where,
                    basis=f"same {basis}",
                    entries=[_member(m) for m in members],
                    proposal=(
                        f"Keep {richest['location']} § {richest['heading']} (the richest version); "
                        f"merge anything it lacks from {'; '.join(others)} and prefix the others' "
                        "headings with [ARCHIVED]."
                    ),
                )
            )
    return findings


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
                memory=_member(
                    {"location": memory.file, "heading": memory.heading, "id": memory.id}
                ),
                ageDays=age,
                proposal=(
                    f"Review it ({age} days old); if it no longer holds, set its status to "
                    "superseded or rolled-back and rename the heading to "
                    f'"### [ARCHIVED] {memory.heading}".'
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
            text = host.read_small_text(os.path.join(other, relative)) or ""
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
                memory=_member(
                    {"location": memory.file, "heading": memory.heading, "id": memory.id}
                ),
                projects=sorted(projects),
                proposal=f"mem promote {memory.id} --approve --by NAME",
            )
        )
    return findings
