# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Every request sent to the judge is counted in the judgment it served: the asks, the asks again, the probes and
controls that trace a failure, and group judgments (select, order) too, whether the judge answered them or not. The
group's token figures are then what the HTTP client counted, and its requests what the judge server received, over
real HTTP. The tallies themselves (``tally``, ``note``, ``spend``) nest and follow the tasks started inside them.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from helpers import rank_over_http

from verl_arena.core.spending import note, spend, tally
from verl_arena.outcomes.members import GroupSummary
from verl_arena.testing.travel import WEAK, plan_group


def test_tallies_nest_and_count_only_what_is_reported_while_they_are_open():
    note("requests")  # none open: counted nowhere, and no error
    with tally() as outer:
        note("requests")
        with tally() as inner:
            spend({"prompt_tokens": 30, "completion_tokens": 0, "model": "m", "cached_tokens": 2.5})
            note("retries", 2)
        spend({"prompt_tokens": 5})
    note("requests")
    assert inner == {"prompt_tokens": 30, "cached_tokens": 2.5, "retries": 2}  # zeros and non-numbers left out
    assert outer == {"prompt_tokens": 35, "cached_tokens": 2.5, "retries": 2, "requests": 1}


def test_tasks_started_inside_a_tally_count_in_it_and_those_started_outside_do_not():
    async def ask(tokens: int) -> None:
        await asyncio.sleep(0)
        note("requests")
        spend({"prompt_tokens": tokens})

    async def main() -> tuple:
        with tally() as first:
            await asyncio.gather(ask(10), ask(20))
        outside = asyncio.ensure_future(ask(1000))  # started outside: it copied no open tally
        with tally() as second:
            await outside
            await asyncio.gather(ask(4))
        return first, second

    first, second = asyncio.run(main())
    assert first == {"requests": 2, "prompt_tokens": 30}
    assert second == {"requests": 1, "prompt_tokens": 4}


def client_counts(stats: dict) -> tuple[int, int]:
    http = stats.get("http", stats)
    return http["prompt_tokens"], http["sent"]


def received(server) -> int:
    """The requests the mock judge server received, whatever became of them."""
    return server.received


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "listwise", "multi_round"])
def test_a_groups_tokens_are_every_token_its_judgments_took(mock_judge, topology):
    url, server = mock_judge()
    result, stats = rank_over_http(url, plan_group(np.random.default_rng(0), size=6), topology)
    prompt_tokens, requests = client_counts(stats)
    assert requests == received(server) == stats["http"]["requests"]  # all of them answered
    assert all(m.usage.get("requests", 0) > 0 for m in result.matches if m.kind != "bye" and not m.failed)
    assert sum(m.usage.get("prompt_tokens", 0) for m in result.matches) == prompt_tokens > 0
    assert sum(m.usage.get("requests", 0) for m in result.matches) == requests
    summary = GroupSummary.of(result, size=6, expected=6, incomplete=False)
    assert summary.prompt_tokens == prompt_tokens


def test_tracing_a_failure_is_counted_in_the_judgment_it_traced(mock_judge):
    # the weak plan's content makes the judge refuse: the failed judgment asks, then probes each side with a control
    url, server = mock_judge(triggers={"FORBIDDEN-TOPIC": "refused"})
    plans = plan_group(np.random.default_rng(0), size=4)
    weak = plans[WEAK] if len(plans) > WEAK else plans[-1]
    plans = [*plans[:-1], type(weak)(id=weak.id, answer=weak.answer + " FORBIDDEN-TOPIC", path=weak.path)]
    result, stats = rank_over_http(url, plans, "round_robin")
    prompt_tokens, requests = client_counts(stats)
    assert requests == received(server) > stats["http"]["requests"]  # the refusals reached the judge too
    traced = [m for m in result.matches if m.verdict is not None and m.verdict.forfeit]
    # the refused asks were answered with an error (no usage, but requests all the same): the traced judgment counts
    # them, its probes and its controls; later matches of the weak plan forfeit from memory, without a request
    assert traced and traced[0].usage["requests"] > 0 and traced[0].verdict.meta.get("shortcut") == "forfeit"
    assert sum(m.usage.get("requests", 0) for m in result.matches) == requests
    assert sum(m.usage.get("prompt_tokens", 0) for m in result.matches) == prompt_tokens
