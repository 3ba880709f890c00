"""The click-free path for a plain `mem recall`.

Agents run `mem recall` many times a minute, and loading click costs more than answering
a warm recall. So a recall whose arguments are plain (words, known options with values,
`--json`) is parsed here and answered without importing click; everything else (other
actions, help, any unknown or unusual argument, usage errors) goes to the click CLI in
`mem.cli.app`, which owns the whole surface. Both paths render through the same functions.
"""

from __future__ import annotations

from typing import Any

from mem.cli.options import DESTINATION
from mem.files import safe_paths


def plain_recall(args: list[str]) -> tuple[list[str], bool, dict[str, Any]] | None:
    """(words, json, options) of a plain `recall` argument list; None when click must decide."""
    if not args or args[0] != "recall":
        return None
    words: list[str] = []
    as_json = False
    options: dict[str, Any] = {destination: None for destination in DESTINATION.values()}
    options["projects"] = ()  # --scope all: --project NAME, repeatable
    position = 1
    while position < len(args):
        token = args[position]
        if token == "--json":
            as_json = True
        elif token == "--project" and position + 1 < len(args):
            options["projects"] = (*options["projects"], args[position + 1])
            position += 1
        elif token in DESTINATION:
            if position + 1 == len(args):
                return None
            options[DESTINATION[token]] = args[position + 1]
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
    from mem import clock, render
    from mem.commands import recall

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
        projects=tuple(options.get("projects") or ()),
        include_retired=bool(options.get("include_retired")),
    )
    root = safe_paths.project_root(options["directory"])
    if request.scope == "all":
        return _portfolio_output(root, request, as_json)
    results = recall.recall(root, request, clock.now_iso())
    if as_json:
        return render.recall_json(query, request.scope, request.ranking, results)
    return render.recall_text(query, request.scope, results)


def _portfolio_output(root: str, request: Any, as_json: bool) -> str:
    import sys

    from mem import clock, render
    from mem.cli import progress
    from mem.commands import recall

    with progress.Progress("mem recall: syncing the portfolio index") as shown:
        answer = recall.recall_portfolio(root, request, clock.now_iso(), shown.sync_step)
    if as_json:
        return render.recall_json(
            request.query, request.scope, request.ranking, answer.entries, answer.skipped
        )
    sys.stderr.write(render.skipped_text(answer.skipped))
    return render.recall_text(request.query, request.scope, answer.entries)
