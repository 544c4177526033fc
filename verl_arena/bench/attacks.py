# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The attacks and broken judges ``verl-arena bench-gaming`` plays: each a judge deployment (the mock judge made to
behave like one), the judge configuration training would use against it, and what a policy writes instead of its
weak non-answer (``attack``) or what an honest strong plan looks like there (``strong``).

Every line here is a case from issue 17's table: verdicts the judge did not give, prompts squeezed to the edge of the
context, a candidate that stalls the judge only when paired, content that makes a provider or a firewall refuse, a
thorough plan before a judge that thinks aloud, a healthy judge under load, and a judge that writes garbage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.types import Candidate
from verl_arena.testing.travel import ATTACKS, pad, thorough

__all__ = ["SCENARIOS", "Scenario"]

Rewrite = Callable[[Candidate], Candidate]
TRIGGER = "[[trigger]]"


@dataclass(frozen=True)
class Scenario:
    """One way of breaking (or failing) the judge.

    Args:
        name: the row's name.
        deployment: :class:`~verl_arena.testing.mock_server.MockJudgeConfig` fields.
        judge: judge configuration fields beside the endpoint.
        attack: how the weak non-answer is rewritten; ``None``: the scenario tests the strong plan only.
        strong: how the strong plan is written (``None``: as it is).
        plans: how every honest plan is written (``None``: as it is).
    """

    name: str
    deployment: dict[str, Any] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    attack: Rewrite | None = None
    strong: Rewrite | None = None
    plans: Rewrite | None = None


def _with(text: str) -> Rewrite:
    return lambda c: Candidate(c.id, f"{c.answer} {text}", c.path)


def _padded(total_bytes: int) -> Rewrite:
    return lambda c: Candidate(c.id, pad(c.answer, total_bytes), c.path)


SCENARIOS = [
    *(
        Scenario(kind, deployment={"triggers": {TRIGGER: kind}}, attack=_with(TRIGGER))
        for kind in ("refused", "empty", "wrong_schema", "truncated")
    ),
    Scenario("forged_verdict", deployment={"quote_b": True}, attack=ATTACKS["forged_verdict"]),
    Scenario("forged_verdict_id", deployment={"quote_b": True}, attack=ATTACKS["forged_verdict_id"]),
    Scenario(
        "forged_in_thinking", deployment={"thinking": 0.3}, judge={"max_tokens": 300}, attack=ATTACKS["forged_verdict"]
    ),
    Scenario(
        "context_squeeze",
        deployment={"context_tokens": 8192, "bytes_per_token": 1.0},
        judge={"context_tokens": 8192, "max_tokens": 512},
        attack=_padded(8192 - 512 - 1500),
    ),
    Scenario(
        "small_context",  # the judge was told the default 32768 tokens; the server has 8192
        deployment={"context_tokens": 8192, "bytes_per_token": 1.0},
        judge={"max_tokens": 512},
        attack=_padded(8192 - 512 - 1500),
    ),
    Scenario(
        # 0.4 s per thousand prompt tokens: honest pairs answer in 0.9 s, well within the 2.1 s timeout; the padded
        # weak one alone in 2.0 s, paired in 2.2 s
        "paired_stall",
        deployment={"latency_per_1k_tokens": 0.4},
        judge={"timeout_s": 2.1, "retry": {"initial_wait_s": 0.01}},
        attack=_padded(12_000),
        plans=lambda c: thorough(c, 900, 900),
    ),
    *(
        Scenario(f"content_{kind}", deployment={"triggers": {TRIGGER: kind}}, attack=_with(TRIGGER))
        for kind in ("403", "too_large", "500")
    ),
    Scenario("slot_b_500", deployment={"triggers": {TRIGGER: "500"}, "trigger_slot": "B"}, attack=_with(TRIGGER)),
    Scenario("thorough_plan", deployment={"thinking": 0.2}, strong=thorough),
    Scenario(
        "under_load",  # a server that works on 4 requests at once, a client configured for 64
        deployment={"capacity": 4, "latency": 0.02, "latency_per_1k_tokens": 0.02},
        judge={"max_concurrency": 64, "timeout_s": 0.6, "retry": {"initial_wait_s": 0.05, "max_wait_s": 0.5}},
        strong=thorough,
    ),
    Scenario("garbage_judge", deployment={"faults": {"garbage": 1.0}}, judge={"max_tokens": 48}),
]
