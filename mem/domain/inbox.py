"""Imported memories wait in a per-machine inbox until a person accepts or rejects each.

`gather` reads one host's memory for a project (mem.files.host_memory_files finds and reads
the files, mem.core.rules.host_memories parses them); `offer` turns what it found into candidates:
a memory with a possible secret is refused as on every write, an exact duplicate of a
project note, of an earlier candidate or of anything the inbox already holds (pending,
accepted or rejected) is skipped, and one near a project note or an earlier candidate is
offered as its amendment. `accept` writes a candidate as `mem note add` does
(mem.domain.notes.add, classic or team layout); `reject` sets it aside. Both are idempotent.

The inbox is an append-only NDJSON log in the machine's state directory, one per project
(mem.files.machine_state): `offer`, `accept` and `reject` lines; the state of a candidate is
its last line. A candidate's id is a digest of its title and text, so the same memory read
again, from the same file or another, is the same candidate.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from mem.core.javascript import js
from mem.core.ranking import amendments
from mem.core.rules import host_memories, secrets
from mem.core.rules.host_memories import HostMemory
from mem.domain import memories, notes
from mem.errors import MemError
from mem.files import host_memory_files, index_sources, machine_state

HOSTS = ("claude-code", "codex", "gemini", "serena", "vscode")
# What `serena memories initialize` seeds (Serena 2.1.0): how to keep its memories, no
# memory of the project.
SERENA_GUIDELINES = "memory_maintenance.md"
# The likeness (mem.core.ranking.amendments) from which a candidate is offered as a note's
# amendment:
# one decision taken again, not merely the same subject (amendments.SAME_SUBJECT), which a
# project's sibling decisions reach too (bench/import_bench.py --likeness: at 0.6, 6 of 18
# marked amendments and 0 of 68 unrelated records; at 0.24, 12 of 18 and 31 of 68).
NEAR = amendments.SAME_DECISION
# A candidate's near notes are looked for among those that share one of its heaviest terms
# (of those any note has): a few postings read instead of every note compared.
PROBE_TERMS = 3
COMMON = 256  # a term more notes than this have says little of a subject: never probed
ID_PREFIX = "imp_"


class HostFindings(NamedTuple):
    """What one host holds for a project: its memories, the files skipped and why, where
    it looked and what it left (memories that are not about this project)."""

    host: str
    memories: list[HostMemory]
    skipped: list[str]
    looked: list[str]
    left: list[str]


class Candidate(NamedTuple):
    id: str
    state: str  # pending, accepted, rejected
    host: str
    source: str
    kind: str
    title: str
    text: str
    amends: dict[str, Any] | None  # {id, heading, likeness} of the note it is near
    memory: str | None  # the note's id once accepted

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "host": self.host,
            "source": self.source,
            "kind": self.kind,
            "title": self.title,
            "amends": self.amends,
            "memory": self.memory,
            "text": self.text,
        }


# ---- reading a host's memory


def _files(
    folder: str, paths: Iterable[str], skipped: list[str]
) -> list[host_memory_files.HostFile]:
    found: list[host_memory_files.HostFile] = []
    for path in paths:
        read = host_memory_files.read(path, folder)
        if isinstance(read, str):
            skipped.append(read)
        else:
            found.append(read)
    return found


def _one_each(
    host: str,
    files: list[host_memory_files.HostFile],
    skipped: list[str],
    memories_out: list[HostMemory],
) -> None:
    for file in files:
        memory = host_memories.one_file(host, file.text, file.shown, file.date)
        if isinstance(memory, str):
            skipped.append(f"{file.shown}: skipped, {memory}")
        else:
            memories_out.append(memory)


def _indexed_folder(host: str, folder: str, found: HostFindings) -> None:
    """A folder of a MEMORY.md index and one file per memory (Claude Code, Gemini CLI)."""
    paths = host_memory_files.markdown_files(folder)
    for index in _files(folder, [p for p in paths if p.endswith("/MEMORY.md")], found.skipped):
        brief, linked = host_memories.index_lines(host, index.text, index.shown, index.date)
        found.memories.extend(brief)
        for name in linked:
            if "://" not in name and f"{folder}/{name}" not in paths:
                found.skipped.append(f"{index.shown}: links to {name}, which is not in the folder")
    others = [p for p in paths if not p.endswith("/MEMORY.md")]
    _one_each(host, _files(folder, others, found.skipped), found.skipped, found.memories)


def gather(host: str, root: str) -> HostFindings:
    """Every memory `host` keeps for the project at `root`."""
    found = HostFindings(host, [], [], [], [])
    if host == "claude-code":
        top = host_memory_files.git_root(root)
        folder = host_memory_files.claude_memory_folder(root, host_memories.claude_slug(top))
        found.looked.append(host_memory_files.shown(folder))
        if index_sources.is_folder(folder):
            _indexed_folder(host, folder, found)
        local = f"{root}/CLAUDE.local.md"
        found.looked.append(host_memory_files.shown(local))
        if host_memory_files.is_file(local):
            _one_each(host, _files(root, [local], found.skipped), found.skipped, found.memories)
    elif host == "codex":
        folder = host_memory_files.codex_memories()
        found.looked.append(host_memory_files.shown(folder))
        index = [f"{folder}/MEMORY.md"] if host_memory_files.is_file(f"{folder}/MEMORY.md") else []
        for file in _files(folder, index, found.skipped):
            groups, left = host_memories.codex_task_groups(file.text, file.shown, file.date, root)
            found.memories.extend(groups)
            if left:
                found.left.append(f"{file.shown}: {left} task groups of other folders")
        skills = f"{folder}/skills"
        for name in _folder_names(skills):
            path = f"{skills}/{name}/SKILL.md"
            if host_memory_files.is_file(path):
                for file in _files(folder, [path], found.skipped):
                    skill = host_memories.codex_skill(file.text, file.shown, file.date)
                    if isinstance(skill, str):
                        found.skipped.append(f"{file.shown}: skipped, {skill}")
                    else:
                        found.memories.append(skill)
        notes_folder = host_memory_files.codex_ad_hoc_notes()
        found.looked.append(host_memory_files.shown(notes_folder))
        paths = host_memory_files.markdown_files(notes_folder)
        for file in _files(notes_folder, paths, found.skipped):
            found.memories.append(host_memories.codex_ad_hoc_note(file.text, file.shown, file.date))
    elif host == "gemini":
        for folder in host_memory_files.gemini_memory_folders(root):
            found.looked.append(host_memory_files.shown(folder))
            if index_sources.is_folder(folder):
                _indexed_folder(host, folder, found)
        for path, folder in (
            (f"{host_memory_files.gemini_dir()}/GEMINI.md", host_memory_files.gemini_dir()),
            (f"{root}/GEMINI.md", root),
        ):
            found.looked.append(host_memory_files.shown(path))
            if host_memory_files.is_file(path):
                for file in _files(folder, [path], found.skipped):
                    found.memories.extend(
                        host_memories.gemini_added(file.text, file.shown, file.date)
                    )
    elif host == "serena":
        for folder in host_memory_files.serena_folders(root):
            found.looked.append(host_memory_files.shown(folder))
            paths = host_memory_files.markdown_files(folder, recursive=True)
            guidelines = f"{folder}/{SERENA_GUIDELINES}"
            if guidelines in paths:
                paths.remove(guidelines)
                shown = host_memory_files.shown(guidelines)
                found.left.append(f"{shown}: Serena's guidelines for its memories")
            _one_each(host, _files(folder, paths, found.skipped), found.skipped, found.memories)
    elif host == "vscode":
        for folder in host_memory_files.vscode_repo_memory_folders(root):
            found.looked.append(host_memory_files.shown(folder))
            paths = host_memory_files.markdown_files(folder, recursive=True)
            _one_each(host, _files(folder, paths, found.skipped), found.skipped, found.memories)
    else:
        raise MemError(f"The host must be one of {', '.join(HOSTS)} or all, not {host!r}.")
    return found


def _folder_names(folder: str) -> list[str]:
    return [path.rsplit("/", 1)[-1] for path in host_memory_files.subfolders(folder)]


# ---- the inbox log


def _candidate_id(title: str, text_body: str) -> str:
    key = host_memories.normalized(title) + "\0" + host_memories.normalized(text_body)
    return ID_PREFIX + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def load(root: str) -> dict[str, Candidate]:
    """Every candidate the project's inbox holds, in the order they were offered."""
    found: dict[str, Candidate] = {}
    for line in machine_state.read_inbox(root).split("\n"):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            continue  # a line torn by a full disk: its write was never acknowledged
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            continue
        op, key = record.get("op"), record["id"]
        if op == "offer" and key not in found:
            found[key] = Candidate(
                key,
                "pending",
                str(record.get("host")),
                str(record.get("source")),
                str(record.get("kind")),
                str(record.get("title")),
                str(record.get("text")),
                record.get("amends") if isinstance(record.get("amends"), dict) else None,
                None,
            )
        elif op in ("accept", "reject") and key in found:
            prior = found[key]
            memory = record.get("memory") if isinstance(record.get("memory"), str) else None
            found[key] = Candidate(
                prior.id,
                "accepted" if op == "accept" else "rejected",
                prior.host,
                prior.source,
                prior.kind,
                prior.title,
                prior.text,
                prior.amends,
                memory,
            )
    return found


