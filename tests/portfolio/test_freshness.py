"""The portfolio's freshness check names each stale root, and recall then answers as it is.

Each root's watched paths are stat'ed and compared with the signature it kept: a root
written since the last sync is stale, and only it; a root removed is stale once, then
missing until its folder is back; a changed brain has every root reconciled; a root
synced within the racy window is stale at every check until it settles.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from support.indexes import cache_at
from support.portfolios import (
    audited_portfolio,
    audited_project,
    event,
    found_texts,
    register,
    stale_roots,
)
from support.trees import age, age_tree, write

from mem.files import index_sources

EVERY_ROOT: set[str] = set()  # the check's answer when the brain changed


def _settled_portfolio(tmp_path: Path) -> tuple[Path, list[Path]]:
    brain, roots = audited_portfolio(tmp_path)
    shutil.rmtree(roots[2])  # a registered project that disappeared
    return brain, roots


def test_a_signature_packs_every_watched_path_even_one_that_cannot_be_stated(
    tmp_path: Path,
) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "notes.md").write_text("notes\n")
    # A dangling link is watched (it is there) but cannot be stat'ed; a path can vanish.
    (tmp_path / "memory" / "linked.md").symlink_to(tmp_path / "nowhere.md")
    watched = ["memory", "memory/linked.md", "memory/notes.md", "memory/gone.md"]
    signature = index_sources.watch_signature(str(tmp_path), watched)
    size = index_sources.SIGNATURE_BYTES
    assert len(signature) == len(watched) * size
    readable = index_sources.watch_signature(str(tmp_path), ["memory", "memory/notes.md"])
    assert readable == signature[:size] + signature[2 * size : 3 * size]


def test_nothing_changed_is_fresh(tmp_path: Path) -> None:
    brain, _ = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        assert stale_roots(brain, tmp_path / "cache") is None


def test_a_root_written_since_the_last_sync_is_stale_and_only_it(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        assert not found_texts(brain, "zeppelin")
        write(roots[1] / ".agents/memory/decisions.md", "# Decisions\n\n### Zeppelin\nfly it\n")
        age_tree(roots[1])  # the new file's folder too: then the root settles at this sync
        assert stale_roots(brain, tmp_path / "cache") == {"project-1"}
        assert found_texts(brain, "zeppelin") == {("project-1", "Zeppelin\nfly it")}
        assert stale_roots(brain, tmp_path / "cache") is None


def test_an_edit_that_keeps_size_and_mtime_makes_its_root_stale(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        target = roots[1] / ".agents/memory/lessons.md"
        before = target.stat()
        with target.open("r+b") as handle:  # same size, same mtime: only ctime moves
            handle.write(b"#")
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert stale_roots(brain, tmp_path / "cache") == {"project-1"}


def test_a_source_that_appears_is_watched_by_the_next_check(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    with cache_at(str(tmp_path / "cache")):
        found_texts(brain, "pgbouncer")
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Zeppelin\nfly it\n")
        age_tree(roots[0])
        assert stale_roots(brain, tmp_path / "cache") == {"project-0"}
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nfly it")}
        assert stale_roots(brain, tmp_path / "cache") is None
        write(roots[0] / ".agents/memory/patterns.md", "# Patterns\n\n### Dirigible\nland\n")
        assert stale_roots(brain, tmp_path / "cache") == {"project-0"}
        assert found_texts(brain, "dirigible") == {("project-0", "Dirigible\nland")}


def test_a_removed_root_is_stale_once_then_missing_until_it_is_back(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        assert ("project-1", "Pool connections\nuse pgbouncer for postgres") in found_texts(
            brain, "pgbouncer"
        )
        shutil.rmtree(roots[1])
        assert stale_roots(brain, cache) == {"project-1"}
        assert not any(name == "project-1" for name, _ in found_texts(brain, "pgbouncer"))
        assert stale_roots(brain, cache) is None  # missing, and checked by one folder test
        audited_project(roots[1], "project-1")
        age_tree(roots[1])
        assert stale_roots(brain, cache) == {"project-1"}
        assert any(name == "project-1" for name, _ in found_texts(brain, "pgbouncer"))
        assert stale_roots(brain, cache) is None


def test_a_missing_project_that_comes_back_is_stale(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        assert not any(name == "project-2" for name, _ in found_texts(brain, "pgbouncer"))
        assert stale_roots(brain, cache) is None
        audited_project(roots[2], "project-2")
        age_tree(roots[2])
        assert stale_roots(brain, cache) == {"project-2"}
        assert any(name == "project-2" for name, _ in found_texts(brain, "pgbouncer"))


def test_a_changed_brain_has_every_root_reconciled(tmp_path: Path) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        found_texts(brain, "pgbouncer")
        write(brain / "lessons.md", "# Lessons\n\n### Zeppelin\nbrain notes\n")
        assert stale_roots(brain, cache) == EVERY_ROOT
        assert found_texts(brain, "zeppelin") == {("_brain", "Zeppelin\nbrain notes")}
        assert stale_roots(brain, cache) is None
        newcomer = tmp_path / "newcomer"
        write(newcomer / ".bmad/memory/lessons.md", "# Lessons\n\n### Zeppelin\nfly it\n")
        age_tree(newcomer)
        entry = register(brain, newcomer.resolve(), name="newcomer")
        age(entry.parent)
        assert stale_roots(brain, cache) == EVERY_ROOT
        assert ("newcomer", "Zeppelin\nfly it") in found_texts(brain, "zeppelin")
        entry.unlink()
        age(entry.parent)
        assert stale_roots(brain, cache) == EVERY_ROOT
        assert found_texts(brain, "zeppelin") == {("_brain", "Zeppelin\nbrain notes")}


def test_a_root_synced_within_the_racy_window_stays_stale_until_it_settles(
    tmp_path: Path,
) -> None:
    brain, roots = _settled_portfolio(tmp_path)
    cache = tmp_path / "cache"
    with cache_at(str(cache)):
        found_texts(brain, "pgbouncer")
        # Written just now: its stat cannot vouch for its bytes until it settles, so it is
        # read again at every check until then; the other roots are still checked.
        (roots[0] / ".bmad/memory/decisions.md").write_text("# Decisions\n\n### Zeppelin\nx\n")
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nx")}
        assert stale_roots(brain, cache) == {"project-0"}
        write(roots[1] / ".agents/memory/lessons.md", "# Lessons\n\n### Airship\nland it\n", 7)
        assert stale_roots(brain, cache) == {"project-0", "project-1"}
        assert found_texts(brain, "airship") == {("project-1", "Airship\nland it")}
        assert stale_roots(brain, cache) == {"project-0"}
        age_tree(roots[0])
        age(roots[0] / ".bmad/memory/decisions.md")
        assert found_texts(brain, "zeppelin") == {("project-0", "Zeppelin\nx")}
        assert stale_roots(brain, cache) is None


def test_a_team_projects_new_shard_and_note_file_make_it_stale(tmp_path: Path) -> None:
    """Deviation D13: shards and note files are found by listing their folders, so a new
    one in a folder that is there already makes its root stale."""
    brain, roots = _settled_portfolio(tmp_path)
    write(roots[1] / ".agents/memory/mem.toml", 'layout = "team"\n')
    shard = roots[1] / ".bmad/memory/journal.d/2026-10/w1.ndjson"
    write(shard, event("2026-10-01T10:00:00.000Z", "forge", "zeppelin flight"))
    notes = roots[1] / ".agents/memory/lessons"
    write(notes / "2026-10-02-x-w1.md", "### Dirigible\nland\n")
    age_tree(roots[1])
    time.sleep(2.1)  # ctimes cannot be aged: wait until the files count as plain ones
    with cache_at(str(tmp_path / "cache")):
        assert {root for root, _ in found_texts(brain, "zeppelin")} == {"project-1"}
        assert stale_roots(brain, tmp_path / "cache") is None
        write(shard.with_name("w2.ndjson"), event("2026-10-02T10:00:00.000Z", "a", "zeppelin"))
        assert stale_roots(brain, tmp_path / "cache") == {"project-1"}
        assert len(found_texts(brain, "zeppelin")) == 2
        age_tree(roots[1])
        time.sleep(2.1)
        found_texts(brain, "zeppelin")
        assert stale_roots(brain, tmp_path / "cache") is None
        write(notes / "2026-10-03-y-w1.md", "### Blimp\nfloat\n")
        assert stale_roots(brain, tmp_path / "cache") == {"project-1"}
        assert found_texts(brain, "blimp") == {("project-1", "Blimp\nfloat")}
