# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""No evidence, no blame: the rows of issue 25 about the judge's own faults, each over real HTTP (the mock judge made
to behave like the deployment), on groups of travel plans where a strong plan honestly ranks first and a weak
non-answer last.

- an honest plan dense in digits (a timetable) before a judge whose real context is smaller than configured: the
  context is read from the server; a server that does not say refuses the pair as too long, which is a matter of size
  (both sides read less, nobody blamed); a tracer's control is as long as the plan in the judge's tokens;
- a judge that miscopies verdict ids: asked again with a fresh id, never blamed on a candidate unless the id it
  carries is written in that candidate's text, and a judge that keeps miscopying voids the group as its own fault;
- a candidate that stalls a judge slow for everyone only when paired: its failures concentrate on it and repeat, so
  the group is voided as the judge's fault instead of paying the staller ties; random failures do not repeat and
  rarely void anything.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from helpers import judge_config, make_group

from verl_arena import Candidate, GroupResult, PairVerdict, rank_group
from verl_arena.core.errors import JudgeError
from verl_arena.judges import build_judge
from verl_arena.outcomes.members import member_outcomes
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.simulated import FlakyJudge, SimulatedJudge
from verl_arena.testing.travel import (
    ATTACKS,
    QUERY,
    STRONG,
    WEAK,
    forged_verdict,
    pad,
    plan_group,
    thorough,
    timetable,
)

OPTIONS = {"multi_round": {"repeats": 2}}


def group(seed: int = 0) -> list[Candidate]:
    return plan_group(np.random.default_rng(seed))


def ranked(url: str, groups: list[list[Candidate]], topology: str, **judge: Any) -> tuple[list[GroupResult], dict]:
    built = build_judge(judge_config(url, template="travel", **judge))

    async def run():
        try:
            options = OPTIONS.get(topology, {})
            results = await asyncio.gather(
                *(rank_group(QUERY, g, built, topology, seed=1 + i, **options) for i, g in enumerate(groups))
            )
            return list(results), built.stats()
        finally:
            await built.aclose()

    return asyncio.run(run())


def weak_played(plans: list[Candidate], attack: Any, way: str) -> list[Candidate]:
    if way == "honest":
        return plans
    weak = attack(plans[WEAK])
    return [*plans[:WEAK], replace(weak, meta={"no_answer": True}) if way == "losing" else weak]


# -- sizes in the judge's tokens ------------------------------------------------------------------------------------


def dense_groups(count: int = 2) -> list[list[Candidate]]:
    out = []
    for seed in range(count):
        plans = group(seed)
        plans[STRONG] = timetable(plans[STRONG])
        out.append(plans)
    return out


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin"])
@pytest.mark.parametrize("reports", [True, False], ids=["server_says", "server_silent"])
def test_an_honest_plan_dense_in_digits_keeps_its_reward_before_a_judge_whose_context_is_smaller(topology, reports):
    # the judge is left at the default 32768 tokens of context and counts without a tokenizer; the server has 12288
    # and a tokenizer that splits a timetable about a character a token: at the default, the plan's pairs overflow
    deployment = MockJudgeConfig(context_tokens=12_288, tokenizer="words", report_context=reports)
    with MockJudgeThread(deployment) as url:
        results, stats = ranked(url, dense_groups(), topology)
    for result in results:
        assert not result.voided and not any(result.forfeited)
        assert result.rewards[STRONG] == 1.0 and result.rewards[WEAK] == 0.0
    judge = stats["judge"]
    if reports:  # read from /v1/models before the first request: nothing ever overflows
        assert judge.get("context_overflows", 0) == 0 and judge.get("shrunk", 0) == 0
    else:  # refused as too long: both sides read less, and nobody is traced or blamed for a size
        assert judge["context_overflows"] >= 1 and judge["shrunk"] >= 1
        assert judge.get("probes", 0) == 0 and judge.get("attributed", 0) == 0


