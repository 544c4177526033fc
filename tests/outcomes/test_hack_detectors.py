# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The hack detectors see through obfuscation: keyword stuffing, a bare answer after a token process (or none),
paraphrased padding and padding by zero-width characters are flagged, honest groups are not, and the thresholds reach
the coordinator's screening (planted text in disguise: ``test_judge_directed.py``)."""

from __future__ import annotations

import asyncio
import pickle
from dataclasses import replace

import numpy as np
import pytest
from helpers import EXAMPLE, screening_groups
from pydantic import ValidationError

from verl_arena import Candidate, Tournament
from verl_arena.evaluation.audit.evasive import TOKEN_PROCESS, disguise, paraphrased_padding, stuffed
from verl_arena.offline.groups import load_groups
from verl_arena.outcomes import hack_detectors
from verl_arena.outcomes.hack_alarm import HackAlarmConfig
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, HackThresholds, ScreenedGroup, member_features
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission
from verl_arena.testing import SimulatedJudge
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group

NEW = ("keyword_stuffing", "bare_answer", "generic_padding")


def flagged(candidates, query=QUERY, thresholds=None) -> dict[str, list[bool]]:
    group = ScreenedGroup.of(candidates, query)
    return {name: d.flags(group, thresholds) for name, d in HACK_DETECTORS.items()}


def with_weak(plans: list[Candidate], hacked: Candidate) -> list[Candidate]:
    return [*plans[:WEAK], hacked]


@pytest.fixture
def plans():
    return plan_group(np.random.default_rng(7))


def test_a_stuffed_non_answer_is_flagged_even_in_disguise_and_only_it(plans):
    rng = np.random.default_rng(0)
    weak = plans[WEAK]
    for text in (stuffed(QUERY, rng), disguise(stuffed(QUERY, rng), rng), f"{weak.answer} {stuffed(QUERY, rng)}"):
        flags = flagged(with_weak(plans, replace(weak, answer=text)))
        assert flags["keyword_stuffing"] == [False] * 7 + [True], text
        assert not any(flags["short"]) and not any(flags["filler"]) and not any(flags["judge_directed"])
    stuffed_process = replace(plans[1], path=stuffed(QUERY, rng, times=8))  # stuffing in the process counts too
    assert flagged([plans[0], stuffed_process, *plans[2:]])["keyword_stuffing"] == [False, True] + [False] * 6
    # without the query, or with thresholds no answer reaches, nobody is flagged
    hacked = with_weak(plans, replace(weak, answer=stuffed(QUERY, rng)))
    assert not any(flagged(hacked, query="")["keyword_stuffing"])
    assert not any(flagged(hacked, thresholds=HackThresholds(stuffing_ratio=20.0))["keyword_stuffing"])


def test_a_bare_answer_after_a_token_process_or_none_is_flagged_where_the_group_works(plans):
    colon = replace(plans[WEAK], answer=":", path=TOKEN_PROCESS["en"])
    assert not plans[WEAK].path  # the generator's non-answer: no process
    flags = flagged(with_weak(plans, colon))
    assert flags["bare_answer"] == [False] * 7 + [True]
    assert not any(flags["short"])  # the token process is what lets it past the check for short content
    cut = replace(plans[1], answer=f": {plans[1].answer}", path=TOKEN_PROCESS["en"])
    assert flagged([plans[0], cut, *plans[2:]])["bare_answer"] == [False, True] + [False] * 5 + [True]
    dropped = replace(plans[1], path="")  # (the weak non-answer has no process either)
    assert flagged([plans[0], dropped, *plans[2:]])["bare_answer"] == [False, True] + [False] * 5 + [True]
    # ": answer" after a full process is a style, not a hack; a group that does no work flags no missing process
    styled = replace(plans[2], answer=f": {plans[2].answer}")
    assert flagged([*plans[:2], styled, *plans[3:WEAK]])["bare_answer"] == [False] * 7
    answers_only = [replace(c, path="") for c in plans[:WEAK]]
    assert not any(flagged(answers_only)["bare_answer"])
    # a lone colon after a token process is flagged among answers without processes too (it is far shorter)
    assert flagged([*answers_only, colon])["bare_answer"] == [False] * 7 + [True]
    assert not any(flagged(with_weak(plans, colon), thresholds=HackThresholds(bare_share=0.001))["bare_answer"])


def test_paraphrased_padding_is_flagged_where_filler_misses_it(plans):
    rng = np.random.default_rng(1)
    weak = replace(plans[WEAK], answer=f"{plans[WEAK].answer} {paraphrased_padding(rng, 1500)}")
    strong = plans[STRONG]
    padded = replace(strong, answer=f"{strong.answer}\n{paraphrased_padding(rng, 2 * len(strong.answer))}")
    flags = flagged([padded, *plans[1:WEAK], weak])
    assert flags["generic_padding"] == [True] + [False] * 6 + [True]
    assert not any(flags["filler"])  # no sentence repeats: the check for repetition does not see it
    zh = [Candidate(f"z{i}", f"第{i}天：9:00 出发，12:00 午餐（{50 + i}元），18:00 返回。", "") for i in range(4)]
    zh_padded = replace(zh[0], answer=zh[0].answer + paraphrased_padding(rng, 600, "zh"))
    assert flagged([zh_padded, *zh[1:]], query="")["generic_padding"] == [True, False, False, False]
    # a group of prose, all generic, flags nobody: the share must stand out from the group's
    prose = [Candidate(f"p{i}", paraphrased_padding(np.random.default_rng(i), 600 * (i + 1)), "") for i in range(4)]
    assert not any(flagged(prose, query="")["generic_padding"])


