"""Editing a stretch of a notes file re-syncs to exactly what a fresh build holds.

The re-sync keeps the sections before and after the edited stretch by their digests and
parses only the stretch; these histories insert, delete, replace and repeat sections
anywhere in a file, in valid UTF-8 and not.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.indexes import assert_versions_resync_as_fresh

from mem.core.text import parse

# A project's memory file (notes with ids and revisions), and a brain's notes (without).
WHERE = [("project", ".bmad/memory/decisions.md"), ("brain", "decisions.md")]

section = st.tuples(
    st.sampled_from(["### ", "###\t", "###\u00a0", "#### ", "###\u3000", "###"]),
    st.sampled_from(["cache", "pool", "café", "the cache", "", "x\r"]),
    st.sampled_from(["", "postgres\n", "the pool — redis\n", "\n\n", "### \n"]),
).map(lambda parts: f"{parts[0]}{parts[1]}\n{parts[2]}")
sections = st.lists(section, max_size=12)
edit = st.tuples(
    st.integers(min_value=0, max_value=12),  # where
    st.integers(min_value=0, max_value=3),  # how many sections go
    st.lists(section, max_size=3),  # what comes instead
)


def _bytes(preamble: bytes, parts: list[str]) -> bytes:
    return preamble + "".join(parts).encode()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sections,
    st.lists(edit, min_size=1, max_size=4),
    st.sampled_from([b"", b"# Decisions\n\n", b"\xff broken UTF-8\n"]),
    st.sampled_from(WHERE),
)
def test_edited_stretches_resync_to_a_fresh_build(
    start: list[str],
    edits: list[tuple[int, int, list[str]]],
    preamble: bytes,
    where: tuple[str, str],
) -> None:
    def versions() -> Iterator[bytes]:
        parts = list(start)
        yield _bytes(preamble, parts)
        for at, gone, instead in edits:
            parts[at : at + gone] = instead
            yield _bytes(preamble, parts)

    assert_versions_resync_as_fresh(*where, versions())


ALPHABET = "ab #\n\r\t\u00a0\u2028\u2029\u3000\ufeff\u1680é—😀"
texts = st.text(alphabet=st.sampled_from(list(ALPHABET)), max_size=60)


@settings(max_examples=300)
@given(texts)
def test_section_bounds_in_utf8_are_those_of_the_text(content: str) -> None:
    encoded = content.encode()
    by_text = [
        (len(content[:start].encode()), len(content[:end].encode()))
        for start, end in parse.section_bounds(content)
    ]
    assert parse.utf8_section_bounds(encoded) == by_text


@settings(max_examples=300)
@given(texts)
def test_sections_start_where_their_sources_do(content: str) -> None:
    starts = [spans[4] for _, _, _, spans in parse.sections(content)]
    assert starts == [start for start, _ in parse.section_bounds(content)]