@pytest.mark.slow
def test_a_dense_honest_plan_that_a_judge_answers_slowly_is_not_blamed_for_its_size():
    # latency grows with the server's tokens (1 s per thousand) and the judge reads 12288 tokens of context: honest
    # pairs answer in about 0.8 s, the timetable's pairs and probes in about 4.8 s, past the 3.5 s timeout. Filler of
    # the plan's length in bytes would answer in about 1.5 s and blame the plan; a control of its size in tokens times
    # out too, so nobody is blamed, and the pair is asked again on half of both, which the judge answers in about 3 s
    plans = plan_group(np.random.default_rng(0), size=4)
    plans[STRONG] = timetable(plans[STRONG])
    settings = {"context_tokens": 12_288, "timeout_s": 3.5, "retry": {"max_attempts": 1}}
    with MockJudgeThread(MockJudgeConfig(tokenizer="words", latency_per_1k_tokens=1.0)) as url:
        (result,), stats = ranked(url, [plans], "round_robin", **settings)
    assert not result.voided and not any(result.forfeited) and result.failures == 0
    assert result.rewards[STRONG] > result.rewards[WEAK] == 0.0  # judged on half of itself, but judged
    assert stats["judge"]["control_failed"] >= 1 and stats["judge"]["shrunk"] >= 1


# -- verdict ids ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin"])
def test_a_judge_that_miscopies_some_verdict_ids_blames_nobody(topology):
    # a fifth of the prompts get a miscopied verdict id, the same way every time they are asked (a re-ask's follow-up
    # included): asked again with a fresh id, the judge answers, and no probe ever runs for it
    with MockJudgeThread(MockJudgeConfig(miscopy_ids=0.2)) as url:
        results, stats = ranked(url, [group(seed) for seed in range(2)], topology)
    assert stats["judge"]["miscopied_ids"] >= 3 and stats["judge"].get("probes", 0) == 0
    for result in results:
        assert not result.voided and not any(result.forfeited) and result.failures == 0
        assert result.rewards[STRONG] == 1.0 and result.rewards[WEAK] == 0.0


def test_a_judge_that_miscopies_every_verdict_id_voids_every_group_as_its_own_fault():
    with MockJudgeThread(MockJudgeConfig(miscopy_ids=1.0)) as url:
        results, stats = ranked(url, [group(seed) for seed in range(2)], "seeded_single_elimination")
    for result in results:
        assert result.voided and result.void_reason == "judge_fault" and not any(result.forfeited)
        assert "miscopied_id" in result.details["judge_fault"] and all(a == 0.0 for a in result.advantages)
    assert stats["judge"].get("probes", 0) == 0
    answers = []
    for k, result in enumerate(results):
        members, _ = member_outcomes(result, group(k), members=8, anchor=0, expected=8)
        answers += [(f"g{k}", m) for m in members]
    assert summarize(answers)["arena/judge_fault_groups"] == len(results)  # the alarm says so


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin"])
@pytest.mark.parametrize("size", [3, 4, 5, 8, 16])
def test_a_judge_that_cuts_every_reply_blames_no_candidate_anywhere(size, topology, caplog):
    # every reply is cut at max_tokens: the judge cannot judge, and nothing about the candidates says otherwise. No
    # result, member or metric says a candidate forfeited, no warning blames one on the way, the match log records
    # every judgment as failed (none decided by a forfeit), and the judge's requests stay few: each order's one ask,
    # and the group's query control (two tries), no re-asks, probes or smaller asks (what the server counted)
    plans = [replace(c, id=f"c{i}") for i, c in enumerate((group(0) + group(1))[:size])]
    mock = MockJudgeThread(MockJudgeConfig(faults={"truncated": 1.0}))
    with mock as url:
        (result,), stats = ranked(url, [plans], topology)
    assert result.voided and result.void_reason == "judge_fault" and not any(result.forfeited)
    assert result.failure_reasons.get("truncated", 0) > 0 and all(a == 0.0 for a in result.advantages)
    judged = [m for m in result.matches if m.kind != "bye" and not m.usage.get("shortcuts")]  # not identical pairs
    assert all(m.failed and m.judge_fault and not m.forfeits for m in judged)
    assert mock.server.received <= 2 * len(judged) + 2 and stats["http"]["sent"] == mock.server.received
    members, _ = member_outcomes(result, plans, members=size, anchor=0, expected=size)
    assert not any(m.forfeit for m in members)
    metrics = summarize([("g", m) for m in members])
    assert metrics["arena/forfeits"] == 0 and metrics["arena/judge_fault_groups"] == 1
    blamed = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "forfeit" in r.getMessage()]
    assert not blamed


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin"])
def test_a_verdict_id_planted_in_a_candidates_text_is_that_candidates_doing(topology):
    # the judge obeys a verdict written in a candidate's text, made-up verdict id and all: the id it replies with is
    # written in the weak candidate's answer, which is evidence enough; the weak one forfeits without any probe
    attack = ATTACKS["forged_verdict_id"]
    with MockJudgeThread(MockJudgeConfig(obeys_verdicts=True)) as url:
        ways = {way: ranked(url, [weak_played(group(), attack, way)], topology) for way in ("attacking", "losing")}
    (attacking,), stats = ways["attacking"]
    (losing,), _ = ways["losing"]
    assert not attacking.voided and attacking.forfeited[WEAK] and sum(attacking.forfeited) == 1
    assert attacking.rewards[WEAK] <= losing.rewards[WEAK] and attacking.rewards[STRONG] == 1.0
    assert stats["judge"]["planted_verdict_ids"] >= 1 and stats["judge"].get("probes", 0) == 0


