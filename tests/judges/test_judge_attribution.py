# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A candidate never gains by breaking the judge: failures traced to a candidate's content make it forfeit.

The judge is the real mock server on loopback, made adversarial with trigger phrases: a prompt carrying one gets a
provider refusal (HTTP 400 content inspection), an empty reply, a reply in the wrong shape, a reply cut at max_tokens,
or no reply at all. The weak candidate that carries the phrase must end up no better than if it had lost every one of
its matches, in every topology; failures nobody can be blamed for keep the counted fallback.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import ScriptedPairJudge, judge_config

from verl_arena import Candidate, PairVerdict, rank_group
from verl_arena.core.errors import InvalidJudgeOutput
from verl_arena.judges import LLMJudge, OrderSwapJudge, build_judge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

QUERY = "Plan one day in Kyoto with temples, a market lunch and an evening walk"
TRIGGERS = {f"TRIGGER-{kind.upper()}": kind for kind in ("refused", "empty", "wrong_schema", "truncated", "hang")}
PHRASE = {kind: phrase for phrase, kind in TRIGGERS.items()}
TOPOLOGIES = {
    "round_robin": {},
    "anchor": {},
    "seeded_single_elimination": {},
    "double_elimination": {},
    "swiss": {},
    "multi_round": {"repeats": 2, "group_size": 3, "winners_per_group": 1},
}
CULPRIT = 3


@pytest.fixture(scope="module")
def adversarial_judge():
    with MockJudgeThread(MockJudgeConfig(triggers=TRIGGERS, hang_s=30)) as url:
        yield url


def group(culprit_text: str | None = None, *, no_answer: bool = False) -> list[Candidate]:
    """Eight plans (an even group: no Swiss byes); candidate 3, a weak one, optionally carries ``culprit_text``, or
    is marked as having no final answer (it then loses every match without a judge call)."""
    stops = ["Kiyomizu temple", "Nishiki market lunch", "Gion evening walk", "Fushimi Inari", "tea house", "Kamo river"]
    group = [
        Candidate(
            id=f"r{i}",
            answer="\n".join(f"- {stop} at {9 + j}:00 in Kyoto" for j, stop in enumerate(stops[: 1 + i % 6])),
            path=" ".join(f"call search(kyoto {stop})" for stop in stops[: i % 4]),
        )
        for i in range(8)
    ]
    answer = f"Kyoto is nice. {culprit_text or ''}".strip()
    group[CULPRIT] = Candidate(f"r{CULPRIT}", answer, "", {"no_answer": True} if no_answer else {})
    return group


def rank(url: str, candidates: list[Candidate], topology: str, *, query: str = QUERY, **overrides: Any):
    judge = build_judge(judge_config(url, **{"timeout_s": 0.5, **overrides}))

    async def run():
        try:
            return await rank_group(query, candidates, judge, topology, seed=3, **TOPOLOGIES[topology]), judge.stats()
        finally:
            await judge.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
@pytest.mark.parametrize("kind", ["refused", "empty", "wrong_schema", "truncated"])
def test_a_candidate_that_breaks_the_judge_does_no_better_than_losing(adversarial_judge, topology, kind):
    result, stats = rank(adversarial_judge, group(PHRASE[kind]), topology)
    # the same candidate (same content, so the same seeded draws and opponents) losing every match without a call
    lost, _ = rank(adversarial_judge, group(PHRASE[kind], no_answer=True), topology)
    assert not result.voided and result.failures == 0 and result.failure_reasons == {}
    assert result.rewards[CULPRIT] <= lost.rewards[CULPRIT] + 1e-9
    assert result.rewards == lost.rewards  # in fact exactly where losing puts it, and nobody else moves
    assert result.advantages[CULPRIT] < 0 and result.rewards[CULPRIT] == min(result.rewards)
    assert stats["judge"]["attributed"] >= 1 and stats["judge"].get("unattributed", 0) == 0
    if topology == "multi_round":  # group judgments pass the culprit over
        assert stats["judge"]["passed_over"] >= 1
    else:  # pairwise judgments record the forfeit in the match log
        assert result.forfeited == [i == CULPRIT for i in range(8)]
        assert all(m.verdict.meta["shortcut"] == "forfeit" for m in result.matches if m.forfeits)
        assert result.forfeits == sum(CULPRIT in m.players for m in result.matches if m.kind == "compare")


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin", "multi_round"])
def test_stalling_the_judge_on_one_pair_is_a_forfeit_too(adversarial_judge, topology):
    # a timeout well above the judge's normal latency (long group prompts included, on a loaded machine): the
    # stall is pinned on the content only while the endpoint answers others within half the timeout
    result, stats = rank(adversarial_judge, group(PHRASE["hang"]), topology, timeout_s=1.5)
    assert not result.voided and result.failure_reasons == {}
    assert result.rewards[CULPRIT] == min(result.rewards) and result.advantages[CULPRIT] < 0
    assert stats["judge"]["attributed"] >= 1


