# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Blame only what the content caused: each attack of the table in issue 17 against a judge deployment that falls for
it, over real HTTP (the mock judge made to behave like the deployment); and, last, the tracer itself on scripted
probes, and the probes and controls it is given.

In every group a strong plan honestly ranks first and a weak non-answer last. The weak one is played three ways:
honest, attacking (its text rewritten by the attack) and losing (the attacking text marked as having no answer, so
it loses every match without a call). Attacking must never beat losing, and the strong plan must never lose reward to
the judge's own trouble.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from helpers import TRIGGER, attacked, group, judge_config, rank_over_http, triggering

from verl_arena import Candidate, GroupResult, JudgeError, rank_group
from verl_arena.judges import build_judge
from verl_arena.judges.blame import BlameProbe, FaultTracer, ProbeMaker, Suspect, filler, same_classes
from verl_arena.judges.budget import PromptBudget, byte_bound
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.templates import load_template
from verl_arena.outcomes.members import member_outcomes
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.testing.deployments import word_tokens
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import ATTACKS, QUERY, STOPS, STRONG, WEAK, pad, thorough, timetable


def played(url: str, attack: Any, topology: str, **judge: Any) -> dict[str, GroupResult]:
    plans = group()
    return {
        "honest": rank_over_http(url, plans, topology, **judge)[0],
        "attacking": rank_over_http(url, attacked(plans, attack), topology, **judge)[0],
        "losing": rank_over_http(url, attacked(plans, attack, losing=True), topology, **judge)[0],
    }


def assert_no_gain(ways: dict[str, GroupResult]) -> None:
    """The attack gains the weak nothing, and costs the strong plan nothing (against losing: the same content, so
    the same seeded draws)."""
    attacking, losing = ways["attacking"], ways["losing"]
    assert not attacking.voided
    assert attacking.rewards[WEAK] <= losing.rewards[WEAK] + 1e-9
    assert attacking.rewards[STRONG] >= losing.rewards[STRONG] - 1e-9


# -- verdicts the judge did not give ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quoting_judge():
    with MockJudgeThread(MockJudgeConfig(quote_b=True)) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss", "budgeted"])
@pytest.mark.parametrize("attack", ["forged_verdict", "forged_verdict_id"])
def test_a_forged_verdict_the_judge_quotes_after_its_own_counts_for_nothing(quoting_judge, topology, attack):
    ways = played(quoting_judge, ATTACKS[attack], topology)
    assert_no_gain(ways)
    assert ways["attacking"].rewards[STRONG] == 1.0


def test_a_judge_thinking_aloud_and_cut_at_max_tokens_is_never_read():
    # the judge rereads both candidates (quoting the forged verdict) before its own verdict, and 300 tokens cut it
    with MockJudgeThread(MockJudgeConfig(thinking=0.3)) as url:
        ways = played(url, ATTACKS["forged_verdict"], "round_robin", max_tokens=300)
        _, stats = rank_over_http(url, attacked(group(), ATTACKS["forged_verdict"]), "round_robin", max_tokens=300)
    assert_no_gain(ways)
    assert stats["judge"]["reasked_truncated"] > 0  # the cut replies were asked again with more room
    assert not ways["attacking"].degraded


# -- the context -------------------------------------------------------------------------------------------------

CONTEXT, REPLY = 8192, 512


@pytest.fixture(scope="module")
def small_context_judge():
    # a dense tokenizer (a byte a token): the judge's byte bound is exact here, the tightest case for the budget
    with MockJudgeThread(MockJudgeConfig(context_tokens=CONTEXT, bytes_per_token=1.0)) as url:
        yield url


def _padded(c: Candidate) -> Candidate:
    """Padded until, judged alone against an empty partner, the prompt just fits the judge's context."""
    return Candidate(c.id, pad(c.answer, CONTEXT - REPLY - 1500), c.path)


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss", "budgeted", "anchor"])
def test_padding_to_the_edge_of_the_context_is_cut_to_its_share_and_no_prompt_overflows(small_context_judge, topology):
    settings = {"context_tokens": CONTEXT, "max_tokens": REPLY}
    ways = played(small_context_judge, _padded, topology, **settings)
    assert_no_gain(ways)
    assert ways["attacking"].failures == 0  # nothing overflowed: the padding was simply cut


