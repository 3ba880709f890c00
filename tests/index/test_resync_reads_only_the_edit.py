"""A re-sync of a big notes file reads only the stretch an edit touched, and still equals a
fresh build.

The stretch is found from digests of the file's blocks (resync.BLOCK bytes); these tests
shrink the blocks to a few bytes so that every edit lands near block and heading edges:
sections inserted, deleted, moved, duplicated; bytes spliced anywhere (CRLF, bare "###",
"####", Unicode blanks, broken UTF-8); files truncated, grown and prefixed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import indexes
from support.indexes import assert_versions_resync_as_fresh

from mem import index
from mem.index import records, resync

WHERE = [("project", ".bmad/memory/decisions.md"), ("brain", "decisions.md")]

section = st.tuples(
    st.sampled_from(["### ", "###\t", "###\u00a0", "#### ", "###\u3000", "###", "### \r"]),
    st.sampled_from(["cache", "pool", "café", "the cache", "", "x\r"]),
    st.sampled_from(["", "postgres\n", "the pool — redis\r\n", "\n\n", "### \n", "###\n"]),
).map(lambda parts: f"{parts[0]}{parts[1]}\n{parts[2]}")
PIECES = [
    b"\n",
    b"#",
    b"### ",
    b"\n### ",
    b"\r\n",
    b" ",
    b"\xc2\xa0",
    b"x",
    b"\xff",
    b"\xe3",
    b"\xc2",
    b"\xa0",
    b"\xe2\x80",
]


def splice(data: bytes, at: int, gone: int, pieces: list[bytes]) -> bytes:
    at = min(at, len(data))
    return data[:at] + b"".join(pieces) + data[at + gone :]


def as_sections(parts: list[str]) -> str:
    return "".join(part if part.endswith("\n") else part + "\n" for part in parts)


section_edit = st.one_of(
    # replace `gone` sections at `where` by others
    st.tuples(
        st.just("replace"), st.integers(0, 40), st.integers(0, 3), st.lists(section, max_size=3)
    ),
    # move a section elsewhere
    st.tuples(st.just("move"), st.integers(0, 40), st.integers(0, 40), st.just([])),
    # duplicate a section in place
    st.tuples(st.just("duplicate"), st.integers(0, 40), st.integers(1, 3), st.just([])),
)
byte_edit = st.tuples(
    st.just("bytes"),
    st.integers(0, 4000),
    st.integers(0, 12),
    st.lists(st.sampled_from(PIECES), max_size=4),
)
truncate = st.tuples(st.just("truncate"), st.integers(0, 4000), st.just(0), st.just([]))
prefix = st.tuples(st.just("prefix"), st.just(0), st.just(0), st.lists(section, max_size=2))
edits = st.lists(st.one_of(section_edit, byte_edit, truncate, prefix), min_size=1, max_size=4)


def apply_edit(
    parts: list[str], data: bytes, edit: tuple[str, int, int, list]
) -> tuple[list[str], bytes]:
    kind, where, amount, what = edit
    if kind == "bytes":
        return parts, splice(data, where, amount, what)
    if kind == "truncate":
        return parts, data[: min(where, len(data))]
    if kind == "prefix":
        return parts, as_sections(what).encode() + data
    parts = list(parts)
    if kind == "replace":
        parts[where : where + amount] = what
    elif kind == "move" and parts:
        moved = parts.pop(where % len(parts))
        parts.insert(amount % (len(parts) + 1), moved)
    elif kind == "duplicate" and parts:
        at = where % len(parts)
        parts[at:at] = [parts[at]] * amount
    return parts, as_sections(parts).encode()


@contextmanager
def blocks_of(size: int) -> Iterator[None]:
    before = resync.BLOCK
    resync.BLOCK = size
    try:
        yield
    finally:
        resync.BLOCK = before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(section, min_size=0, max_size=40),
    edits,
    st.sampled_from([1, 3, 8, 16, 64]),
    st.sampled_from([b"", b"# Decisions\r\n\r\n", b"###\n"]),
    st.sampled_from(WHERE),
)
def test_edits_near_block_and_heading_edges_resync_to_a_fresh_build(
    start: list[str],
    history: list[tuple[str, int, int, list]],
    block: int,
    preamble: bytes,
    where: tuple[str, str],
) -> None:
    def versions() -> Iterator[bytes]:
        parts, data = list(start), preamble + as_sections(start).encode()
        yield data
        for edit in history:
            parts, data = apply_edit(parts, data, edit)
            yield data

    with blocks_of(block):
        assert_versions_resync_as_fresh(*where, versions())


@pytest.mark.parametrize("change", ["same size", "longer", "shorter"])
def test_an_edit_parses_only_the_sections_near_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "project" / ".bmad" / "memory" / "decisions.md"
    path.parent.mkdir(parents=True)
    notes = [f"### note {number}\nbody of note {number} about caches\n" for number in range(2000)]
    path.write_text("".join(notes), encoding="utf-8")
    with indexes.synced(str(tmp_path / "project")):
        pass
    edited = {
        "same size": "### NOTE 1000\n",
        "longer": "### note 1000 and more\n",
        "shorter": "### n\n",
    }
    notes[1000] = edited[change] + notes[1000].split("\n", 1)[1]
    path.write_text("".join(notes), encoding="utf-8")
    os.utime(path, ns=(1_700_000_000 * 10**9,) * 2)
    parsed = []
    real = records.note_record

    def counted(*args: object, **kwargs: object) -> index.RecordRow:
        parsed.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(records, "note_record", counted)
    monkeypatch.setattr(records, "note_digests", None)  # the whole file is not split again
    with indexes.synced(str(tmp_path / "project")) as (conn, _):
        headings = [row[0] for row in conn.execute("SELECT ref FROM records ORDER BY ordinal")]
    assert len(parsed) == 1
    assert headings[1000] == edited[change][4:-1]
    assert headings[999] == "note 999" and headings[1001] == "note 1001"
    assert len(headings) == 2000