@pytest.mark.slow
def test_a_stalled_pair_does_not_take_the_endpoint_out():
    with MockJudgeThread(MockJudgeConfig(triggers=TRIGGERS, hang_s=30)) as url:
        # 1.5 s, as above: the stall is the content's only while others are answered within half of it (CI's load
        # made 0.25 s too short for 56 requests at once)
        judge = LLMJudge(judge_config(url, timeout_s=1.5, failure_threshold=1, cooldown_s=60))

        async def run():
            try:
                return await rank_group(QUERY, group(PHRASE["hang"]), OrderSwapJudge(judge), "round_robin")
            finally:
                await judge.aclose()

        result = asyncio.run(run())
    health = judge.client.health()[0]
    # the endpoint kept answering every other request, so the stalled ones say nothing about its health
    assert health["healthy"] and health["cooldowns"] == 0 and health["failures"] == 0
    assert result.forfeited[CULPRIT] and not result.voided


def test_the_first_refusal_is_probed_once_and_later_matches_cost_nothing(adversarial_judge):
    result, stats = rank(adversarial_judge, group(PHRASE["refused"]), "seeded_single_elimination")
    # seeding: the culprit meets the anchor in both orders (2 refusals); then each is probed alone in both slots (the
    # culprit's two probes are refused), and two controls are judged fine: the group's query control (two short
    # neutral candidates) and one of the culprit's size; its bracket match is a forfeit without a request
    assert stats["http"]["failures"] == {"refused": 4} and stats["judge"]["probes"] == 4
    assert stats["judge"]["controls"] == 2 and stats["judge"]["attributed"] == 2  # the two orders, both traced
    bracket = [m for m in result.matches if m.stage == "bracket" and CULPRIT in m.players]
    assert bracket and all(m.forfeits == (CULPRIT,) and m.verdict.usage == {} for m in bracket)


def test_probe_outcomes_are_kept_in_the_verdict_cache(adversarial_judge, tmp_path):
    cache = str(tmp_path / "verdicts.sqlite")
    first, first_stats = rank(adversarial_judge, group(PHRASE["refused"]), "anchor", cache_path=cache)
    again, again_stats = rank(adversarial_judge, group(PHRASE["refused"]), "anchor", cache_path=cache)
    assert first_stats["judge"]["probes"] == 4 and again_stats["judge"].get("probes", 0) == 0
    assert again.forfeited == first.forfeited and again.rewards == first.rewards


def test_a_failure_nobody_caused_keeps_the_counted_fallback(adversarial_judge):
    # the query itself is refused: so is the query control (two short neutral candidates, twice), so the judge cannot
    # judge this query: the group is voided as the judge's fault, and no candidate is probed or blamed
    result, stats = rank(adversarial_judge, group(), "round_robin", query=f"{QUERY} {PHRASE['refused']}")
    assert result.voided and result.void_reason == "judge_fault" and not any(result.forfeited)
    assert result.failure_reasons == {"refused": 28} and "refused" in result.details["judge_fault"]
    assert stats["judge"]["query_controls_failed"] == 1 and "probes" not in stats["judge"]
    assert "attributed" not in stats["judge"] and stats["http"]["sent"] <= 2 * 28 + 2


def test_infrastructure_failures_are_never_probed(mock_judge):
    url, _ = mock_judge(down=True)
    result, stats = rank(url, group(), "anchor", retry={"max_attempts": 2, "initial_wait_s": 0.0})
    assert result.voided and set(result.failure_reasons) <= {"http_503", "unavailable"}
    assert stats["judge"].get("probes", 0) == 0 and not any(result.forfeited)


A, B = Candidate("a", "answer a"), Candidate("b", "answer b")


@pytest.mark.parametrize(
    "verdict",
    [
        PairVerdict(6.0, 5.0, forfeit=("a",)),
        PairVerdict(5.0, 5.0, forfeit=("b",)),
        PairVerdict(1, 0, forfeit=("a", "b")),
    ],
)
def test_a_forfeiting_side_that_does_not_lose_is_a_broken_judge(verdict):
    judge = ScriptedPairJudge({("a", "b"): verdict, ("b", "a"): verdict})
    with pytest.raises(InvalidJudgeOutput, match="forfeit"):
        asyncio.run(rank_group(QUERY, [A, B], judge, "anchor", anchor=1))
