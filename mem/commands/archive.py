"""`mem archive STORE`: move a full NDJSON store under `.bmad/memory/` whole into archive/."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.text import ndjson
from mem.errors import MemError
from mem.files import archives, index_sources, locking, machine_paths, safe_paths, team, writing

STORES = layout.ARCHIVABLE
ARCHIVE_DIR = layout.ARCHIVE_DIR
# Where each kind of record keeps its time; the first present one names the archive.
TIME_KEYS = ("ts", "observedAt", "recordedAt", "createdAt")


def store_path(name: str) -> str:
    if name not in STORES:
        raise MemError(f"Unknown store: {name} (expected {', '.join(STORES)}).")
    return STORES[name]


def record_times(content: str) -> list[str]:
    """Pure: the time of every parseable record, in file order."""
    times = []
    for _, line in ndjson.distinct_lines(content):
        try:
            record = js.parse_json(js.trim(line))
        except ValueError:
            continue
        if isinstance(record, dict):
            for key in TIME_KEYS:
                value = record.get(key)
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    times.append(value if isinstance(value, str) else js.number_to_string(value))
                    break
    return times


def archive_name(name: str, times: list[str], fallback: str) -> str:
    """`<name>-<first ts>--<last ts>.ndjson`, with the colons a file name cannot hold removed."""
    first, last = (times[0], times[-1]) if times else (fallback, fallback)

    def safe(ts: str) -> str:
        return "".join(ch for ch in ts if ch.isalnum() or ch in "-._") or "unknown"

    return f"{name}-{safe(first)}--{safe(last)}.ndjson"


def archive(root: str, name: str, approve: bool, now: str) -> dict[str, Any]:
    """Move a store whole into archive/ (never replacing an archive) and start an empty one.

    A move that stopped between its link and its unlink (the store is still its archive's
    file) is finished instead: run again, the command completes what it began.
    """
    relative = store_path(name)
    shards = team.team_shards(root, relative)
    if shards:
        raise MemError(
            f"{relative} has {len(shards)} team-layout shard(s) in"
            f" {team.SHARD_FOLDERS[relative]}/; mem archive does not move shards (each holds"
            " one writer's month). Nothing was archived."
        )
    # A dry run reads only; the move happens under the lock every writer of the store takes.
    with locking.writer_lock(root) if approve else contextlib.nullcontext():
        path = safe_paths.safe_path(root, relative)
        info = machine_paths.file_info(path)
        if info is not None and not stat.S_ISREG(info.st_mode):
            # A FIFO or device reports a size of 0; reading one could block forever.
            raise MemError(f"{relative} is not a regular file; inspect it. Nothing was archived.")
        if info is None or info.st_size == 0:
            raise MemError(f"{relative} is empty; there is nothing to archive.")
        content = index_sources.read_source(path).decode("utf-8", errors="replace")
        interrupted = archives.linked_archive(root, relative)
        if interrupted is None and ndjson.has_conflict_markers(content):
            # As every writer: what the merge left is for a person to resolve first.
            raise MemError(ndjson.CONFLICTED)
        times = record_times(content)
        target = interrupted or _free_name(root, archive_name(name, times, now))
        result: dict[str, Any] = {
            "store": relative,
            "archive": target,
            "bytes": info.st_size,
            "records": len(times),
            "first": times[0] if times else None,
            "last": times[-1] if times else None,
            "approved": approve,
        }
        if approve:
            if interrupted is None:
                writing.move_without_replace(root, relative, target)
            else:
                writing.finish_interrupted_archive(root, relative)
            writing.create_new(root, relative, "")
    return result


def _free_name(root: str, base: str) -> str:
    """archive/<base>, or with -2, -3... before .ndjson when that name is taken."""
    target = f"{ARCHIVE_DIR}/{base}"
    taken = set(safe_paths.list_names(root, ARCHIVE_DIR))
    number = 2
    while os.path.basename(target) in taken:
        target = f"{ARCHIVE_DIR}/{base.removesuffix('.ndjson')}-{number}.ndjson"
        number += 1
    return target