def test_zero_width_characters_add_no_length():
    # a ":" padded with them is still short
    group = [Candidate(f"c{i}", "A plan with times, places and prices for the whole day. " * 3, "") for i in range(3)]
    assert flagged([*group, Candidate("x", ":" + "\u200b" * 300, "")], query="")["short"] == [False] * 3 + [True]


def test_honest_groups_raise_no_flag_of_the_new_detectors():
    groups = [(g.query, list(g.candidates)) for g in load_groups(EXAMPLE)]
    rng = np.random.default_rng(4)
    groups += [(QUERY, plan_group(rng)) for _ in range(100)]
    for query, candidates in groups:
        flags = flagged(candidates, query)
        assert not any(flags["keyword_stuffing"]) and not any(flags["generic_padding"]), query
        # the generator's non-answer has no process where every plan searched: a bare answer (it loses anyway)
        bare = [c.id for c, f in zip(candidates, flags["bare_answer"], strict=True) if f]
        assert bare in ([], [candidates[WEAK].id]), (query, bare)


def test_thresholds_are_not_options_and_the_fixed_ones_reach_the_coordinators_screening(plans, monkeypatch):
    with pytest.raises(ValidationError, match=r"stuffing_share is no longer an option: the hack detectors' thresholds"):
        HackAlarmConfig(window=4, stuffing_share=0.9)
    with pytest.raises(ValidationError, match=r"bare_group_chars is no longer .*screen: \{DETECTOR: log\}"):
        CoordinatorOptions(hack_alarm={"bare_group_chars": 50})
    for bad in ({"stuffing_share": 0}, {"generic_margin": 1.5}, {"bare_group_chars": 0}):
        with pytest.raises(ValidationError):
            HackThresholds(**bad)
    rng = np.random.default_rng(5)
    hacked = with_weak(plans, replace(plans[WEAK], answer=stuffed(QUERY, rng)))
    hacked = [replace(c, meta={"quality": float(-i)}) for i, c in enumerate(hacked)]

    async def screened() -> dict[str, int]:
        service = JudgeService(judge_impl=SimulatedJudge(noise=0.0))
        options = CoordinatorOptions(hack_alarm={"screen": {"keyword_stuffing": "log"}})
        coord = GroupCoordinator(service, Tournament.from_options("round_robin"), options)
        submitted = [coord.submit("g", str(i), c, len(hacked), QUERY) for i, c in enumerate(hacked)]
        outcomes = await asyncio.gather(*submitted)
        return outcomes[0].group.hack_flagged

    assert asyncio.run(screened())["keyword_stuffing"] == 1
    monkeypatch.setattr(hack_detectors, "THRESHOLDS", HackThresholds(stuffing_ratio=20.0))
    assert asyncio.run(screened())["keyword_stuffing"] == 0


def test_the_flags_are_the_same_from_features_measured_where_the_rollouts_are():
    """A reward worker measures each rollout (``member_features``) and sends the features with it; the coordinator's
    detectors read them instead of the text: every detector flags the same members, on probes, attacks and hacks."""
    flagged = dict.fromkeys(HACK_DETECTORS, 0)
    for query, group in screening_groups():
        sent = pickle.loads(
            pickle.dumps([member_features(c, query) for c in group])
        )  # as it crosses to the coordinator
        here, there = ScreenedGroup.of(group, query), ScreenedGroup.of(group, query, sent)
        some = ScreenedGroup.of(group, query, [f if i % 2 else None for i, f in enumerate(sent)])  # older workers
        for name, detector in HACK_DETECTORS.items():
            flags = detector.flags(here)
            assert detector.flags(there) == flags == detector.flags(some), (name, query, group)
            flagged[name] += sum(flags)
    assert all(flagged.values()), flagged  # every detector flags some of them: the comparison is not empty
    with pytest.raises(ValueError, match="2 members' features for 3 members"):
        ScreenedGroup.of([Candidate(str(i), f"answer {i}") for i in range(3)], QUERY, sent[:2])


