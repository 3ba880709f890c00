"""`mem audit --secrets` and the secrets line of `mem status`: never a value. Pure.

Like every view in mem/render: `view(values..., *, as_json) -> str`, the exact bytes.
"""

from __future__ import annotations

from typing import Any

from mem.core.javascript import js


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def audit(result: dict[str, Any], *, as_json: bool) -> str:
    if as_json:
        return js.stringify_pretty(result) + "\n"
    lines = [
        f"{item['file']}:{item['line']}:{item['column']}: {item['kind']} ({item['label']})"
        for item in result["findings"]
    ]
    lines += [
        f"{item['file']}:{item['line']}:{item['column']}: {item['kind']} ({item['label']})"
        for item in result["examples"]
    ]
    lines += [f"skipped {item['file']}: {item['reason']}" for item in result["skipped"]]
    lines += [
        f"missing project {path} (registered in the brain)" for path in result["missingProjects"]
    ]
    scanned = _plural(result["scanned"], "file", "files")
    if result["count"]:
        lines.append(
            f"{_plural(result['count'], 'possible secret', 'possible secrets')} in "
            f"{result['files']} of {scanned} (values are never shown). Remove each from the file"
            " and from git history; for a false positive, mem writes it with --allow-secret KIND."
        )
    else:
        lines.append(f"No possible secret in {scanned}.")
    if result["skipped"]:
        lines.append(
            f"{_plural(len(result['skipped']), 'file', 'files')} not read (listed above): the"
            " audit fails, since it cannot vouch for them."
        )
    if result["examples"]:
        count = len(result["examples"])
        shown = _plural(
            count, "documentation example or placeholder", "documentation examples or placeholders"
        )
        lines.append(
            f"Also listed: {shown} of a secret's format (example-KIND), not counted:"
            f" {'it is not a secret' if count == 1 else 'they are not secrets'}."
        )
    return "\n".join(lines) + "\n"


def status_line(summary: dict[str, int]) -> str:
    scanned = _plural(summary["scanned"], "memory file", "memory files")
    unread = f", {summary['skipped']} not read" if summary["skipped"] else ""
    if not summary["findings"]:
        line = f"🔑 Secrets: none found in {scanned}{unread}"
        return f"{line} (mem audit --secrets)" if unread else line
    found = _plural(summary["findings"], "possible secret", "possible secrets")
    return f"🔑 Secrets: {found} in {summary['files']} of {scanned}{unread} (mem audit --secrets)"