# ---- offering candidates


def _note_title(heading: str) -> str:
    return heading.split(" — ", 1)[-1]


def _without_source(body: str) -> str:
    lines = body.split("\n")
    return "\n".join(line for line in lines if not line.startswith("- **Imported**: from "))


class NearNotes:
    """The notes a candidate may amend, measured as `mem check amendments` measures two
    notes' subject (mem.core.ranking.amendments: a weighted cosine plus the share of heading words
    in common), each term weighed by how many of `texts` (every note and memory the import
    sees) hold it. A candidate is scored against the notes that share one of its
    PROBE_TERMS heaviest terms (of those at most COMMON notes hold), not every note."""

    def __init__(self, texts: Iterable[tuple[str, str]]) -> None:
        self.df: Counter[str] = Counter()
        self.records = 0
        self.counted: dict[tuple[str, str], dict[str, int]] = {}  # read once, used twice
        for heading, text in texts:
            counted = self.counted.setdefault((heading, text), self._counts(heading, text))
            self.df.update(counted.keys())
            self.records += 1
        self.subjects: list[amendments.Subject] = []
        self.refs: list[dict[str, Any]] = []
        self.postings: dict[str, list[int]] = {}

    @staticmethod
    def _counts(heading: str, text: str) -> dict[str, int]:
        return amendments.counts(heading, f"{heading}\n{text}")

    def subject(self, heading: str, text: str) -> amendments.Subject:
        counted = self.counted.pop((heading, text), None) or self._counts(heading, text)
        return amendments.subject(len(self.subjects), heading, counted, self.df, self.records)

    def add(self, item: amendments.Subject, ref: dict[str, Any]) -> None:
        number = len(self.subjects)
        self.subjects.append(item)
        self.refs.append(ref)
        for term in item.weights:
            self.postings.setdefault(term, []).append(number)

    def nearest(self, item: amendments.Subject, at_least: float = NEAR) -> dict[str, Any] | None:
        """The note (or earlier candidate) `item` most likely amends, with the likeness."""
        probes = [
            term
            for term in sorted(item.weights, key=lambda term: (-item.weights[term], term))
            if 0 < len(self.postings.get(term, ())) <= COMMON
        ][:PROBE_TERMS]
        best: tuple[float, int] | None = None
        for number in sorted({n for term in probes for n in self.postings[term]}):
            other = self.subjects[number]
            if _likeness_at_most(item, other) < at_least:
                continue
            score = amendments.likeness(item, other).score
            if score >= at_least and (best is None or score > best[0]):
                best = (score, number)
        if best is None:
            return None
        return {**self.refs[best[1]], "likeness": math.floor(best[0] * 1000) / 1000}


