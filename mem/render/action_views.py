"""Every byte the actions recall, write, reinforce, patterns, observe and outcomes print,
and any action's error. Pure."""

from __future__ import annotations

from mem.core.javascript import js

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mem.core.rules.patterns import Reinforcement, ScoredPattern

# Every JS whitespace character to a space: split on spaces, the non-empty parts joined are
# JS `text.replace(/\s+/g, " ").trim()` (a table, where a regex costs 0.4 ms to compile).
_WHITESPACE_TO_SPACE = str.maketrans(dict.fromkeys(js.JS_WHITESPACE, " "))
TRUNCATE_AT = 120
# The rankings the reference has: the CLI's `recall --json` gives their texts as it does, a
# CRLF note's carriage returns included (golden case 08). Every other view drops them.
REFERENCE_RANKINGS = ("lexical", "evidence")


def truncate(text: str) -> str:
    """Collapse whitespace and cut to 120 UTF-16 code units, as the reference counts them."""
    flat = " ".join(part for part in text.translate(_WHITESPACE_TO_SPACE).split(" ") if part)
    # Below the surrogates every character is one UTF-16 code unit: no codec to load. Only
    # the first TRUNCATE_AT characters decide: a longer text is cut within them.
    if max(flat[:TRUNCATE_AT], default="") < "\ud800":
        return flat if len(flat) <= TRUNCATE_AT else flat[: TRUNCATE_AT - 1] + "…"
    units = flat.encode("utf-16-le", errors="surrogatepass")
    if len(units) <= TRUNCATE_AT * 2:
        return flat
    # A cut through a surrogate pair leaves half a character, which Node prints as U+FFFD.
    head = units[: (TRUNCATE_AT - 1) * 2].decode("utf-16-le", errors="replace")
    return head + "…"


def recall(
    query: str,
    scope: str,
    ranking: str,
    results: list[dict[str, Any]],
    *,
    as_json: bool,
    skipped: list[dict[str, str]] | None = None,
    as_reference: bool = True,
) -> str:
    """A recall's answer; `skipped` (--scope all) lists registered projects that are gone.
    `as_reference`: the JSON is the CLI's, the reference's own for its rankings (False: an
    agent's reader, MCP, which the reference never had)."""
    if as_json:
        if not (as_reference and ranking in REFERENCE_RANKINGS):
            results = [_as_read(entry) for entry in results]
        return _recall_json(query, scope, ranking, results, skipped)
    return _recall_text(query, scope, results)


def _recall_text(query: str, scope: str, results: list[dict[str, Any]]) -> str:
    if not results:
        return f'mem recall: no matches for "{query}" (scope: {scope})\n'
    lines = [f'mem recall: {len(results)} match(es) for "{query}" (scope: {scope})']
    for position, entry in enumerate(results, start=1):
        score = js.to_fixed(entry["score"], 3)
        # --scope all: the project's name before the source
        where = f"{one_line(entry['projectName'])}: " if "projectName" in entry else ""
        if entry["kind"] == "event":
            lines.append(f"  {position}. [{score}] event {where}{entry['source']}#{entry['ref']}")
        elif entry["kind"] == "commit":
            lines.append(
                f"  {position}. [{score}] commit {where}{entry['shortSha']} {entry['date']}"
                f" {one_line(entry['ref'])}"
            )
        else:
            retired = _retired_mark(entry)
            lines.append(
                f"  {position}. [{score}] note {where}{entry['source']} § {entry['ref']}{retired}"
            )
        lines.append(f"     {truncate(entry['text'])}")
        if "amends" in entry or "amendedBy" in entry:
            from mem.render.brief import amendment_text  # a likely amendment's reader only

            lines.append(amendment_text(entry, "     ").rstrip("\n"))
        if entry.get("memory"):
            lines.append(_memory_status(entry["memory"]))
        if "explain" in entry:
            lines.extend(_explain_lines(entry["explain"]))
    return "\n".join(lines) + "\n"


def _as_read(entry: dict[str, Any]) -> dict[str, Any]:
    text = entry.get("text")
    if not isinstance(text, str) or "\r" not in text:
        return entry
    from mem.core.text import markdown  # a CRLF note only: a warm recall does not load `re`

    return {**entry, "text": markdown.as_read(text)}


def _retired_mark(entry: dict[str, Any]) -> str:
    """`recall --include-retired`: what became of a note that plain recall leaves out (D10)."""
    status = entry.get("status")
    if status == "superseded":
        return f" [superseded by {entry['supersededBy']}]"
    if status == "retracted":
        return " [retracted]"
    return ""


def _explain_lines(parts: dict[str, Any]) -> list[str]:
    """`recall --explain`: every part of the score, exact, so a reader can redo the sum."""

    def num(value: float) -> str:
        return js.number_to_string(value)

    if parts.get("ranking") == "bm25":
        return _bm25_explain_lines(parts, num)
    lines = [
        f"       score {num(parts['score'])} = lexical {num(parts['lexical'])}"
        f" × decay {num(parts['decay'])} × evidence {num(parts['evidence'])}",
        f"       lexical = hits {num(parts['hits'])} × coverage {num(parts['coverage'])}"
        f" ({parts['matched']}/{parts['queryTerms']}) / √n (n {parts['n']})",
    ]
    for term in parts["terms"]:
        lines.append(f"       {term['term']}: tf {term['tf']}, +{num(term['contribution'])}")
    if parts["ageDays"] is not None:
        lines.append(f"       decay = 0.5 ^ (ageDays {num(parts['ageDays'])} / 30)")
    return lines


