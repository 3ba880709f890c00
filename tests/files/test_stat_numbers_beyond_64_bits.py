"""A stat number beyond 64 bits (an inode on some file systems) still gives a signature."""

from __future__ import annotations

import operator
from pathlib import Path

import pytest

from mem.files import index_sources


def test_a_number_beyond_64_bits_is_spelled_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.md").write_text("x")
    plain = index_sources.watch_signature(str(tmp_path), ["notes.md"])
    assert len(plain) == index_sources.SIGNATURE_BYTES

    def huge(info: object) -> tuple[int, ...]:
        numbers: tuple[int, ...] = operator.attrgetter("st_size", "st_mtime_ns")(info)
        return (*numbers, 0, 2**64 + 1, 0)

    monkeypatch.setattr(index_sources, "_STAT_FIELDS", huge)
    spelled = index_sources.watch_signature(str(tmp_path), ["notes.md"])
    assert str(2**64 + 1).encode() in spelled