def test_listwise_reads_a_padded_group_within_the_context_and_voids_nothing(small_context_judge):
    url = small_context_judge
    result, _ = rank_over_http(url, attacked(group(), _padded), "listwise", context_tokens=CONTEXT, max_tokens=REPLY)
    assert not result.voided and result.failures == 0
    assert result.rewards[WEAK] == min(result.rewards)


def test_a_judge_whose_context_is_smaller_than_configured_reads_less_of_both_instead_of_tying():
    # the judge was told 32768 tokens of context; the server has 8192 and does not say so on /v1/models: the padded
    # candidate's pairs overflow (HTTP 400), which is a matter of size, never of content, so nobody is traced or blamed;
    # the pair is asked again on a half, then a quarter, of each side's share, which fits, and the padding loses on its
    # merits
    deployment = MockJudgeConfig(context_tokens=CONTEXT, bytes_per_token=1.0, report_context=False)
    with MockJudgeThread(deployment) as url:
        result, stats = rank_over_http(url, attacked(group(), _padded), "round_robin", max_tokens=REPLY)
    assert not result.voided and not any(result.forfeited) and result.failures == 0
    assert result.rewards[WEAK] == 0.0 and result.rewards[STRONG] == 1.0
    assert stats["judge"]["context_overflows"] >= 1 and stats["judge"]["shrunk"] >= 1
    assert stats["judge"].get("probes", 0) == 0 and stats["judge"].get("attributed", 0) == 0
    shrunk = [m for m in result.matches for order in ("ab", "ba") if m.verdict.meta[order].get("shrunk")]
    assert shrunk and all(len(result.ids) - 1 in m.players for m in shrunk)  # only the padded one's pairs


# -- status codes ------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["403", "too_large", "500", "refused"])
@pytest.mark.parametrize("slot", ["any", "B"])
def test_content_the_server_refuses_is_blamed_whatever_the_status_and_slot(fault, slot):
    config = MockJudgeConfig(triggers={TRIGGER: fault}, trigger_slot=slot)
    with MockJudgeThread(config) as url:
        for topology in ("round_robin", "seeded_single_elimination"):
            ways = played(url, triggering, topology)
            assert_no_gain(ways)
            assert ways["attacking"].forfeited[WEAK] and sum(ways["attacking"].forfeited) == 1


def test_a_content_triggered_500_in_every_group_never_takes_the_endpoint_out():
    config = MockJudgeConfig(triggers={TRIGGER: "500"})
    with MockJudgeThread(config) as url:
        # a timeout well above this loaded judge's latency (672 requests on one loopback thread): a 500 is the
        # content's only while the endpoint answers others within half the timeout
        judge = build_judge(judge_config(url, template="travel", failure_threshold=3, cooldown_s=60, timeout_s=20.0))

        async def run():
            groups = [attacked(group(seed), triggering) for seed in range(6)]
            try:
                return await asyncio.gather(*(rank_group(QUERY, g, judge, "round_robin") for g in groups))
            finally:
                await judge.aclose()

        results = asyncio.run(run())
    health = judge.health()[0]
    assert health["cooldowns"] == 0 and health["healthy"]
    assert not any(r.voided for r in results) and all(r.forfeited[WEAK] for r in results)


# -- broken judges -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_garbage_judge_voids_every_group_and_blames_nobody():
    with MockJudgeThread(MockJudgeConfig(faults={"garbage": 1.0})) as url:
        results = [
            rank_over_http(url, group(seed), topology, max_tokens=48)[0]
            for seed, topology in enumerate(["round_robin", "seeded_single_elimination", "swiss", "budgeted"])
        ]
    assert all(r.voided and not any(r.forfeited) for r in results)
    assert all(a == 0.0 for r in results for a in r.advantages)
    # and the training step says so: the alarm metric counts the groups voided for it
    answers = []
    for k, r in enumerate(results):
        members, _ = member_outcomes(r, group(k), members=len(r.ids), anchor=0, expected=len(r.ids))
        answers += [(f"g{k}", m) for m in members]
    metrics = summarize(answers)
    judge_faults = sum(r.void_reason == "judge_fault" for r in results)
    assert judge_faults >= 1 and metrics["arena/judge_fault_groups"] == judge_faults
    assert metrics["arena/forfeits"] == 0 and metrics["arena/voided_groups"] == len(results)


