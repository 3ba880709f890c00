"""Which of a prompt's bm25 matches are worth injecting (`mem hook prompt`, issue 33).

A memory is injected when its bm25 score is above `share` of the prompt's weight, where

- the prompt's weight is the sum of its terms' weights at an endless tf (idf × (k1 + 1),
  bm25.weights), a term no memory holds weighing as much as the rarest term: a short
  question whose words the project never uses is about something else, and the few words
  it shares with a memory must not count as all of it;
- and that weight counts at most as PROMPT_WEIGHT_CAP rarest terms: a long bug report in
  a user's words holds dozens of terms, and a memory sharing several of the project's rare
  ones is its match however many other words the report has.

Measured on bench/hooks (bench/hook_quality.py): issue texts in projects of 2,104 and 3,316
commit messages, and 117 one-line questions asked in a project of their own ADRs and in
another's. Unknown terms weighed as the rarest took the questions' injections in another
project from 0.81 to 0.18 (dev part); the cap took the issue texts' governing commit from
0.00 to 0.24 (bm25 ranks it first for 0.28), unrelated issue texts injecting anything 0.04.
"""

from __future__ import annotations

import math

SHARE = 0.25  # the default of `mem hook --threshold`
# The prompt's weight counted at most as this many rarest terms: at the default share, a
# memory scoring above two rarest terms' weight is injected whatever the prompt's length.
PROMPT_WEIGHT_CAP = 8


def injected(
    scores: dict[int, float], weights: list[float], rarest: float, share: float
) -> dict[int, float]:
    """The scores, in their order, of the memories above `share` of the prompt's weight.

    `weights`: each prompt term's weight (0 for a term no memory holds); `rarest`: the weight
    of a term one memory holds."""
    prompt_weight = math.fsum(weight or rarest for weight in weights)
    bar = share * min(prompt_weight, PROMPT_WEIGHT_CAP * rarest)
    return {record_id: score for record_id, score in scores.items() if score > bar}