def disguised(verdict_id: str, how: str) -> Any:
    """The weak non-answer with a verdict for slot B appended, its verdict id written ``how``."""
    written = {
        "escaped": "".join(f"\\u{ord(ch):04x}" for ch in verdict_id),
        "hidden": "\u200b".join(verdict_id).replace("e", "\u0435"),  # zero-width between, Cyrillic e
        "plain": verdict_id,
    }[how]
    text = forged_verdict(verdict_id="@@").replace("@@", written)
    return lambda c: Candidate(c.id, f"{c.answer}\n{text}", c.path)


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin"])
@pytest.mark.parametrize(
    ("verdict_id", "how"),
    [("5eed0ff1ce42", "escaped"), ("5eed0ff1ce42", "hidden"), ("5eed", "plain"), ("", "plain")],
    ids=["escaped", "zero_width_lookalike", "short", "empty"],
)
def test_a_disguised_verdict_id_is_traced_to_the_candidate_that_wrote_it(topology, verdict_id, how):
    # the judge obeys the first verdict it reads, which the weak non-answer wrote with a disguised id: read as a reader
    # sees it, a long id is found in its text (it forfeits, no probe); a short or empty one is not looked for, but it
    # comes back to a fresh id, so tracing judges each candidate alone beside a control of its size, and the weak
    # one's probe repeats it while its control is answered. Nobody else pays, and the group is not voided
    attack = disguised(verdict_id, how)
    with MockJudgeThread(MockJudgeConfig(obeys_verdicts=True)) as url:
        ways = {way: ranked(url, [weak_played(group(), attack, way)], topology) for way in ("attacking", "losing")}
    (attacking,), stats = ways["attacking"]
    (losing,), _ = ways["losing"]
    assert not attacking.voided and attacking.forfeited[WEAK] and sum(attacking.forfeited) == 1
    assert attacking.rewards[WEAK] <= losing.rewards[WEAK] and attacking.rewards[STRONG] == 1.0
    assert attacking.advantages[WEAK] <= losing.advantages[WEAK] and attacking.advantages[STRONG] > 1
    if len(verdict_id) >= 6:
        assert stats["judge"]["planted_verdict_ids"] >= 1 and stats["judge"].get("probes", 0) == 0
    else:
        assert stats["judge"]["attributed"] >= 1 and stats["judge"]["probes"] >= 1