# -- honest long plans -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss"])
def test_a_long_thorough_plan_before_a_thinking_judge_keeps_its_reward(topology):
    # the judge thinks about a fifth of a token per prompt token at the default max_tokens (1024): pairs with the
    # thorough plan are cut, and asked again with more room
    plans = group()
    plans[STRONG] = thorough(plans[STRONG])
    with MockJudgeThread(MockJudgeConfig(thinking=0.2)) as url:
        result, stats = rank_over_http(url, plans, topology)
    assert not result.voided and not any(result.forfeited)
    assert result.rewards[STRONG] == 1.0 and stats["judge"]["reasked_truncated"] > 0


# -- a judge that slows down with the prompt ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["swiss", "budgeted"])
def test_a_candidate_that_stalls_the_judge_only_when_paired_gains_nothing(topology):
    # latency grows with the prompt (0.4 s per thousand tokens): honest pairs answer in 0.9 s, well within the 2.1 s
    # timeout; the weak one pads itself so that judged alone (its probes, and their controls) it answers in 2.0 s, but
    # paired with any plan it takes 2.2 s: tracing blames nobody, and the pair is asked again on half of each side's
    # share, which the judge answers in time, so the padding loses on its merits
    honest = [thorough(p, 900, 900) for p in group()[:WEAK]] + [group()[WEAK]]
    padded = lambda c: Candidate(c.id, pad(c.answer, 12_000), c.path)  # noqa: E731
    ways, stats = {}, {}
    with MockJudgeThread(MockJudgeConfig(latency_per_1k_tokens=0.4)) as url:
        for way, plans in (
            ("honest", honest),
            ("attacking", attacked(honest, padded)),
            ("losing", attacked(honest, padded, losing=True)),
        ):
            ways[way], stats[way] = rank_over_http(url, plans, topology, timeout_s=2.1, retry={"initial_wait_s": 0.01})
    assert_no_gain(ways)
    assert ways["attacking"].failures == 0 and stats["attacking"]["judge"]["shrunk"] >= 1


@pytest.mark.parametrize("topology", ["swiss", "seeded_single_elimination", "budgeted", "double_elimination"])
def test_content_that_derails_the_judge_only_beside_a_real_opponent_forfeits_from_its_second_opponent(topology):
    # the phrase makes the judge reply empty whenever the prompt holds a real opponent, never in a probe against an
    # empty one: tracing blames nobody, reading less of both does not help (the phrase stays), and the second
    # opponent it fails with makes it forfeit; the group is then played again with it forfeiting from the start (in
    # seeded single elimination its first judgment, its only one, is weighed beside controls: it forfeits at once)
    config = MockJudgeConfig(triggers={TRIGGER: "empty"}, trigger_slot="pair")
    with MockJudgeThread(config) as url:
        ways = played(url, triggering, topology)
    assert_no_gain(ways)
    attacking = ways["attacking"]
    assert attacking.forfeited[WEAK] and sum(attacking.forfeited) == 1
    if "restarted" in attacking.details:  # found stalling with its second opponent: played again, nothing failed
        assert attacking.details["restarted"]["stalled"] == [attacking.ids[WEAK]] and attacking.failures == 0
    else:  # its one judgment (a seeding) failed and was weighed beside controls: its forfeit from the first round
        [weighed] = attacking.details["exits"]
        assert weighed["decision"] == "forfeit" and attacking.failures == 1
    assert attacking.rewards == ways["losing"].rewards  # exactly where losing puts everyone


