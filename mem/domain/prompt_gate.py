"""Which of a prompt's bm25 matches are worth injecting (`mem hook prompt`, issue 33).

A memory is injected when its bm25 score is above `share` of the prompt's weight, where

- the prompt's weight is the sum of its terms' weights at an endless tf (idf × (k1 + 1),
  bm25.weights), a term no memory holds weighing as much as the rarest term: a short
  question whose words the project never uses is about something else, and the few words
  it shares with a memory must not count as all of it;
- and that weight counts at most as PROMPT_WEIGHT_CAP rarest terms: a long bug report in
  a user's words holds dozens of terms, and a memory sharing several of the project's rare
  ones is its match however many other words the report has;
- where the cap applies (a long prompt), the memory also holds LONG_PROMPT_TERMS_HELD of
  the prompt's terms: a report about something else reaches the bar through two or three
  rare words it happens to share with a note (`kubernetes`, `helm`), the note that governs
  a report shares many of its middling ones.

Measured on bench/hooks (bench/hook_quality.py): issue texts in projects of 2,104 (ripgrep,
dev), 3,316 (fzf) and 2,962 (gopls, x/tools) commit messages, unrelated issue texts, and
117 one-line questions asked in a project of their own ADRs and in another's. Unknown terms
weighed as the rarest took the questions' injections in another project from 0.81 to 0.18
(dev). On long reports whose governing commit bm25 ranks first, the cap at 8 rarest terms
injected it for 0.62 (dev) / 0.84 (held out); at 7 rarest terms with the terms held, 1.00 /
1.00, unrelated reports injecting anything 0.00 / 0.05 (0.13 / 0.08 at 7 without them).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mem.core.text import tokens

SHARE = 0.25  # the default of `mem hook --threshold`
# The prompt's weight counted at most as this many rarest terms: at the default share, a
# memory scoring above 1.75 rarest terms' weight can be injected whatever the prompt's length.
PROMPT_WEIGHT_CAP = 7
# The postings a prompt's search reads at most, its rarest terms first: a long report in a
# large project holds dozens of terms each held by hundreds of records, and reading them all
# cost its search 99-120 ms of CPU against 14-17 ms for a short prompt (bench/run.py's, at
# 10,000 notes; now 12-16 ms). The terms past it are the commonest, which weigh least; on
# bench/hooks' projects (2,104 to 3,316 notes) the hit rates are the same without it.
SEARCHED_POSTINGS = 4000
# Of a long prompt's terms, the fewest a memory holds to be injected: on the dev part every
# report's governing note bm25 ranks first holds 5 or more, every unrelated report's best
# note above the bar 3 or 4.
LONG_PROMPT_TERMS_HELD = 5
# A word of one of the prompt's command-line options (`--hidden`, `--max-count`) weighs this
# many times as much in its search, and counts this many times among the terms a memory
# holds: a report names the option that misbehaves, and the note that governs it names it
# too. On bench/hooks' dev part (ripgrep) the governing note is injected for 0.59 of the
# long reports weighing it twice in the score, against 0.52 at 1, false injections
# unchanged (0.00 unrelated, 0.06 same domain); 1.5 and 3 inject it for 0.55. Counting it
# twice among the terms held too: 0.66, false injections unchanged (held out: 0.56 at 1,
# 0.59 in the score, 0.62 in both).
OPTION_WEIGHT = 2.0


def injected(
    scores: dict[int, float],
    weights: list[float],
    rarest: float,
    share: float,
    held: Callable[[int], float],
) -> dict[int, float]:
    """The scores, in their order, of the memories above `share` of the prompt's weight.

    `weights`: each prompt term's weight (0 for a term no memory holds); `rarest`: the weight
    of a term one memory holds; `held(record_id)`: how many of the prompt's terms it holds
    (its options' words counting OPTION_WEIGHT each, as in the score)."""
    least = bar(weights, rarest, share)
    fewest = LONG_PROMPT_TERMS_HELD if _weight(weights, rarest) > PROMPT_WEIGHT_CAP * rarest else 0
    return {
        record_id: score
        for record_id, score in scores.items()
        if score > least and (not fewest or held(record_id) >= fewest)
    }


def bar(weights: list[float], rarest: float, share: float) -> float:
    """The score a memory must be above to be injected: `share` of the prompt's weight."""
    return share * min(_weight(weights, rarest), PROMPT_WEIGHT_CAP * rarest)


def _weight(weights: list[float], rarest: float) -> float:
    return math.fsum(weight or rarest for weight in weights)


def terms_held(terms: list[str], text: str, emphasis: list[float] | None = None) -> float:
    """How many of a prompt's `terms` a memory's text (heading and body) holds; with
    `emphasis` (one per term), each term held counting its value."""
    found = tokens.counts(text)
    if emphasis is None:
        return sum(1 for term in terms if term in found)
    return math.fsum(weight for term, weight in zip(terms, emphasis, strict=True) if term in found)


def emphasis(prompt: str, terms: list[str]) -> list[float]:
    """Each term's weight in the prompt's search: OPTION_WEIGHT for a word of one of the
    prompt's command-line options (a chunk starting with `-`), 1 for the others."""
    options = {
        term for chunk in tokens.chunks(prompt) if chunk[0] == "-" for term in tokens.terms(chunk)
    }
    return [OPTION_WEIGHT if term in options else 1.0 for term in terms]


def written_whole(
    prompt: str, terms: list[str], frequencies: list[int], count: Callable[[list[str]], list[int]]
) -> tuple[list[str], list[int]]:
    """The prompt's terms and how many records hold each (`frequencies`; `count` gives them
    for other terms), where a word that no record holds stemmed is taken as written, folded
    but not stemmed, when records hold that: a note writes an identifier such as
    `CloudEvents` or `BlockingCollection`, whose whole is kept unstemmed (mem.core.text.tokens),
    and a question writes it as one plain word (`cloudevents`, stemmed `cloudev`)."""
    if all(frequencies):
        return terms, frequencies
    written: dict[str, str] = {}
    for chunk in tokens.chunks(prompt):
        found = tokens.chunk_terms(chunk)
        whole = tokens.fold(chunk)
        if len(found) == 1 and found[0] != whole and whole.isalnum():
            written.setdefault(found[0], whole)
    asked = [
        written[term]
        for term, frequency in zip(terms, frequencies, strict=True)
        if not frequency and term in written
    ]
    if not asked:
        return terms, frequencies
    held = dict(zip(asked, count(asked), strict=True))
    kept = [
        (written[term], held[written[term]])
        if not frequency and held.get(written.get(term, ""))
        else (term, frequency)
        for term, frequency in zip(terms, frequencies, strict=True)
    ]
    return [term for term, _ in kept], [frequency for _, frequency in kept]


def searched(terms: list[str], frequencies: list[int]) -> list[str]:
    """The terms a prompt's memories are searched on, in the prompt's order: those some
    memory holds (the others add to no score), rarest first while their records add up to
    SEARCHED_POSTINGS, and at least the rarest."""
    kept: set[int] = set()
    postings = 0
    for frequency, place in sorted((f, place) for place, f in enumerate(frequencies) if f):
        postings += frequency
        if postings > SEARCHED_POSTINGS and kept:
            break
        kept.add(place)
    return [term for place, term in enumerate(terms) if place in kept]
