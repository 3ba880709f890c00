"""Every byte the project and portfolio commands print (init, status, scan, ...). Pure.

Like every view in mem/render: `view(values..., *, as_json) -> str`, the exact bytes.
"""

from __future__ import annotations

from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.text import markdown
from mem.render import secret_report

STATUS_ICONS = {"active": "●", "paused": "◐", "archived": "○", "unknown": "?"}


def _json(result: dict[str, Any]) -> str:
    return js.stringify_pretty(result) + "\n"


def _lines(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def init(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    lines = [f"mem init: project memory in {result['root']}/{layout.AGENTS_MEMORY}"]
    lines += [f"  created  {path}" for path in result["created"]]
    lines += [f"  kept     {path}" for path in result["existing"]]
    link = result["brain"]
    if link is not None:
        brain = f"{link['linked_brain']} ({link['brain_type']})"
        lines.append(f"  brain    {brain}, linked in {layout.BRAIN_LINK}")
    lines += [f"  created  {path}" for path in result["brainCreated"]]
    if result["indexed"]:
        lines.append(f"  indexed  {result['indexed']}")
    lines += [f"  added    .gitattributes: {line}" for line in result["gitattributes"]]
    lines += [f"  added    .gitignore: {line}" for line in result["gitignore"]]
    return _lines(lines)


AGENTS_ACTIONS = {
    "created": "created   {path} (with the memory protocol block)",
    "updated": "updated   {path} (memory protocol block written)",
    "unchanged": "current   {path} (block already up to date)",
    "removed": "removed   the block from {path}",
    "deleted": "deleted   {path} (it held nothing but the block)",
    "absent": "absent    {path} has no block",
    "covered": "covered   {path} (it already brings AGENTS.md in)",
}
SETTINGS_ACTIONS = {
    "created": "created   {path} (mem's hooks for {host})",
    "updated": "updated   {path} (mem's hooks for {host} merged in)",
    "unchanged": "current   {path} (mem's hooks for {host} already in place)",
    "removed": "removed   mem's hooks from {path}",
    "deleted": "deleted   {path} (it held nothing but mem's hooks)",
    "absent": "absent    {path} has no mem hooks",
}


def agents(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    lines = [f"mem init: agent instructions in {result['root']}"]
    for item in result["files"]:
        line = "  " + AGENTS_ACTIONS[item["action"]].format(path=item["path"])
        if item.get("imports") and item["action"] in ("created", "updated"):
            line = line.replace("with the memory protocol block", "importing AGENTS.md")
            line = line.replace("memory protocol block written", "import of AGENTS.md written")
        lines.append(line)
    for item in result.get("settings", []):
        lines.append("  " + SETTINGS_ACTIONS[item["action"]].format(**item))
        lines += [f"  warning: {warning}" for warning in item["warnings"]]
    programs = sorted({item["program"] for item in result.get("settings", []) if "program" in item})
    for program in programs:
        lines.append(
            f"  the hooks run {program}: after moving it (a new virtual environment),"
            " run `mem init --agents --hooks` again; `mem doctor hooks` checks they will run"
        )
    return _lines(lines)


def _mark(flag: bool, absent: str = "✗") -> str:
    return "✓" if flag else absent


def status(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    project = result["project"]
    lines = [f"📁 Project Memory ({result['root']})"]
    if not project["installed"]:
        lines.append("  Not installed. Run: mem init")
    else:
        for entry in project["files"]:
            date = f"  {entry['modified']}" if entry["modified"] else ""
            lines.append(
                f"  {entry['file']:<16} {_mark(entry['exists'])}  {entry['entries']} entries{date}"
            )
            if entry["hiddenByBom"] is not None:
                lines.append(
                    f'    ⚠ a byte order mark before its first ### hides "{entry["hiddenByBom"]}"'
                    " from recall (as the reference reads it): delete the mark"
                )
        for name, count in project.get("noteFiles", {}).items():  # team layout (D13)
            folder = name.removesuffix(".md") + "/"
            lines.append(f"  {folder:<16} {_mark(count > 0, '·')}  {count} note file(s)")
        context = project["context"]
        date = f"  {context['modified']}" if context["modified"] else ""
        lines.append(f"  {'context.md':<16} {_mark(context['exists'])}{date}")
        sessions = project["sessions"]
        lines.append(f"  {'sessions/':<16} {_mark(sessions > 0, '·')}  {sessions} handoff(s)")
        link = project["brainLink"]
        if link is not None:
            lines.append(f"  🔗 Linked brain: {link.get('linked_brain')}")
        elif project["brainLinkExists"]:
            lines.append("  🔗 Brain link exists")
    brain = result["globalBrain"]
    lines.append(f"🌐 Global Brain ({brain['dir']})")
    if not brain["installed"]:
        lines.append("  Not initialized. Run: mem init")
    else:
        lines.append(f"  {'identity.yaml':<16} {'✓' if brain['identity'] else '✗ missing'}")
        for entry in brain["files"]:
            lines.append(
                f"  {entry['file']:<16} {_mark(entry['exists'], '·')}  {entry['entries']} entries"
            )
        lines.append(f"  {'projects/':<16} ✓  {brain['projects']} project(s) indexed")
        lines.append(f"  {'projects-index':<16} {_mark(brain['projectsIndex'], '·')}")
    health = result["health"]
    if health["percent"] is not None:
        lines.append(
            f"🏥 Health: {health['percent']}% ({health['passed']}/{health['total']} checks)"
        )
    lines.append("💾 Stores (limit 2 MiB each)")
    for store in result["stores"]:
        lines.append(f"  {store['file']:<34} {store['bytes']:>9} bytes  {store['percent']}%")
        if "shards" in store:  # team layout (deviation D13)
            largest = store["largestShardBytes"]
            lines.append(f"    + {store['shards']} shard(s), the largest {largest} bytes")
    receipts = result["receipts"]
    lines.append(f"  outcome receipts: {receipts['count']} of {receipts['limit']}")
    lines += _store_finding_lines(result["findings"])
    lock = result["lock"]
    if lock["state"] == "free":
        lines.append("🔒 writer.lock: free")
    elif lock["pid"] is None:
        removable = " (mem unlock can remove it)" if lock["abandoned"] else ""
        lines.append(f"🔒 writer.lock: held, its owner record is empty or unreadable{removable}")
    else:
        alive = {True: "alive", False: "not running (mem unlock can remove it)", None: "unknown"}[
            lock["alive"]
        ]
        lines.append(f"🔒 writer.lock: held by pid {lock['pid']} on {lock['hostname']}, {alive}")
    cache = result["index"]
    lines.append(
        f"🗂  Index: {cache['state']}, {cache['entries']} entries, {cache['bytes']} bytes,"
        f" schema {cache['schemaVersion']}"
    )
    if cache["state"] == "stale":
        # Not a fault: a write since the last read (status reads without syncing), which
        # `index check` and every read sync first.
        lines.append("  memory files changed since the last read; the next read syncs it")
    elif cache["state"] == "damaged":
        lines.append("  the next recall rebuilds it")
    elif cache["state"] == "unwritable":
        lines.append("  the cache directory cannot be written: every read uses a temporary index")
    lines.append(secret_report.status_line(result["secrets"]))
    return _lines(lines)


def export(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    return f"📦 Brain exported to: {result['path']}\n"


def _short_path(path: str) -> str:
    return "..." + path[-37:] if len(path) > 40 else path


def scan(result: dict[str, Any], will_index: bool, *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    projects = result["projects"]
    if not projects:
        return _lines(
            [
                f"Scanned {result['root']} (depth: {result['depth']})",
                "No projects found. Try scanning a different directory or increasing --depth",
            ]
        )
    counts = {status: sum(1 for p in projects if p["status"] == status) for status in STATUS_ICONS}
    active, paused = result["activeDays"], result["pausedDays"]
    lines = [
        f"Found {len(projects)} project(s) in {result['root']} (depth: {result['depth']})",
        f"  ● active (< {active} days): {counts['active']}   ◐ paused ({active}-{paused} days): "
        f"{counts['paused']}   ○ archived (> {paused} days): {counts['archived']}",
        "",
        "  #   Status    BMAD+  Stack             Name                  Path",
        "─" * 90,
    ]
    for number, project in enumerate(projects, start=1):
        status = f"{STATUS_ICONS[project['status']]} {project['status']}"
        bmad = "✓" if project["bmad"] else "·"
        lines.append(
            f"{number:>3}   {status:<10}  {bmad}     {project['stack']:<16}  "
            f"{project['name'][:20]:<20}  {_short_path(project['path'])}"
        )
    lines.append("")
    if will_index:
        lines.append(f"✅ {result['indexed']} project(s) indexed in {result['projectsDir']}")
        lines.append(f"📋 Project index updated: {result['projectsIndex']}")
    else:
        lines.append(
            "Nothing was written. Run again with --yes to index these projects in the global brain."
        )
    return _lines(lines)


def handoff(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    return f"mem handoff: wrote {result['file']} ({result['bytes']} bytes)\n"


def consolidate(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    counts = result["counts"]
    lines = [
        f"mem consolidate: {counts['duplicate']} duplicate(s),"
        f" {counts['stale-decision']} stale decision(s),"
        f" {counts['promotion-candidate']} promotion candidate(s). Nothing was changed."
    ]
    for finding in result["findings"]:
        if finding["kind"] == "duplicate":
            lines.append(f"  {finding['id']}  duplicate ({finding['basis']})")
            lines += [
                f"      {markdown.inline(entry['location'])} § {markdown.inline(entry['heading'])}"
                for entry in finding["entries"]
            ]
        elif finding["kind"] == "stale-decision":
            memory = finding["memory"]
            lines.append(
                f"  {finding['id']}  stale decision, {finding['ageDays']} days:"
                f" {markdown.inline(memory['heading'])}"
            )
            lines.append(f"      {markdown.inline(memory['location'])} ({memory['id']})")
        else:
            memory = finding["memory"]
            lines.append(
                f"  {finding['id']}  promotion candidate: {markdown.inline(memory['heading'])}"
                f" (also in {len(finding['projects'])} other project(s))"
            )
        lines.append(f"      proposal: {finding['proposal']}")
    return _lines(lines)


def promote(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    memory = result["memory"]
    what = f"{memory['file']} § {memory['heading']} to {result['target']}"
    if not result["approved"]:
        return _lines(
            [
                f"mem promote: would append {what}:",
                *("  | " + line for line in result["append"].strip("\n").split("\n")),
                "Nothing was written. Run again with --approve --by NAME to apply it.",
            ]
        )
    promotion = result["promotion"]
    return _lines(
        [
            f"mem promote: appended {what}",
            f"  promotion {promotion['id'][:12]} APPLIED, approved by {promotion['approvedBy']};"
            " the project copy is kept",
        ]
    )


def archive(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    span = f"{result['records']} record(s), {result['first']} .. {result['last']}"
    what = f"{result['store']} ({result['bytes']} bytes, {span}) to {result['archive']}"
    if not result["approved"]:
        return _lines(
            [
                f"mem archive: would move {what}",
                "Nothing was moved. Run again with --approve to archive it.",
            ]
        )
    return _lines(
        [
            f"mem archive: moved {what}",
            f"  {result['store']} starts empty",
        ]
    )


def unlock(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    if not result["removed"]:
        return "mem unlock: writer.lock is free; nothing to do.\n"
    owner = result["owner"]
    if owner is None:
        state = "empty" if not result["ownerRecord"] else "unreadable"
        return (
            f"mem unlock: removed writer.lock with an {state} owner record"
            " (a writer was killed before recording itself)\n"
        )
    holder = f"pid {owner['pid']} on {owner['hostname']}"
    return f"mem unlock: removed writer.lock of {holder} (not running)\n"


def index_path(result: dict[str, Any], *, as_json: bool) -> str:
    return _json(result) if as_json else result["path"] + "\n"


def cache_dir(result: dict[str, Any], *, as_json: bool) -> str:
    return _json(result) if as_json else result["directory"] + "\n"


def cache_clean(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    count = len(result["removed"])
    size = result["bytes"]
    text = f"mem cache clean: removed {count} file(s), {size} bytes, from {result['directory']}\n"
    for name in result["kept"]:
        text += (
            f"  kept {name}: an empty lock file another mem may be waiting on (removing it could"
            " let two processes write the index at once); `mem cache clean --all` removes it\n"
        )
    return text


def _index_size(result: dict[str, Any]) -> str:
    commits = f", {result['commits']} commit(s)" if "commits" in result else ""
    return f"{result['files']} file(s), {result['entries']} entries{commits} ({result['path']})"


def index_check(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    if result["ok"]:
        lines = [f"mem index check: ok, {_index_size(result)}"]
    elif not result["cached"]:
        # Nothing in the cache to compare: saying it differs, or was rebuilt, would mislead.
        lines = ["mem index check: the cache cannot hold the index"]
        lines += [f"  {difference}" for difference in result["differences"]]
        lines.append("  Once the cache can be written, the next read builds it there.")
    else:
        count = result["differenceCount"]
        lines = [f"mem index check: the index differs from a fresh build ({count} difference(s))"]
        lines += [f"  {difference}" for difference in result["differences"]]
        lines.append("  `mem index rebuild` replaces it.")
    return _lines(lines + _store_finding_lines(result))


def _store_finding_lines(result: dict[str, Any]) -> list[str]:
    """What readers skip in the stores, record ids that different lines share (D11), and
    stores an archive left (D14)."""
    lines = [
        f"  {_store(found)}:{found['line']}: skipped by readers ({found['reason']})"
        for found in result["damagedLines"]
    ]
    for found in result["sharedIds"]:
        numbers = ", ".join(str(number) for number in found["lines"])
        lines.append(f"  {_store(found)}: id {found['id']} on different lines {numbers}")
    # Deviation D14: what an interrupted archive or a merge left.
    for found in result["interruptedArchives"]:
        lines.append(
            f"  {_store(found)}: still the same file as {found['archive']} (an interrupted"
            f" `mem archive`); its lines count there only. The next write, or"
            f" `mem archive {found['store']} --approve`, finishes the move."
        )
    for found in result["archivedLines"]:
        lines.append(
            f"  {_store(found)}: {found['lines']} line(s) also in its archives (a merge can"
            " bring them back): counted there only"
        )
    return lines


def _store(found: dict[str, Any]) -> str:
    """A store's path; across a portfolio, under its project's folder."""
    return f"{found['project']}/{found['file']}" if "project" in found else str(found["file"])


def index_rebuild(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    return f"mem index rebuild: {_index_size(result)}\n"


def browse(served: dict[str, Any], *, as_json: bool) -> str:
    """What `mem browse` prints once the server listens (with --json one line), then it serves."""
    result = _browse_ready(served)
    return js.stringify(result) + "\n" if as_json else _browse_text(result)


def _browse_ready(served: dict[str, Any]) -> dict[str, Any]:
    return {
        "url": served["url"],
        "root": served["root"],
        "portfolio": served["portfolio"],
        "projects": served["projects"],
        "notes": served["notes"],
        "events": served["events"],
        "problems": [{"part": part, "problem": text} for part, text in served["problems"]],
    }


def _browse_text(result: dict[str, Any]) -> str:
    counts = f"{result['notes']} notes, {result['events']} events"
    if result["portfolio"]:
        what = f"the portfolio of {result['root']} ({result['projects']} projects, {counts})"
    else:
        what = f"{result['root']} ({counts})"
    return _lines([f"mem browse: a read-only snapshot of {what} at", f"  {result['url']}"])


def findability(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return _json(result)
    projects = f" in {result['projects']} project(s)" if "projects" in result else ""
    lines = [
        f"mem check findability: {result['notes']} note(s){projects},"
        f" {result['queries']} quer{'y' if result['queries'] == 1 else 'ies'}"
    ]
    lines.append(
        f"  {'ranking':<10} {'notes top 1':>12} {'top 5':>7} {'queries top 1':>14} {'top 5':>7}"
    )
    for name, figures in result["rankings"].items():
        lines.append(
            f"  {name:<10} {_percent(figures['notesTop1']):>12} {_percent(figures['notesTop5']):>7}"
            f" {_percent(figures['queriesTop1']):>14} {_percent(figures['queriesTop5']):>7}"
        )
    for name, figures in result["rankings"].items():
        if figures["unfound"]:
            lines.append(f"not in the top 5 of any of their queries ({name}):")
            lines += [f"  {_note_place(note)}" for note in figures["unfound"]]
        if figures["shadowed"]:
            lines.append(f"shadowed: another note ranks above for every query ({name}):")
            lines += [
                f"  {_note_place(note)}  <-  {_note_place(note['by'])}"
                for note in figures["shadowed"]
            ]
    if result.get("hiddenByBom"):
        lines.append("never found: a byte order mark before the file's first ### hides the note")
        lines += [f"  {note['file']} § {note['heading']}" for note in result["hiddenByBom"]]
    if result["unqueried"]:
        lines.append("no query to try (a heading of stop words only, no identifier or alias):")
        lines += [f"  {_note_place(note)}" for note in result["unqueried"]]
    for pair in result.get("nearDuplicates", []):
        first, second = pair["notes"]
        similarity = f"{pair['similarity']:.2f}"
        lines.append(
            f"near-duplicate ({similarity}): {_note_place(first)}  =  {_note_place(second)}"
        )
    for name in result.get("belowMinRecall", []):
        lines.append(
            f"{name}: notes in the top 5 {_percent(result['rankings'][name]['notesTop5'])},"
            f" below --min-recall {result['minRecall']}"
        )
    return _lines(lines)


def amendments(result: dict[str, Any], *, as_json: bool) -> str:
    """`mem check amendments`: the likely pairs, each with why and how to retire the older."""
    if as_json:
        return _json(result)
    projects = f" in {result['projects']} project(s)" if "projects" in result else ""
    pairs = result["pairs"]
    lines = [
        f"mem check amendments: {len(pairs)} likely pair(s) among {result['notes']} active"
        f" note(s){projects} (score from {result['threshold']}); confirm each before retiring"
    ]
    for pair in pairs:
        project = f"{pair['project']}: " if "project" in pair else ""
        older, newer = pair["older"], pair["newer"]
        lines.append(f"  {project}{older['id']} {older['file']}: {older['heading']}")
        lines.append(f"    likely amended by {newer['id']} {newer['file']}: {newer['heading']}")
        heading = ", ".join(pair["sharedHeadingTerms"]) or "none"
        lines.append(
            f"    why: score {pair['score']}; terms {', '.join(pair['sharedTerms'])};"
            f" heading words {heading}"
        )
        lines.append(f"    {pair['supersede']}")
    return _lines(lines)


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.1f} %"


def _note_place(note: dict[str, Any]) -> str:
    project = f"{note['project']}: " if "project" in note else ""
    return f"{project}{note['file']}: {note['heading']}"


def doctor_merge(result: dict[str, Any], *, as_json: bool) -> str:
    """`mem doctor merge`: per branch, the memory files a merge with HEAD would conflict in."""
    if as_json:
        return _json(result)
    branches = result["branches"]
    lines = [f"mem doctor merge: {len(branches)} branch(es) merged with HEAD by git merge-tree"]
    for entry in branches:
        conflicts = entry["memoryConflicts"]
        other = entry["otherConflicts"]
        others = f" (and {other} other conflicting file(s))" if other else ""
        if not conflicts:
            lines.append(f"  ok        {entry['branch']}: no memory file conflicts{others}")
            continue
        lines.append(f"  conflict  {entry['branch']}: {len(conflicts)} memory file(s){others}")
        for conflict in conflicts:
            lines.append(f"            {conflict['file']}")
            lines.append(f"              fix: {conflict['fix']}")
    if result["conflicting"]:
        lines.append(f"{result['conflicting']} branch(es) would conflict in memory files.")
    return _lines(lines)


def doctor_hooks(result: dict[str, Any], *, as_json: bool) -> str:
    """`mem doctor hooks`: per host, where mem's hooks are, whether they will run, each fix."""
    if as_json:
        return js.stringify(result) + "\n"
    lines = [f"mem doctor hooks: {result['root']}"]
    for host in result["hosts"]:
        if not host["installed"] and not host["problems"]:
            lines.append(f"  -         {host['host']}: no mem hooks installed")
            continue
        files = ", ".join(f"{item['file']} ({item['scope']})" for item in host["installed"])
        state = "problem" if host["problems"] else "ok"
        lines.append(f"  {state:<9} {host['host']}: {files or 'no mem hooks read'}")
        for problem in host["problems"]:
            lines.append(f"            {problem['problem']}")
            fix = problem["fix"].replace("\n", "\n                   ")
            lines.append(f"              fix: {fix}")
        lines += [f"            note: {note}" for note in host["notes"]]
    if not any(host["installed"] for host in result["hosts"]):
        lines.append("No host has mem's hooks: `mem init --agents --hooks` installs them.")
    if result["problems"]:
        lines.append(f"{result['problems']} problem(s): those hooks will not run until fixed.")
    return _lines(lines)
