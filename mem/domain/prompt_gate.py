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
  rare words it happens to share with a note (`migrations`, `docker`), the note that
  governs a report shares many of its middling ones (`gitignore`, `parent`, `subdirectory`).

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

from mem.core import tokens

SHARE = 0.25  # the default of `mem hook --threshold`
# The prompt's weight counted at most as this many rarest terms: at the default share, a
# memory scoring above 1.75 rarest terms' weight can be injected whatever the prompt's length.
PROMPT_WEIGHT_CAP = 7
# Of a long prompt's terms, the fewest a memory holds to be injected: on the dev part every
# report's governing note bm25 ranks first holds 5 or more, every unrelated report's best
# note above the bar 3 or 4.
LONG_PROMPT_TERMS_HELD = 5


def injected(
    scores: dict[int, float],
    weights: list[float],
    rarest: float,
    share: float,
    held: Callable[[int], int],
) -> dict[int, float]:
    """The scores, in their order, of the memories above `share` of the prompt's weight.

    `weights`: each prompt term's weight (0 for a term no memory holds); `rarest`: the weight
    of a term one memory holds; `held(record_id)`: how many of the prompt's terms it holds."""
    prompt_weight = math.fsum(weight or rarest for weight in weights)
    cap = PROMPT_WEIGHT_CAP * rarest
    bar = share * min(prompt_weight, cap)
    fewest = LONG_PROMPT_TERMS_HELD if prompt_weight > cap else 0
    return {
        record_id: score
        for record_id, score in scores.items()
        if score > bar and (not fewest or held(record_id) >= fewest)
    }


def terms_held(terms: list[str], text: str) -> int:
    """How many of a prompt's `terms` a memory's text (heading and body) holds."""
    found = tokens.counts(text)
    return sum(1 for term in terms if term in found)
