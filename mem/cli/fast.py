"""The click-free path for a plain `mem recall`.

Agents run `mem recall` many times a minute, and loading click costs more than answering
a warm recall. So a recall whose arguments commander would accept (mem.cli.commander reads
them, as the click CLI does) is answered here without importing click; everything else
(other actions, help, version, any unknown option, usage errors) goes to the click CLI in
`mem.cli.app`, which owns the whole surface. Both paths render through the same functions.
"""

from __future__ import annotations

import sys

from mem.cli import commander
from mem.cli.options import DESTINATION, LEGACY_TABLE
from mem.files import safe_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# recall's own flags that the fast path reads too (the legacy table does not know them).
FAST_FLAGS = {"--include-history": "include_history"}


def plain_recall(args: list[str]) -> tuple[list[str], bool, dict[str, Any]] | None:
    """(words, json, options) of a plain `recall` argument list; None when click must decide."""
    flags = dict.fromkeys(FAST_FLAGS.values(), False)
    kept = []
    for position, arg in enumerate(args):
        if arg == "--":
            kept += args[position:]
            break
        if arg in FAST_FLAGS and (position == 0 or args[position - 1] not in DESTINATION):
            flags[FAST_FLAGS[arg]] = True
        else:
            kept.append(arg)
    parsed = commander.parse(kept, LEGACY_TABLE)
    if parsed.error or parsed.unknown or parsed.operands[:1] != ["recall"]:
        return None
    if "version" in parsed.values:
        return None
    options: dict[str, Any] = {destination: None for destination in DESTINATION.values()}
    options.update((key, value) for key, value in parsed.values.items() if key != "json")
    options.update(flags)
    return parsed.operands[1:], parsed.values.get("json") is True, options


def recall_output(
    words: list[str] | tuple[str, ...],
    as_json: bool,
    options: dict[str, Any],
    include_archive: bool = False,
) -> str:
    from mem import clock
    from mem.commands import recall
    from mem.render import action_views

    query = " ".join(words)
    root = safe_paths.project_root(options["directory"])
    scope = options["scope"] or "project"
    asked_history = bool(options.get("include_history"))

    def recalled(progress: Any = None) -> Any:
        return recall.recall(
            root,
            query,
            clock.now_iso(),
            scope=scope,
            ranking=options["ranking"],
            include_history=asked_history,
            progress=progress,
            portfolio=options["portfolio"],
            limit=options["limit"],
            context_scope=options["context_scope"],
            include_archive=include_archive,
            with_evidence=bool(options.get("with_evidence")),
            include_retired=bool(options.get("include_retired")),
            explain=bool(options.get("explain")),
            projects=tuple(options.get("projects") or ()),
        )

    if scope == "all":  # the skipped projects go to stderr in text, into the JSON else
        from mem.cli import progress

        with progress.Progress("mem recall: syncing the portfolio index") as shown:
            found = recalled(shown.sync_step)
        sys.stderr.write(action_views.recall_skipped(found.skipped, as_json=as_json))
    else:
        found = recalled()
    if found.history_problem is not None and asked_history:
        sys.stderr.write(f"mem recall: warning: no commits ranked: {found.history_problem}\n")
    return action_views.recall(
        query,
        scope,
        found.request.ranking,
        found.entries,
        as_json=as_json,
        skipped=found.skipped if as_json and scope == "all" else None,
    )