@pytest.mark.slow
def test_a_judge_slow_for_everyone_blames_nobody_for_its_timeouts():
    # a server working on 4 requests at once, a client sending 64: requests queue at the server and many time out,
    # the long thorough plan's most of all; the judge answers nobody quickly, so no timeout is the content's doing
    plans = group()
    plans[STRONG] = thorough(plans[STRONG])
    settings = {"max_concurrency": 64, "timeout_s": 0.6, "retry": {"max_attempts": 2, "initial_wait_s": 0.05}}
    with MockJudgeThread(MockJudgeConfig(capacity=4, latency=0.02, latency_per_1k_tokens=0.02)) as url:
        built = build_judge(judge_config(url, template="travel", **settings))

        async def run():
            try:
                groups = [[*plans[:WEAK], Candidate(f"w{i}", f"{plans[WEAK].answer} ({i})")] for i in range(4)]
                return await asyncio.gather(*(rank_group(QUERY, g, built, "round_robin") for g in groups))
            finally:
                await built.aclose()

        results = asyncio.run(run())
    assert sum(r.failures for r in results) > 0  # the load was real
    assert not any(any(r.forfeited) for r in results)
    # a group may be voided, as the judge's trouble (how many judgments fail, and so which reason, is the machine's
    # load: CI once saw a reason other than failed_judgments), never a candidate's
    judge_reasons = (None, "failed_judgments", "judge_fault", "no_information")
    assert all(r.void_reason in judge_reasons for r in results), [r.void_reason for r in results]


# -- the tracer, its probes and its controls --------------------------------------------------------------------------

REFUSED = JudgeError("refused", reason="refused", input_related=True)
TIMEOUT = JudgeError("timeout", reason="timeout", input_related=True)
DOWN = JudgeError("down", reason="http_503")


class Script:
    """What each probe key gets from a scripted judge, in turn (the last answer repeats): ``"ok"`` or an error."""

    def __init__(self, **answers: list[Any]) -> None:
        self.answers = answers
        self.runs: list[str] = []

    def probe(self, key: str, kind: str = "probe") -> BlameProbe:
        async def run() -> None:
            self.runs.append(key)
            await asyncio.sleep(0)
            answers = self.answers[key]
            answer = answers.pop(0) if len(answers) > 1 else answers[0]
            if answer != "ok":
                raise answer

        return BlameProbe(key, run, kind)  # type: ignore[arg-type]

    def suspect(self, name: str) -> Suspect:
        """A candidate probed in slot A only, with its control."""
        return Suspect(name, (self.probe(f"{name}-probe"),), (self.probe(f"{name}-control", "control"),))


def traced(tracer: FaultTracer, *suspects: Suspect) -> list[int] | JudgeError:
    try:
        return asyncio.run(tracer.culprits(REFUSED, suspects))
    except JudgeError as exc:
        return exc


def test_a_suspect_whose_probe_fails_where_its_control_does_not_is_blamed_once_and_remembered():
    script = Script(**{"x-probe": [REFUSED], "x-control": ["ok"], "y-probe": ["ok"], "y-control": ["ok"]})
    tracer = FaultTracer()
    assert traced(tracer, script.suspect("x"), script.suspect("y")) == [0]
    assert tracer.known_fault("x") == "refused" and tracer.known_fault("y") is None
    assert tracer.counts == {"probes": 2, "controls": 1, "attributed": 1}
    assert traced(tracer, script.suspect("x"), script.suspect("y")) == [0] and len(script.runs) == 3  # nothing again


def test_a_judge_that_fails_the_control_too_blames_nobody():
    script = Script(**{"x-probe": [REFUSED], "x-control": [REFUSED]})
    tracer = FaultTracer()
    assert traced(tracer, script.suspect("x")) is REFUSED  # the judgment's own error, raised again
    assert tracer.known_fault("x") is None and tracer.counts["control_failed"] == 1
    assert tracer.counts["unattributed"] == 1


def test_the_judges_own_trouble_says_nothing_about_the_content_and_is_asked_again_later():
    script = Script(**{"x-probe": [DOWN, REFUSED], "x-control": ["ok"]})
    tracer = FaultTracer()
    assert traced(tracer, script.suspect("x")) is REFUSED and tracer.known_fault("x") is None
    assert traced(tracer, script.suspect("x")) == [0]  # the outcome "unknown" was not remembered


