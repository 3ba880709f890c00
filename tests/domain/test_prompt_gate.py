"""The prompt hook's gate (issue 33): a long bug report brings the note that governs it from
a large log, an unrelated report brings nothing, even one sharing a few rare words with a
note, and a short question brings nothing from a project that only shares a word with it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mem.domain import brief, prompt_gate

COMMON = """search file files output flag option error line lines match matches print path
directory config version windows linux macos binary pattern regex color context count default
glob ignore hidden encoding terminal stdin performance test docs release build crate deps
update case word""".split()

FIX = "printer: fix duplicated lines when --replace meets --multiline and --passthru"
REPORT = (  # a user's words: the setup first, the decisive flags past the 24th term
    "Version 13.0.0 installed from a release build on linux, also tried macos and windows. "
    "My config sets color, context and hidden; no ignore files, default encoding, a plain "
    "terminal. I search a directory of text files for a regex pattern and print the output "
    "with a count. Since the update some output lines come twice: seq 0 9 piped into "
    "rg -U -e '1\\n2' --passthru -r x repeats 3 through 9 after the replaced match. "
    "Using --multiline together with --replace seems to be the cause."
)


def _project(root: Path, notes: list[str]) -> str:
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("# Decisions\n\n" + "\n".join(notes), encoding="utf-8")
    return str(root)


def _commit_log(root: Path, *extra: str) -> str:
    """600 commit-like notes over the same few dozen words, the fix and `extra` among them."""
    notes = []
    for number in range(600):
        words = [COMMON[(number * 7 + k * 3) % len(COMMON)] for k in range(9)]
        notes.append(
            f"### {words[0]}: adjust {words[1]} handling for {words[2]} (batch {number})\n\n"
            f"Change how {' '.join(words[3:])} behave; token{number} widget{number % 50}.\n"
        )
    notes.insert(
        300,
        f"### {FIX}\n\nWith --multiline, --replace and --passthru together, lines after a "
        "replaced match were printed twice: the passthru buffer did not move past the match.\n",
    )
    return _project(root, notes + list(extra))


def _injected(root: str, prompt: str) -> list[str | None]:
    entries, _, _ = brief.prompt_matches(root, prompt, prompt_gate.SHARE, set(), 8)
    return [entry.heading for entry in entries]


def test_a_long_bug_report_brings_the_commit_that_fixed_it(tmp_path: Path) -> None:
    assert _injected(_commit_log(tmp_path), REPORT) == [FIX]


def test_an_unrelated_bug_report_brings_nothing(tmp_path: Path) -> None:
    report = (
        "After upgrading Django the migration fails with an IntegrityError on a foreign key "
        "constraint. Running manage.py migrate on an empty Postgres database applies the auth "
        "and contenttypes migrations, then stops on our billing app with a traceback from the "
        "migration executor. Downgrading the ORM fixes it. Python 3.11 in a virtualenv."
    )
    assert _injected(_commit_log(tmp_path), report) == []


def test_a_report_sharing_only_three_rare_words_with_a_note_brings_nothing(
    tmp_path: Path,
) -> None:
    # Three words no other note holds score the note above two rarest words' weight (the
    # bar before), but it holds none of the report's other words: not its match.
    log = _commit_log(tmp_path, "### docs: mention kubernetes sidecars and helm\n")
    report = (
        "Our kubernetes pods restart in a loop after the helm upgrade: the sidecars start "
        "before the main container and the readiness probe times out, so the deployment "
        "never becomes available. Rolling back the chart works. The cluster runs on three "
        "nodes with the default scheduler and no custom admission controllers."
    )
    assert _injected(log, report) == []


def test_a_short_question_brings_nothing_from_a_project_that_shares_one_word(
    tmp_path: Path,
) -> None:
    grants = _project(
        tmp_path,
        [
            "### Reduce noise in the grant reviewers' notification emails\n\n"
            "Batch the notifications into one daily digest per reviewer.\n",
            "### Use Postgres for the applications database\n\nManaged, backed up nightly.\n",
            "### Render the public pages on the server\n\nNo client-side framework.\n",
        ],
    )
    assert _injected(grants, "zero-noise extrapolation to reduce hardware noise") == []
    assert _injected(grants, "how do reviewers get their notification emails") == [
        "Reduce noise in the grant reviewers' notification emails"
    ]


def _holding(count: int) -> Callable[[int], int]:
    return lambda _: count


def test_a_word_no_memory_holds_weighs_as_the_rarest() -> None:
    scores = {1: 3.0}
    assert prompt_gate.injected(scores, [4.0], 4.0, 0.5, _holding(1)) == scores
    assert prompt_gate.injected(scores, [4.0, 0.0], 4.0, 0.5, _holding(1)) == {}


def test_a_long_prompt_weighs_at_most_seven_rarest_words() -> None:
    scores = {1: 7.5, 2: 6.5}
    many = [4.0] * 40  # 160, capped at 7 x 4 = 28: the bar at a quarter of it is 7
    assert prompt_gate.injected(scores, many, 4.0, 0.25, _holding(5)) == {1: 7.5}


def test_on_a_long_prompt_a_memory_holding_four_of_its_terms_is_not_injected() -> None:
    many = [4.0] * 40
    assert prompt_gate.injected({1: 20.0}, many, 4.0, 0.25, _holding(4)) == {}
    assert prompt_gate.injected({1: 20.0}, many, 4.0, 0.25, _holding(5)) == {1: 20.0}


def test_a_short_prompt_asks_no_count_of_terms_held() -> None:
    assert prompt_gate.injected({1: 3.0}, [4.0, 4.0], 4.0, 0.25, _holding(1)) == {1: 3.0}


def test_terms_held_counts_the_prompt_terms_a_memory_holds() -> None:
    terms = brief.content_terms(["the passthru buffer and multiline replacing"], 64)
    text = "printer: fix --passthru with --multiline\n\nThe buffer moved on."
    assert prompt_gate.terms_held(terms, text) == 3


def test_a_command_line_options_words_weigh_more_in_the_search() -> None:
    prompt = "With --max-count and -C 2 the context lines are still highlighted as matches"
    terms = brief.content_terms([prompt], 64)
    weighed = dict(zip(terms, prompt_gate.emphasis(prompt, terms), strict=True))
    assert weighed["max-count"] == weighed["max"] == weighed["count"] == prompt_gate.OPTION_WEIGHT
    assert weighed["context"] == weighed["highlight"] == 1.0


def test_a_report_naming_the_option_brings_the_note_on_that_option_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The report's setup words (global rules, home directory, machine) favour the other
    # note; the option it names, --unhide, is what the fix is about.
    on_option = "walk: list entries under dot folders only with --unhide"
    other = "config: read global rules from the home directory of each machine"
    log = _commit_log(tmp_path, f"### {on_option}\n", f"### {other}\n")
    report = (
        "Running rg --unhide lists entries under dot folders that my rules name. The tree "
        "is small and the rule is plain. Seen on my machine with global rules read from the "
        "home directory."
    )
    assert _injected(log, report) == [on_option, other]
    monkeypatch.setattr(prompt_gate, "OPTION_WEIGHT", 1.0)
    assert _injected(log, report) == [other, on_option]


def test_an_options_words_count_twice_among_the_terms_held() -> None:
    # The note holds 6 of the prompt's 7 terms, 3 of them the option's (max, count, max-count).
    prompt = "the --max-count limit is ignored in the printer output"
    terms = brief.content_terms([prompt], 64)
    text = "printer: fix context bug when --max-count is used\n\nThe limit was ignored."
    assert prompt_gate.terms_held(terms, text) == 6
    emphasis = prompt_gate.emphasis(prompt, terms)
    assert prompt_gate.terms_held(terms, text, emphasis) == 6 + 3 * (prompt_gate.OPTION_WEIGHT - 1)


def test_a_prompt_is_searched_on_its_held_terms_rarest_first_within_the_postings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_gate, "SEARCHED_POSTINGS", 100)
    terms = ["common", "unheld", "rare", "middling"]
    assert prompt_gate.searched(terms, [90, 0, 3, 40]) == ["rare", "middling"]
    # the rarest is searched even past the postings
    assert prompt_gate.searched(["huge", "bigger"], [500, 900]) == ["huge"]
    assert prompt_gate.searched(["unheld"], [0]) == []


def test_a_word_written_whole_finds_the_identifier_a_note_writes_in_parts(tmp_path: Path) -> None:
    # `cloudevents` stems to `cloudev`, which no note holds; the note's `CloudEvents` is
    # kept whole and unstemmed beside its parts.
    events = "Support Cloud Events"
    root = _project(
        tmp_path,
        [
            f"### {events}\n\nWe see increasing adoption of CloudEvents as the header standard.\n",
            "### Use a message pump\n\nOne thread reads the queue and dispatches.\n",
        ],
    )
    assert _injected(root, "cloudevents") == [events]
    assert _injected(root, "cloudeventing") == []


def test_a_word_some_note_holds_stemmed_is_searched_stemmed() -> None:
    counted: list[list[str]] = []

    def count(words: list[str]) -> list[int]:
        counted.append(words)
        return [4 for _ in words]

    terms = brief.content_terms(["cloudevents over queues"], 64)
    assert terms == ["cloudev", "queue"]
    assert prompt_gate.written_whole("cloudevents over queues", terms, [0, 9], count) == (
        ["cloudevents", "queue"],
        [4, 9],
    )
    assert counted == [["cloudevents"]]  # `queues`, held stemmed, is not looked up whole
    none_whole = prompt_gate.written_whole("cloudevents", ["cloudev"], [0], lambda w: [0])
    assert none_whole == (["cloudev"], [0])
