"""A journal line appended again is still one event (deviation D11), as a fresh build finds.

The append path only looks a new line up among the indexed ones when its bytes stand
somewhere above; these cases make sure that shortcut never changes the index.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import indexes

from mem.index import snapshots

JOURNAL = ".bmad/memory/journal.ndjson"
FIRST = b'{"ts":"2026-10-01T08:00:00.000Z","agent":"forge","task":"tune the pool"}\n'
LONGER = b'{"ts":"2026-10-02T08:00:00.000Z","agent":"forge","task":"x","note":"tune"}\n'


def _events_after_appends(
    monkeypatch: pytest.MonkeyPatch, root: Path, start: bytes, appends: list[bytes]
) -> list[str]:
    path = root / JOURNAL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(start)
    with indexes.synced(str(root)):
        pass
    for step, tail in enumerate(appends):
        with path.open("ab") as handle:
            handle.write(tail)
        stamp = (1_700_000_000 + step) * 10**9
        os.utime(path, ns=(stamp, stamp))
        with indexes.synced(str(root)) as (conn, report):
            assert report.appended == 1
            incremental = snapshots.snapshot(conn)
            lines = [row[0] for row in conn.execute("SELECT line FROM records ORDER BY ordinal")]
    monkeypatch.setenv("MEM_CACHE_DIR", str(root.parent / "fresh"))
    with indexes.synced(str(root)) as (conn, _):
        assert snapshots.snapshot(conn) == incremental
    return lines


def test_a_repeated_line_stays_one_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _events_after_appends(monkeypatch, tmp_path / "p", FIRST, [FIRST, b"  " + FIRST])
    assert len(lines) == 1


@pytest.mark.parametrize("broken", [b"\xff", b"\xe2\x80"])
def test_a_repeated_line_with_invalid_utf8_stays_one_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: bytes
) -> None:
    line = b'{"ts":"2026-10-01T08:00:00.000Z","agent":"forge","task":"' + broken + b'"}\n'
    lines = _events_after_appends(monkeypatch, tmp_path / "p", FIRST + line, [line])
    assert len(lines) == 2


def test_a_line_standing_inside_a_longer_one_is_a_new_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = b'{"ts":"2026-10-02T08:00:00.000Z","agent":"forge","task":"x"}\n'
    lines = _events_after_appends(monkeypatch, tmp_path / "p", LONGER, [inner])
    assert len(lines) == 2