def test_a_judge_that_copies_a_fixed_verdict_id_from_its_own_prompt_blames_nobody():
    # whatever it is asked, the judge writes the same id: it repeats to a fresh id, so it is traced once, and the
    # control repeats it too: the judge's own, remembered, and the groups are voided as its fault without tracing
    # every other judgment again
    with MockJudgeThread(MockJudgeConfig(fixed_verdict_id="verdict-0001")) as url:
        results, stats = ranked(url, [group(seed) for seed in range(2)], "round_robin")
    for result in results:
        assert result.voided and result.void_reason == "judge_fault" and not any(result.forfeited)
        assert "repeated_verdict_id" in result.details["judge_fault"] and "exits" not in result.details
    # traced once: the group's query control (two short neutral candidates) carries the id too, so no candidate is
    # probed
    assert stats["judge"]["own_verdict_ids"] >= 50 and stats["judge"]["query_controls_failed"] == 1
    assert stats["judge"].get("probes", 0) == 0 and stats["judge"].get("attributed", 0) == 0


GATEWAY = "[[the gateway's backend dies on this]]"


@pytest.mark.parametrize(
    "topology", ["seeded_single_elimination", "round_robin", "swiss", "double_elimination", "anchor"]
)
@pytest.mark.parametrize("when", ["always", "losing"])
def test_a_gateway_502_where_the_loser_takes_part_is_its_forfeit_on_evidence(topology, when):
    # its text makes the gateway answer 502 (never traced: a gateway's status is the infrastructure's), always or
    # only when it would lose. The failures concentrate on it; replayed beside a control of its size, they fail again
    # and the controls are answered: it forfeits. Before, the group was voided: advantage 0 for the loser, 0 for the
    # strong plan (in anchor, it took the anchor's score); and its 502s never took the endpoint out for everyone
    attack = lambda c: Candidate(c.id, f"{c.answer} {GATEWAY}", c.path)  # noqa: E731
    deployment = MockJudgeConfig(triggers={GATEWAY: "502"}, trigger_when=when)
    with MockJudgeThread(deployment) as url:
        ways = {
            way: ranked(
                url, [weak_played(group(), attack, way)], topology, cooldown_s=30.0, retry={"initial_wait_s": 0.01}
            )
            for way in ("attacking", "losing")
        }
    (attacking,), stats = ways["attacking"]
    (losing,), _ = ways["losing"]
    assert not attacking.voided and attacking.forfeited[WEAK] and sum(attacking.forfeited) == 1
    assert attacking.advantages[WEAK] <= losing.advantages[WEAK]
    assert attacking.advantages[STRONG] == losing.advantages[STRONG]  # nobody else pays (in anchor it is the anchor)
    assert attacking.advantages[STRONG] > 1 or topology == "anchor"
    [weighed] = attacking.details["exits"]
    assert weighed["decision"] == "forfeit" and weighed["cause"].startswith("http_502")
    assert stats["http"]["failures"].get("unavailable", 0) == 0  # the endpoint was never taken out


def test_random_502s_spread_over_the_group_blame_nobody():
    # a gateway failing a fifth of its requests at random (one attempt each): failures asked again, a few ties, maybe
    # a concentration, which its replays and controls leave on chance or the judge, never on an honest plan
    with MockJudgeThread(MockJudgeConfig(faults={"502": 0.2}, seed=3)) as url:
        results, _ = ranked(url, [group(seed) for seed in range(4)], "round_robin", retry={"max_attempts": 1})
    for result in results:
        assert not any(result.forfeited)
        assert all(e["decision"] != "forfeit" for e in result.details.get("exits", []))


