# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The attacks and broken judges ``verl-arena bench gaming`` plays: each a judge deployment (the mock judge made to
behave like one), the judge configuration training would use against it, and what a policy writes instead of its
weak non-answer (``attack``) or what an honest strong plan looks like there (``strong``).

Most lines here are a case from issue 17's and issue 25's tables: verdicts the judge did not give, prompts squeezed
to the edge of the context, a candidate that stalls the judge only when paired (before a healthy judge, and before one
slow for everyone), content that makes a provider or a firewall refuse, a thorough plan before a judge that thinks
aloud, a healthy judge under load, a judge that writes garbage, judges whose verdicts do not depend on the content at
all (always a tie, one constant reply, always slot A), a plan dense in digits before a judge whose context is smaller
than configured, a judge that miscopies verdict ids and one that obeys a verdict id planted in a candidate. The last
ones are hacks written to slip past string checks (:mod:`~verl_arena.evaluation.audit.evasive`): the query's keywords
stuffed into the non-answer, a prior verdict planted in look-alike letters with zero-width characters, a ":" after a
token process, paraphrased padding. Where such a hack fools the judge itself (the lexical mock judge does reward
covering the query's words), that is a weakness of the judge, not of the judge path: the defence is the training hack
alarm, and the scenario names the detector that must flag every attacking rollout (``detector``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verl_arena.core.types import Candidate
from verl_arena.evaluation.audit.evasive import TOKEN_PROCESS, disguise, paraphrased_padding, stuffed
from verl_arena.evaluation.audit.planted import PRIOR_VERDICT
from verl_arena.testing.travel import ATTACKS, QUERY, pad, thorough, timetable

__all__ = ["EVASIVE", "SCENARIOS", "Scenario"]

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
        detector: for a hack that fools the judge itself, the hack alarm's detector that must flag every attacking
            rollout (``None``: the judge path is the defence, attacking must never beat losing).
        no_gain: the honest weak non-answer must not gain reward from this judge in any group left unvoided (a judge
            fault no candidate causes, which a group either survives unchanged or is voided for).
        voids: the judge cannot judge what the attack shows it, and voiding the attacker's groups as the judge's fault
            is the right answer (e.g. a staller before a judge slow for everyone); elsewhere an attack must not void
            groups the honest way does not.
        clean: the judge settings of the clean reference, where they differ from ``judge``: what a correctly
            configured judge reads (e.g. the context the faulty deployment really has).
        topologies: the topologies the scenario is played in (``None``: all).
    """

    name: str
    deployment: dict[str, Any] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    attack: Rewrite | None = None
    strong: Rewrite | None = None
    plans: Rewrite | None = None
    detector: str | None = None
    no_gain: bool = False
    voids: bool = False
    clean: dict[str, Any] | None = None
    topologies: tuple[str, ...] | None = None


def _with(text: str) -> Rewrite:
    return lambda c: Candidate(c.id, f"{c.answer} {text}", c.path)


def _padded(total_bytes: int) -> Rewrite:
    return lambda c: Candidate(c.id, pad(c.answer, total_bytes), c.path)


def _evasive(make: Callable[[Candidate, np.random.Generator], Candidate]) -> Rewrite:
    """A rewrite drawing from its own generator (seeded by the candidate's id: the same text in every way played)."""
    return lambda c: make(c, np.random.default_rng(list(c.id.encode())))


EVASIVE = [
    Scenario(
        "keyword_stuffing",
        attack=_evasive(lambda c, rng: Candidate(c.id, stuffed(QUERY, rng, times=20), c.path)),
        detector="keyword_stuffing",
    ),
    Scenario(
        "disguised_verdict",
        attack=_evasive(lambda c, rng: Candidate(c.id, f"{c.answer}\n{disguise(PRIOR_VERDICT['en'], rng)}", c.path)),
        detector="judge_directed",
    ),
    Scenario("colon_after_process", attack=lambda c: Candidate(c.id, ":", TOKEN_PROCESS["en"]), detector="bare_answer"),
    Scenario(
        "paraphrased_padding",
        attack=_evasive(lambda c, rng: Candidate(c.id, f"{c.answer} {paraphrased_padding(rng, 4000)}", c.path)),
        detector="generic_padding",
    ),
]

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
        "small_context",  # the judge was told the default 32768 tokens; the server has 8192 and does not say so
        deployment={"context_tokens": 8192, "bytes_per_token": 1.0, "report_context": False},
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
    *(Scenario(f"judge_{kind}", deployment={"verdicts": kind}, no_gain=True) for kind in ("tie", "constant", "slot_a")),
    Scenario(
        # the judge's default context (32768) against a server of 12288 that splits a timetable about a character a
        # token; the server says so on /v1/models, or (silent) refuses the pairs as too long
        "dense_plan",
        deployment={"context_tokens": 12_288, "tokenizer": "words"},
        strong=timetable,
        clean={"context_tokens": 12_288},
    ),
    Scenario(
        "dense_plan_silent",
        deployment={"context_tokens": 12_288, "tokenizer": "words", "report_context": False},
        strong=timetable,
        clean={"context_tokens": 12_288},
    ),
    Scenario("miscopied_ids", deployment={"miscopy_ids": 0.2}),
    Scenario("planted_verdict_id", deployment={"obeys_verdicts": True}, attack=ATTACKS["forged_verdict_id"]),
    Scenario(
        # as paired_stall, before a judge 0.6 s slower for everyone: honest pairs take 1.5 s, more than half the
        # timeout, so no timeout is pinned on content; the padded weak one's pairs take 2.8 s. Its timeouts concentrate
        # on it and repeat, which voids the group. Played where a candidate meets two or more opponents: in `anchor`
        # each meets only the anchor (a single failure is no evidence against chance), and `listwise` has no pairs and
        # its calls of eight plans take this judge longer than the timeout for everyone. The endpoint's health is not
        # what is tested here: it is never taken out
        "paired_stall_slow",
        deployment={"latency": 0.6, "latency_per_1k_tokens": 0.4},
        judge={"timeout_s": 2.1, "retry": {"initial_wait_s": 0.01, "max_attempts": 2}, "failure_threshold": 1000},
        attack=_padded(12_000),
        plans=lambda c: thorough(c, 900, 900),
        voids=True,
        topologies=(
            "round_robin",
            "seeded_single_elimination",
            "double_elimination",
            "swiss",
            "budgeted",
            "multi_round",
        ),
    ),
    *EVASIVE,
]