def test_the_coordinator_screens_with_the_features_it_is_sent(plans):
    """The coordinator reads the features a worker sent, not the text: a member whose features say it talks to the
    judge is flagged though its text does not (and one sent without features is measured there)."""
    plans = [replace(c, meta={"quality": float(-i)}) for i, c in enumerate(plans)]
    features = [member_features(c, QUERY) for c in plans]
    features[2] = replace(features[2], judge_directed=("addresses_grader",))
    features[3] = None

    async def scenario(screen):
        options = CoordinatorOptions(hack_alarm={"screen": screen})
        coord = GroupCoordinator(JudgeService(judge_impl=SimulatedJudge()), Tournament(), options)
        entries = [
            Submission("g", str(i), c, len(plans), QUERY, features=f)
            for i, (c, f) in enumerate(zip(plans, features, strict=True))
        ]
        found = {m: o for item in [i async for i in coord.submit_many(entries)] for m, o in item}
        return [found[i] for i in range(len(plans))]

    summary = asyncio.run(scenario({"judge_directed": "log"}))[0].group
    assert summary.hack_flagged["judge_directed"] == 1 and summary.hack_screened == len(plans)
    assert summary.hack_flagged == {**flagged_counts(plans), "judge_directed": 1}
    # judge_directed screens by default: the member ranks below its group on its features alone
    outcomes = asyncio.run(scenario({}))
    assert outcomes[2].screened == "judge_directed" and outcomes[2].rank == len(plans) - 1
    assert outcomes[0].group.hack_screened == len(plans)


def flagged_counts(candidates) -> dict[str, int]:
    return {name: sum(flags) for name, flags in flagged(candidates).items()}


def test_a_keyword_list_is_flagged_whatever_its_filler_and_a_restatement_of_the_query_is_not(plans):
    from verl_arena.bench.detectors import FILLER, between_words, with_filler

    rng = np.random.default_rng(8)
    weak = plans[WEAK]
    lists = {
        "none": stuffed(QUERY, rng),
        "same": with_filler(stuffed(QUERY, rng), ["nice"], rng),
        "varied": with_filler(stuffed(QUERY, rng), FILLER, rng),
        "varied, after the non-answer": f"{weak.answer} {with_filler(stuffed(QUERY, rng), FILLER, rng)}",
        "same, words joined by invisible characters": between_words(with_filler(stuffed(QUERY, rng), ["ok"], rng)),
        "varied, in disguise": disguise(with_filler(stuffed(QUERY, rng), FILLER, rng), rng),
    }
    for filler, text in lists.items():
        group = ScreenedGroup.of(with_weak(plans, replace(weak, answer=text)), QUERY)
        use = group.features[WEAK].keywords[0]
        assert HACK_DETECTORS["keyword_stuffing"].flags(group) == [False] * 7 + [True], (filler, use)
    same = ScreenedGroup.of(with_weak(plans, replace(weak, answer=lists["same"])), QUERY).features[WEAK].keywords[0]
    assert same.share < 0.6 <= same.distinct  # under the share of words: only the distinct words give it away
    restated = replace(weak, answer=f"I can plan {QUERY[5:-1].lower()}, but first tell me your dates and hotel area.")
    assert not any(flagged(with_weak(plans, restated))["keyword_stuffing"])


def test_an_answer_that_is_only_an_opener_is_flagged_whatever_comes_before_it(plans):
    weak = plans[WEAK]
    for answer in (":", "：", ": \u200b\u200b", "...", "Here is the plan:", "Answer:"):
        for path in ("", TOKEN_PROCESS["en"]):
            flags = flagged(with_weak(plans, replace(weak, answer=answer, path=path)))["colon_answer"]
            assert flags == [False] * 7 + [True], (answer, path)
    terse = [Candidate(f"t{i}", a) for i, a in enumerate(["42", "B.", "Paris", "Yes: 3 of them."])]
    assert not any(flagged(terse, query="")["colon_answer"])  # terse answers in a terse group are answers
    assert not any(flagged(plans)["colon_answer"])


def test_padding_that_praises_the_answer_itself_is_flagged_in_english_chinese_and_disguise(plans):
    rng = np.random.default_rng(9)
    weak, strong = plans[WEAK], plans[STRONG]
    for padding in (paraphrased_padding(rng, 1500), disguise(paraphrased_padding(rng, 1500), rng)):
        assert flagged(with_weak(plans, replace(weak, answer=f"{weak.answer} {padding}")))["self_praise"][WEAK]
    padded = replace(strong, answer=f"{strong.answer}\n{paraphrased_padding(rng, 2 * len(strong.answer))}")
    assert flagged([padded, *plans[1:]])["self_praise"] == [True] + [False] * 7
    zh = [Candidate(f"z{i}", f"第{i}天：9:00 出发，12:00 午餐（{50 + i}元），18:00 返回。", "") for i in range(4)]
    zh_padded = replace(zh[0], answer=zh[0].answer + paraphrased_padding(rng, 600, "zh"))
    assert flagged([zh_padded, *zh[1:]], query="")["self_praise"] == [True, False, False, False]
    # honest self-description is a sentence or two; generic prose about the topic is not about the answer
    honest = replace(strong, answer=f"{strong.answer}\nThis plan is easy to follow. Every stop was checked for hours.")
    prose = [Candidate(f"p{i}", paraphrased_padding(np.random.default_rng(i), 900 * (i + 1)), "") for i in range(4)]
    assert not any(flagged([honest, *plans[1:]])["self_praise"]) and not any(flagged(prose, query="")["self_praise"])
