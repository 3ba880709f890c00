"""The pattern files as they stand: `pattern-scores.json` and the patterns.md headings.

`mem reinforce` folds scores into the file and `mem patterns` lists them, both read
from the files themselves (the index is only a cache for audits).
"""

from __future__ import annotations

from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import patterns
from mem.core.text import ndjson, parse
from mem.errors import MemError
from mem.files import safe_paths, team

SCORES = layout.PATTERN_SCORES
PROMOTIONS = layout.PROMOTIONS
REINFORCEMENTS = layout.REINFORCEMENTS
PATTERN_NOTES = layout.PATTERN_NOTES


def read_scores(root: str, local_offset_ms: Any = None) -> dict[str, Any]:
    """Every stored score, keyed by pattern id; {} when there is no file yet.

    In team layout (deviation D13) the reinforcements of every writer's shards are folded
    onto the file's scores, oldest `ts` first (then by line): concurrent reinforcements on
    two branches merge as two files and fold the same way on every clone.

    Deviation D4: a file that is not JSON is refused, never reset (the reference overwrote
    it with fresh priors). A JSON value that is not an object is refused too: the
    reference would drop its content (or, for an array, lose the new score) on writing.
    """
    scores = _classic_scores(root)
    if team.is_team(root):
        for record in reinforcements(root):
            pattern_id = record["pattern"]
            folded = patterns.reinforce(
                pattern_id,
                record["signals"],
                record["evidence"],
                scores.get(pattern_id),
                record["ts"],
                *([] if local_offset_ms is None else [local_offset_ms]),
            )
            scores[pattern_id] = folded.after.as_json()
    return scores


def reinforcement_line(
    pattern_id: str, signals: dict[str, Any], evidence: list[str], ts: str, nonce: str
) -> str:
    """A team layout's record of one reinforcement (deviation D13). The nonce keeps two
    reinforcements in one millisecond apart; a line a merge repeats still counts once."""
    record = {
        "ts": ts,
        "id": nonce,
        "pattern": pattern_id,
        "signals": signals,
        "evidence": evidence,
    }
    return js.stringify(record) + "\n"


def reinforcements(root: str) -> list[dict[str, Any]]:
    """The reinforcements of a team project's shards: each distinct line once, by ts."""
    data = safe_paths.read_plain(root, REINFORCEMENTS) or b""
    found = []
    for _, line in ndjson.distinct_lines(data.decode("utf-8", "replace")):
        try:
            record = js.parse_json(line)
        except ValueError:
            raise MemError("A reinforcement shard holds a line that is not JSON.") from None
        if not (
            isinstance(record, dict)
            and isinstance(record.get("ts"), str)
            and isinstance(record.get("pattern"), str)
            and isinstance(record.get("signals"), dict)
            and isinstance(record.get("evidence"), list)
        ):
            raise MemError("A reinforcement shard holds a record that is not a reinforcement.")
        found.append((record["ts"], js.trim(line), record))
    found.sort(key=lambda item: (item[0], item[1]))
    return [record for _, _, record in found]


def _classic_scores(root: str) -> dict[str, Any]:
    data = safe_paths.read_plain(root, SCORES)
    if data is None:
        return {}
    try:
        scores = js.parse_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise MemError(
            "Pattern scores file is not valid JSON; inspect it before writing."
        ) from None
    if not isinstance(scores, dict):
        raise MemError("Pattern scores file is not a JSON object; inspect it before writing.")
    return scores


def headings(root: str) -> set[str]:
    headings: set[str] = set()
    notes = [file for file in team.team_note_files(root) if file.endswith(".md")]
    patterns_folder = layout.NOTE_DIRS["patterns.md"] + "/"
    for relative in [*PATTERN_NOTES, *(f for f in notes if f.startswith(patterns_folder))]:
        data = safe_paths.read_plain(root, relative)
        if data is not None:
            text = data.decode("utf-8", errors="replace")
            headings.update(note.heading for note in parse.split_sections(text))
    return headings
