"""The `mem` executable.

Agents run `mem recall` many times a minute, and loading click costs more than answering
a warm recall. So a recall whose arguments are plain (words, known options with values,
`--json`) is parsed here and answered without importing click; everything else (other
actions, help, any unknown or unusual argument, usage errors) goes to the click CLI in
`mem.cli`, which owns the whole surface. Both paths render through the same functions.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

# commander's option table of `bmad-plus mem`: every legacy action accepts all of them.
LEGACY_OPTIONS: list[tuple[tuple[str, ...], str, str]] = [
    (("-d", "--directory"), "<path>", "Project directory (default: the current directory)."),
    (("--scope",), "<scope>", "recall: project or portfolio."),
    (("--portfolio",), "<path>", "recall: the portfolio brain (default: the linked brain)."),
    (("--limit",), "<n>", "recall: results to show, 1 to 1000 (default 8)."),
    (("--ranking",), "<mode>", "recall: lexical or evidence."),
    (("--context-scope",), "<paths>", "recall --ranking evidence: comma-separated project paths."),
    (("--input",), "<file>", "observe: project-relative JSON observation."),
    (("--agent",), "<name>", "write: the agent that acted."),
    (("--cli",), "<name>", "write: the coding CLI."),
    (("--model",), "<id>", "write: the model."),
    (("--task",), "<text>", "write: what was done."),
    (("--outcome",), "<outcome>", "write: success, failure, partial or abandoned."),
    (("--pattern",), "<id>", "reinforce: the pattern heading in patterns.md."),
    (("--eval",), "<score>", "write/reinforce signal: evaluation score 0..1."),
    (("--accept",), "<bool>", "write/reinforce signal: accepted (true/false/yes/no or 0..1)."),
    (("--ci",), "<result>", "write/reinforce signal: pass, fail or 0..1."),
    (("--evidence",), "<ids>", "reinforce: comma-separated evidence ids."),
]
_DESTINATION = {
    name: names[-1].lstrip("-").replace("-", "_")
    for names, _, _ in LEGACY_OPTIONS
    for name in names
}


def plain_recall(args: list[str]) -> tuple[list[str], bool, dict[str, Any]] | None:
    """(words, json, options) of a plain `recall` argument list; None when click must decide."""
    if not args or args[0] != "recall":
        return None
    words: list[str] = []
    as_json = False
    options: dict[str, Any] = {destination: None for destination in _DESTINATION.values()}
    position = 1
    while position < len(args):
        token = args[position]
        if token == "--json":
            as_json = True
        elif token in _DESTINATION:
            if position + 1 == len(args):
                return None
            options[_DESTINATION[token]] = args[position + 1]
            position += 1
        elif token.startswith("-"):
            return None
        else:
            words.append(token)
        position += 1
    return words, as_json, options


def recall_output(
    words: list[str] | tuple[str, ...],
    as_json: bool,
    options: dict[str, Any],
    include_archive: bool = False,
) -> str:
    from mem import clock, files, recall, render

    query = " ".join(words)
    request = recall.Request(
        query=query,
        scope=options["scope"] or "project",
        portfolio=options["portfolio"],
        limit=options["limit"],
        ranking=options["ranking"] or "lexical",
        context_scope=options["context_scope"],
        include_archive=include_archive,
        with_evidence=bool(options.get("with_evidence")),
    )
    results = recall.recall(files.project_root(options["directory"]), request, clock.now_iso())
    if as_json:
        return render.recall_json(query, request.scope, request.ranking, results)
    return render.recall_text(query, request.scope, results)


def main() -> NoReturn:
    parsed = plain_recall(sys.argv[1:])
    if parsed is None:
        from mem import cli

        cli.main()
    from mem import render
    from mem.errors import MemError

    words, as_json, options = parsed
    try:
        output = recall_output(words, as_json, options)
    except MemError as error:
        stream, text = render.action_error("recall", str(error), as_json)
        (sys.stdout if stream == "stdout" else sys.stderr).write(text)
        sys.exit(1)
    sys.stdout.write(output)
    sys.exit(0)
