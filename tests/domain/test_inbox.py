"""How `mem import` finds the note a candidate amends (mem.domain.inbox.NearNotes)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mem.core.ranking import amendments
from mem.domain import inbox

WORDS = st.sampled_from(
    "pool postgres connection pgbouncer retry budget jitter release freeze deploy cache"
    " token refresh session database migration mocked integration tests branch".split()
)
TEXTS = st.tuples(
    st.lists(WORDS, min_size=1, max_size=6).map(" ".join),
    st.lists(WORDS, min_size=0, max_size=30).map(" ".join),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, min_size=2, max_size=8))
def test_the_cheap_bound_never_drops_a_note_the_measure_keeps(texts: list[tuple[str, str]]) -> None:
    near = inbox.NearNotes(texts)
    subjects = [near.subject(heading, text) for heading, text in texts]
    for one in subjects:
        for two in subjects:
            assert inbox._likeness_at_most(one, two) >= amendments.likeness(one, two).score


def test_a_restated_note_is_offered_as_its_amendment_and_a_sibling_is_not() -> None:
    notes = [
        ("Use pgbouncer for postgres pooling", "Transaction mode, one pool per service."),
        ("Cap outbound retries at three", "With jitter, so that callers do not stampede."),
        ("Freeze main before a release", "No merges in the two days before a release."),
    ]
    restated = ("Postgres pooling goes through pgbouncer", "Transaction mode, a pool per service.")
    sibling = ("Use pgbouncer's session mode for the reporting job", "It holds a long cursor.")
    near = inbox.NearNotes([*notes, restated, sibling])
    for heading, text in notes:
        near.add(near.subject(heading, text), {"heading": heading})
    found = near.nearest(near.subject(*restated))
    assert found is not None and found["heading"] == notes[0][0]
    assert found["likeness"] >= inbox.NEAR
    assert near.nearest(near.subject(*sibling)) is None