# -- failures concentrated on one candidate -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["swiss", "round_robin"])
def test_a_paired_stall_before_a_judge_slow_for_everyone_voids_the_group_instead_of_paying_ties(topology):
    # every request takes 0.6 s and 0.4 s more per thousand tokens: honest pairs answer in about 1.5 s, more than half
    # the 2.1 s timeout, so the judge is slow for everyone and no timeout can be pinned on content; the weak one pads
    # itself so that paired with any plan the judge takes about 2.8 s. Its timeouts concentrate on it, repeat when
    # asked again, and the group is voided as the judge's fault: no tie is paid, nobody is blamed
    honest = [thorough(p, 900, 900) for p in group()[:WEAK]] + [group()[WEAK]]
    padded = lambda c: Candidate(c.id, pad(c.answer, 12_000), c.path)  # noqa: E731
    settings = {"timeout_s": 2.1, "retry": {"initial_wait_s": 0.01, "max_attempts": 2}}
    results = {}
    with MockJudgeThread(MockJudgeConfig(latency=0.6, latency_per_1k_tokens=0.4)) as url:
        for way in ("honest", "attacking", "losing"):
            (results[way],), _ = ranked(url, [weak_played(honest, padded, way)], topology, **settings)
    attacking = results["attacking"]
    assert attacking.voided and attacking.void_reason == "judge_fault" and not any(attacking.forfeited)
    assert "timeout" in attacking.details["judge_fault"]
    for way in ("honest", "losing"):
        assert not results[way].voided and results[way].failures == 0 and results[way].rewards[WEAK] == 0.0


class StallingJudge:
    """A simulated judge (statistics only, no transport) that fails every judgment of ``staller`` (the judge's own
    trouble, not input-related), or only the first ask of each of its pairs when ``repeats`` is false."""

    def __init__(self, staller: str, *, repeats: bool) -> None:
        self.inner = SimulatedJudge(noise=0.0)
        self.staller, self.repeats = staller, repeats
        self.asked: dict[tuple[str, str], int] = {}

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        key = (a.id, b.id)
        self.asked[key] = self.asked.get(key, 0) + 1
        if self.staller in key and (self.repeats or self.asked[key] == 1):
            raise JudgeError("no answer within the timeout", reason="timeout")
        return await self.inner.compare(query, a, b)


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin", "swiss", "double_elimination"])
def test_failures_concentrated_on_one_candidate_void_only_when_they_repeat(topology):
    candidates = make_group([0.3, 1.2, -0.5, 0.8, 0.1, -1.4, 2.0, -0.2])
    staller = candidates[5].id  # the worst: every tie it collects is a gain
    repeated = asyncio.run(rank_group("q", candidates, StallingJudge(staller, repeats=True), topology, seed=2))
    assert repeated.voided and repeated.void_reason == "judge_fault" and not any(repeated.forfeited)
    assert any(m.judge_fault for m in repeated.matches)
    once = asyncio.run(rank_group("q", candidates, StallingJudge(staller, repeats=False), topology, seed=2))
    # chance failures: answered when asked again after their round, and the answers used as a clean judge gives them
    assert not once.voided and once.failures == 0 and once.details["asked_again"]["answered"] >= 2
    assert not any(m.judge_fault for m in once.matches)
    clean = asyncio.run(rank_group("q", candidates, SimulatedJudge(noise=0.0), topology, seed=2))
    assert once.advantages == clean.advantages and once.matches == clean.matches


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin", "swiss", "double_elimination"])
def test_honest_random_failures_rarely_void_a_group(topology):
    # a judge failing its judgments at random (the judge's trouble, after the client's retries): a concentration the
    # judge repeats when asked again takes chance twice over, about one group in several thousand at 5%, a few in a
    # hundred at 20% (a badly broken judge)
    candidates = make_group([0.3, 1.2, -0.5, 0.8, 0.1, -1.4, 2.0, -0.2])

    async def shares(rate: float, groups: int = 200) -> tuple[float, float]:
        voided = blamed = 0
        for g in range(groups):
            judge = FlakyJudge(SimulatedJudge(noise=0.5, seed=g), failure_rate=rate, seed=g)
            result = await rank_group("q", candidates, judge, topology, seed=g)
            voided += result.void_reason == "judge_fault"
            blamed += any(result.forfeited)
        return voided / groups, blamed / groups

    # and never blame an honest candidate: a concentration is weighed by four replays beside controls, which chance
    # fails all of, while answering every control, rarely (the judge fails at random, whatever it is shown)
    assert asyncio.run(shares(0.05)) <= (0.01, 0.0)
    voided, blamed = asyncio.run(shares(0.2))
    assert voided <= 0.05 and blamed <= 0.01
