"""`mem context`: a project's memory for an agent starting work (evidence-lifecycle.md 6).

Missing parts are reported as missing, never guessed. Every memory is listed, in file
order, with its lifecycle status; the evidence envelope (audit and outcome receipts) is
added only on request, and nothing is hidden, dropped or re-ordered because of it.
Like audit, context writes nothing.
"""

from __future__ import annotations

from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import budgets
from mem.domain import brief as briefs
from mem.domain import evidence_audit, lifecycle_events, memories, memory_status
from mem.files import gitrepo, safe_paths
from mem.render import brief as brief_view

CONTEXT = layout.CONTEXT
SESSIONS = layout.SESSIONS
BRAIN_LINK = layout.BRAIN_LINK
COMMITS = 10


def gather(root: str, with_evidence: bool) -> dict[str, Any]:
    current, lifecycle_statuses = lifecycle_events.project_statuses(root)
    audits = evidence_audit.statuses(root, current) if with_evidence else {}
    receipts = _receipts(root) if with_evidence else []
    listed = []
    for memory in current:
        key = (memory.id, memory.revision)
        entry = {**memory.ref(), **memory_status.lifecycle_fields(lifecycle_statuses[key])}
        if with_evidence:
            entry["evidence"] = {
                "status": audits[key].status,
                "sources": [source.to_json() for source in audits[key].sources],
                "outcomes": [
                    {
                        "id": receipt["id"],
                        "eligible": receipt["eligible"],
                        "reason": receipt["reason"],
                    }
                    for receipt in receipts
                    if receipt["memory"]["file"] == memory.file
                    and receipt["memory"]["heading"] == memory.heading
                ],
            }
        listed.append(entry)
    parts = {
        "context": _text_part(root, CONTEXT),
        "handoff": _newest_handoff(root),
        "brain": _brain(root),
        "commits": _commits(root),
    }
    return {
        "project": root,
        **parts,
        "missing": [name for name, part in parts.items() if part is None],
        "memories": listed,
        "hiddenByBom": memories.hidden_by_bom(root),
    }


def _text_part(root: str, relative: str) -> dict[str, str] | None:
    text = safe_paths.read_notes(root, relative)
    return None if text is None else {"path": relative, "text": text}


def _newest_handoff(root: str) -> dict[str, str] | None:
    names = safe_paths.regular_files_named(root, SESSIONS, ".md")
    if not names:
        return None
    return _text_part(root, f"{SESSIONS}/{names[-1]}")


def _brain(root: str) -> dict[str, Any] | None:
    text = safe_paths.read_bounded(root, BRAIN_LINK)
    if text is None:
        return None
    try:
        link = js.parse_json(text)
    except ValueError:
        link = None
    if not isinstance(link, dict):
        link = {}  # present but unreadable: shown as a link to nothing known, never guessed
    return {
        "path": BRAIN_LINK,
        "linkedBrain": link.get("linked_brain"),
        "brainType": link.get("brain_type"),
        "linkedAt": link.get("linked_at"),
    }


def _commits(root: str) -> list[dict[str, str]] | None:
    commits = gitrepo.recent_commits(root, COMMITS)
    if commits is None:
        return None
    return [{"hash": commit.hash, "subject": commit.subject} for commit in commits]


def _receipts(root: str) -> list[dict[str, Any]]:
    from mem.domain import outcome_receipts

    return outcome_receipts.inspect(root)


def brief(root: str, budget_text: str, *, as_json: bool) -> str:
    """`mem context --budget`: the brief, within `budget` characters of output."""
    budget = budgets.parse_budget(budget_text)
    found = briefs.gather(root, budget)
    entries = [entry.to_json() for entry in found.entries]
    return brief_view.fit(entries, found.total, budget, as_json=as_json)[0]
