# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A group's prompt tokens priced before its first request: the largest prompt each judgment can be, times the
requests it sends (both orders, each ensemble member and sample), never more than the judge's prompt room. That the
price bounds what a judge over HTTP reports is tested with the step budget (tests/runtime/test_step_budget_tokens.py).
"""

from __future__ import annotations

from helpers import judge_config, make_group

from verl_arena.core.types import Candidate
from verl_arena.judges.budget import byte_bound
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.prompt_estimate import PromptEstimate

URL = "http://127.0.0.1:9"
GROUP = make_group([0.1, 0.5, 0.9, 0.3])


def estimate(**overrides) -> PromptEstimate:
    return PromptEstimate(JudgeConfig(**judge_config(URL, **overrides)))


def test_a_pairwise_judgment_is_priced_at_the_two_largest_candidates_in_both_orders():
    long = Candidate("long", "x" * 5000, "y" * 3000)
    one_order, swapped = estimate(orders="given"), estimate()
    base = one_order.group_tokens("q", GROUP, ("compare",), 1)
    with_long = one_order.group_tokens("q", [*GROUP, long], ("compare",), 1)
    assert with_long - base == 8000 - max(byte_bound(c.answer) + byte_bound(c.path) for c in GROUP)
    assert swapped.group_tokens("q", GROUP, ("compare",), 1) == 2 * base
    assert one_order.group_tokens("q", GROUP, ("compare",), 6) == 6 * base


def test_a_group_judgment_shows_every_candidate_and_ensembles_ask_each_member_and_sample():
    single = estimate(orders="given")
    pair = single.group_tokens("q", GROUP, ("compare",), 1)
    listed = single.group_tokens("q", GROUP, ("order",), 1)
    longer = [Candidate(c.id, c.answer + "w" * 1000, c.path) for c in GROUP]
    assert single.group_tokens("q", longer, ("order",), 1) - listed == 4 * 1000  # every candidate shown
    assert single.group_tokens("q", longer, ("compare",), 1) - pair == 2 * 1000  # the two largest
    assert single.group_tokens("q", GROUP, ("compare", "order"), 1) == max(pair, listed)  # the dearest method
    ensemble = estimate(orders="given", ensemble={"members": [{}, {"temperature": 0.7}], "samples": 2})
    assert ensemble.group_tokens("q", GROUP, ("compare",), 1) == 4 * pair


def test_no_judgment_is_priced_above_the_configured_prompt_room_and_small_groups_cost_nothing():
    huge = [Candidate(str(i), "z" * 100_000, "") for i in range(3)]
    judge = estimate(orders="given", context_tokens=4096, max_tokens=512)
    assert judge.group_tokens("q", huge, ("compare",), 3) == 3 * (4096 - 512)
    # a context window left unset follows the server's, which may be larger: no room is assumed
    assert estimate(orders="given").group_tokens("q", huge, ("compare",), 1) > 32_768  # the default window
    assert judge.group_tokens("q", huge[:1], ("compare",), 3) == 0 and judge.group_tokens("q", huge, ("order",), 0) == 0