def _likeness_at_most(one: amendments.Subject, two: amendments.Subject) -> float:
    """A bound on amendments.likeness, cheap to reckon: the cosine of two unit vectors is at
    most the norm of one's weights on the terms both have (Cauchy-Schwarz). Most pairs a
    probe finds share a word or two and fall below NEAR on this alone."""
    shared = one.weights.keys() & two.weights.keys()
    cosine = math.sqrt(math.fsum(one.weights[term] ** 2 for term in shared))
    both = one.heading | two.heading
    share = len(one.heading & two.heading) / len(both) if both else 0.0
    return cosine + amendments.HEADING_SHARE * share + 1e-4  # likeness rounds to 4 places


class Offered(NamedTuple):
    host: str
    looked: list[str]
    offered: list[Candidate]
    skipped: list[str]  # files and memories set aside, one line each
    left: list[str]
    duplicates: int  # exact duplicates of notes, candidates or the inbox's entries


def offer(
    root: str,
    found: Sequence[HostFindings],
    now: str,
    dry_run: bool = False,
    allow_secrets: Iterable[str] = (),
) -> list[Offered]:
    """Put what the hosts hold in the inbox as candidates (nothing when dry_run)."""
    allowed = secrets.allowed_kinds(allow_secrets)
    inbox = load(root)
    exact: set[tuple[str, str]] = set()
    project_notes = [
        (note.id, note.heading, _note_title(note.heading), _without_source(note.body))
        for note in memories.load(root)
    ]
    near = NearNotes(
        [(title, body) for _, _, title, body in project_notes]
        + [(memory.title, memory.body) for one in found for memory in one.memories]
    )
    for note_id, heading, title, body in project_notes:
        exact.add((host_memories.normalized(title), host_memories.normalized(body)))
        near.add(near.subject(title, body), {"id": note_id, "heading": heading})
    seen = set(inbox)
    results: list[Offered] = []
    lines: list[str] = []
    for one in found:
        offered: list[Candidate] = []
        skipped = list(one.skipped)
        duplicates = 0
        for memory in one.memories:
            refused = _refusal(memory, allowed)
            if refused:
                skipped.append(refused)
                continue
            key = _candidate_id(memory.title, memory.body)
            pair = (host_memories.normalized(memory.title), host_memories.normalized(memory.body))
            if key in seen or pair in exact:
                duplicates += 1
                continue
            seen.add(key)
            exact.add(pair)
            subject = near.subject(memory.title, memory.body)
            amends = near.nearest(subject)
            candidate = Candidate(
                key,
                "pending",
                memory.host,
                memory.source,
                memory.kind,
                memory.title,
                memory.text(),
                amends,
                None,
            )
            near.add(subject, {"id": key, "heading": memory.title})
            offered.append(candidate)
            record = {"op": "offer", "ts": now, **candidate.to_json()}
            del record["state"], record["memory"]
            lines.append(js.stringify(record) + "\n")
        results.append(Offered(one.host, one.looked, offered, skipped, one.left, duplicates))
    if not dry_run:
        machine_state.append_inbox(root, "".join(lines))
    return results