@pytest.mark.parametrize(("again", "blamed"), [(TIMEOUT, True), ("ok", False)])
def test_a_stall_blames_only_when_it_stalls_again_beside_its_control_answered(again, blamed):
    script = Script(**{"x-probe": [TIMEOUT, again], "x-control": ["ok"]})
    tracer = FaultTracer()
    assert (traced(tracer, script.suspect("x")) == [0]) is blamed
    assert script.runs == ["x-probe", "x-probe", "x-control"]  # run again, side by side with its control


def test_concurrent_traces_of_one_probe_run_it_once():
    script = Script(**{"x-probe": [REFUSED], "x-control": ["ok"]})
    tracer = FaultTracer()

    async def many() -> list[list[int]]:
        return list(await asyncio.gather(*(tracer.culprits(REFUSED, [script.suspect("x")]) for _ in range(5))))

    assert asyncio.run(many()) == [[0]] * 5 and script.runs == ["x-probe", "x-control"]


def test_the_blamed_are_remembered_up_to_the_capacity():
    tracer = FaultTracer(capacity=2)
    tracer.blame(["a", "b"], "planted_verdict_id")
    tracer.blame(["c"], "refused")
    assert [tracer.known_fault(s) for s in "abc"] == [None, "planted_verdict_id", "refused"]


def test_probes_show_the_suspect_alone_in_each_slot_and_controls_its_shape_without_its_content():
    asked: list[tuple[str, tuple[Candidate, Candidate]]] = []

    async def ask(render: Callable[[str], list[dict[str, str]]], verdict_id: str, shown: tuple) -> None:
        asked.append((render(verdict_id)[1]["content"], shown))

    travel = load_template("travel")
    maker = ProbeMaker(travel, "judge-1", PromptBudget(32_768, 1024), ask)
    context = JudgeContext(["stays under 600 yuan"])
    plan = thorough(group()[STRONG])
    suspect = maker.suspect(QUERY, plan, plan, context)
    assert suspect.subject == maker.subject(QUERY, plan, context) != maker.subject("another query", plan, context)

    async def run_all() -> None:
        for probe in (*suspect.probes, *suspect.controls):
            await probe.run()

    asyncio.run(run_all())
    (probe_a, a_shown), (probe_b, b_shown), (_, control_a), (_, control_b) = asked
    assert a_shown[0] is plan and b_shown[1] is plan and a_shown[1].answer == b_shown[0].answer == ""
    assert control_a[0].answer == same_classes(plan.answer) and control_b[1].path == same_classes(plan.path)
    assert "stays under 600 yuan" in probe_a and "stays under 600 yuan" in probe_b  # judged like the query
    keys = [p.key for p in (*suspect.probes, *suspect.controls)]
    assert len(set(keys)) == 4 and [p.kind for p in suspect.controls] == ["control", "control"]


def test_filler_holds_whole_sentences_up_to_its_size():
    text = filler(300, byte_bound)
    assert 240 <= byte_bound(text) <= 300 and text.endswith(".") and filler(0, byte_bound) == ""
    assert same_classes("Ab 12,\n京") == "Th 31.\n这"  # case, whitespace and widths kept, no content


def test_a_tracers_control_has_the_suspects_size_in_the_judges_tokens():
    plan = timetable(group()[STRONG])
    for text in (plan.answer, plan.path, thorough(group()[STRONG]).answer, "Kyoto 京都の寺 — 9:00 ✓ café"):
        control = same_classes(text)
        assert word_tokens(control) == word_tokens(text) and byte_bound(control) == byte_bound(text)
        assert "Kyoto" in text and "Kyoto" not in control and not any(stop.split()[0] in control for stop in STOPS)
    # filler of the same length in bytes holds well under half of a timetable's tokens: it would fit where it fails
    assert word_tokens(filler(byte_bound(plan.answer), byte_bound)) < 0.4 * word_tokens(plan.answer)