def _bm25_explain_lines(parts: dict[str, Any], num: Any) -> list[str]:
    lines = [
        f"       score {num(parts['score'])} = bm25 {num(parts['bm25'])}"
        f" × decay {num(parts['decay'])}",
        f"       bm25 = Σ idf × tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))"
        f" (k1 {num(parts['k1'])}, b {num(parts['b'])}, len {parts['length']},"
        f" avg {num(parts['averageLength'])}, N {parts['records']}"
        f"{' commits' if parts.get('kind') == 'commit' else ''})",
    ]
    for term in parts["terms"]:
        lines.append(
            f"       {term['term']}: tf {term['tf']}, df {term['df']},"
            f" idf {num(term['idf'])}, +{num(term['weight'])}"
        )
    return lines


def _memory_status(memory: dict[str, Any]) -> str:
    """`recall --with-evidence`: a note's lifecycle and audit status under its text."""
    state = memory["status"]
    if memory["supersededBy"]:
        state += f" by {memory['supersededBy']}"
    return f"     {memory['id']}: {state}; audit {memory['audit']}"


def _recall_json(
    query: str,
    scope: str,
    ranking: str,
    results: list[dict[str, Any]],
    skipped: list[dict[str, str]] | None,
) -> str:
    envelope: dict[str, Any] = {
        "query": query,
        "scope": scope,
        "ranking": ranking,
        "count": len(results),
        "results": results,
    }
    if skipped is not None:
        envelope["skipped"] = skipped  # --scope all: registered projects whose folder is gone
    return js.stringify_pretty(envelope) + "\n"


def one_line(text: str) -> str:
    """A project's name or path on one line: control characters spelled as escapes."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def recall_skipped(skipped: list[dict[str, str]], *, as_json: bool) -> str:
    """Stderr lines for the registered projects a portfolio recall skipped (in JSON they are
    part of the answer: nothing here)."""
    if as_json:
        return ""
    return "".join(
        f"mem recall: warning: skipped {one_line(item['projectName'])}"
        f" ({one_line(item['project'])}): {item['reason']}\n"
        for item in skipped
    )


def write(event: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _written_json(event)

    def shown(value: Any) -> str:
        return str(value) if value else "-"

    lines = [
        f"mem write: event {event['id']} appended ({event['ts']})",
        f"  agent={event['agent']} cli={shown(event['cli'])} model={shown(event['model'])}"
        f" outcome={shown(event['outcome'])}",
    ]
    if event["task"]:
        lines.append(f"  task: {truncate(event['task'])}")
    return "\n".join(lines) + "\n"


def _written_json(record: dict[str, Any]) -> str:
    return js.stringify_pretty({"written": record}) + "\n"


def observe(receipt: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _written_json(receipt)
    return f"mem observe: {receipt['id']} recorded; lesson causality remains unmeasured.\n"


def outcomes(results: list[dict[str, Any]], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty({"count": len(results), "results": results}) + "\n"
    if not results:
        return "mem outcomes: no observations.\n"
    return "".join(
        f"{result['id']}: {result['reason'] or 'accepted-current'}\n" for result in results
    )


def reinforce(result: Reinforcement, *, as_json: bool) -> str:
    if as_json:
        return _reinforce_json(result)
    after = result.after
    lines = [
        f'mem reinforce: pattern "{result.pattern_id}"',
        f"  reward   {js.to_fixed(result.reward, 3)} (from {js.stringify(result.signals)})",
        f"  elo      {js.to_fixed(result.before.elo, 1)} -> {js.to_fixed(after.elo, 1)}",
        f"  mean     {js.to_fixed(after.mean, 3)} (alpha={js.to_fixed(after.alpha, 2)},"
        f" beta={js.to_fixed(after.beta, 2)}, updates={js.number_to_string(after.updates)})",
    ]
    if result.promotion is None:
        lines.append("  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)")
    else:
        lines.append(f"  promotion PROPOSED ({result.promotion['id']}): candidate -> validated")
        lines.append("  awaiting human/Shield approval — never auto-applied (governance guard)")
    return "\n".join(lines) + "\n"


def _reinforce_json(result: Reinforcement) -> str:
    envelope = {
        "patternId": result.pattern_id,
        "reward": result.reward,
        "previous": result.previous,
        "next": result.after.as_json(),
        "promotion": result.promotion,
        "evidenceStatus": "self-reported",
        "rankingEligible": False,
    }
    return js.stringify_pretty(envelope) + "\n"


def patterns(listed: list[ScoredPattern], *, as_json: bool) -> str:
    if as_json:
        envelope = {"count": len(listed), "patterns": [item.as_json() for item in listed]}
        return js.stringify_pretty(envelope) + "\n"
    if not listed:
        return "mem patterns: no scored patterns\n"
    lines = [f"mem patterns: {len(listed)} scored pattern(s), best first"]
    for position, item in enumerate(listed, start=1):
        score = item.score
        lines.append(
            f'  {position}. "{item.pattern_id}" mean {js.to_fixed(score.mean, 3)}'
            f" elo {js.to_fixed(score.elo, 1)} (alpha={js.to_fixed(score.alpha, 2)},"
            f" beta={js.to_fixed(score.beta, 2)}, updates={js.number_to_string(score.updates)})"
        )
        documented = "yes" if item.documented else "no"
        lines.append(
            f"     last {score.last_ts or '-'}  in patterns.md: {documented}"
            f"  promotion: {item.promotion_status or '-'}"
        )
    return "\n".join(lines) + "\n"


def action_error(action: str, message: str, *, as_json: bool) -> tuple[str, str]:
    """(stream, text) of a user-fixable error: one JSON line on stdout, or stderr text."""
    if as_json:
        return "stdout", js.stringify({"error": message}) + "\n"
    if message.startswith(f"mem {action}: "):
        return "stderr", message + "\n"  # deviation D3: one prefix, never two
    return "stderr", f"mem {action}: {message}\n"