def _refusal(memory: HostMemory, allowed: frozenset[str]) -> str | None:
    """Why a memory cannot become a note as it stands, or None."""
    where = f"{memory.source}: skipped"
    if not memory.title:
        return f"{where}, no title could be made of it"
    text = memory.text()
    if len(text) > notes.MAX_BODY:
        return f"{where}, {len(text)} characters (a note is at most {notes.MAX_BODY}); split it"
    found = [
        item
        for item in secrets.scan_fields([("the title", memory.title), ("the text", text)])
        if item.finding.kind not in allowed
    ]
    if found:
        kinds = ", ".join(sorted({item.finding.kind for item in found}))
        return f"{where}, a possible secret ({kinds}); remove it or import with --allow-secret"
    return None


# ---- deciding


class Decided(NamedTuple):
    changed: list[Candidate]  # accepted or rejected now
    unchanged: list[Candidate]  # already so
    kept: list[tuple[Candidate, str]]  # left pending, and why


def chosen(inbox: dict[str, Candidate], ids: Sequence[str], every: bool) -> list[Candidate]:
    if every and ids:
        raise MemError("Give candidate ids or --all, not both.")
    if every:
        return [item for item in inbox.values() if item.state == "pending"]
    if not ids:
        raise MemError("Give the candidates' ids (mem inbox list) or --all.")
    unknown = [key for key in ids if key not in inbox]
    if unknown:
        raise MemError(f"No candidate {unknown[0]} in this project's inbox (mem inbox list).")
    return [inbox[key] for key in dict.fromkeys(ids)]


def accept(
    root: str, ids: Sequence[str], every: bool, now: str, allow_secrets: Iterable[str] = ()
) -> Decided:
    """Write the chosen pending candidates as `mem note add` does (one batch: one lock, one
    read of each file), and note each accepted."""
    result = Decided([], [], [])
    pending: list[Candidate] = []
    for candidate in chosen(load(root), ids, every):
        if candidate.state == "accepted":
            result.unchanged.append(candidate)
        elif candidate.state == "rejected":
            result.kept.append((candidate, "it was rejected"))
        else:
            pending.append(candidate)
    batch = [(f"candidate {c.id}", c.kind, c.title, c.text) for c in pending]
    written = notes.add_many(root, batch, now, allow_secrets)
    lines: list[str] = []
    for candidate, outcome in zip(pending, written, strict=True):
        if isinstance(outcome, str):
            result.kept.append((candidate, outcome))
            continue
        record = {
            "op": "accept",
            "ts": now,
            "id": candidate.id,
            "memory": outcome["id"],
            "file": outcome["file"],
        }
        lines.append(js.stringify(record) + "\n")
        result.changed.append(candidate._replace(state="accepted", memory=outcome["id"]))
    machine_state.append_inbox(root, "".join(lines))
    return result


def reject(root: str, ids: Sequence[str], every: bool, now: str) -> Decided:
    """Set each chosen pending candidate aside: a later import will not offer it again."""
    inbox = load(root)
    result = Decided([], [], [])
    lines: list[str] = []
    for candidate in chosen(inbox, ids, every):
        if candidate.state == "rejected":
            result.unchanged.append(candidate)
        elif candidate.state == "accepted":
            result.kept.append((candidate, f"it was accepted as {candidate.memory}"))
        else:
            lines.append(js.stringify({"op": "reject", "ts": now, "id": candidate.id}) + "\n")
            result.changed.append(candidate._replace(state="rejected"))
    machine_state.append_inbox(root, "".join(lines))
    return result
