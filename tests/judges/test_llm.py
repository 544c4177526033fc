# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The LLM judge against the mock judge on loopback: scores combined by the template's weights, the shortcuts taken
before a call, what two unusable replies do to a judgment, its use of the verdict cache, group judgments, rubric
items and what the judge is shown.

How one reply is asked again is in ``test_asking.py``; order swapping in ``test_order_swap.py``."""

from __future__ import annotations

import asyncio

import pytest
from helpers import judge_config, make_group

from verl_arena import Candidate, JudgeError, rank_group
from verl_arena.judges.factory import build_judge
from verl_arena.judges.llm import LLMJudge

GOOD = Candidate("good", "Day 1 in Chengdu: pandas at 7:30\n- metro line 3\n- hotpot dinner", "call search_poi(panda)")
POOR = Candidate("poor", "Go somewhere nice.")
QUERY = "Plan two days in Chengdu with pandas and hotpot"


def run(coro):
    return asyncio.run(coro)


def requests(server) -> int:
    return sum(server.served.values())


def test_compare_scores_every_dimension_and_combines_with_the_weights(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url, template="travel"))
    v = run(judge.compare(QUERY, GOOD, POOR))
    assert v.score_a > v.score_b and v.winner == "a"
    dims = v.dimensions["A"]
    assert set(dims) == {"process", "answer"} and set(dims["answer"]) == {
        "relevance",
        "feasibility",
        "details",
        "clarity",
    }
    expected = 0.6 * sum(dims["process"].values()) / 3 + 0.4 * sum(dims["answer"].values()) / 4
    assert v.score_a == pytest.approx(expected)
    assert v.usage["prompt_tokens"] > 0 and v.meta["endpoint"] == url and v.raw
    prompt = server.recent[-1]["messages"][1]["content"]
    assert QUERY in prompt and GOOD.answer in prompt and "call search_poi(panda)" in prompt


def test_identical_candidates_tie_without_a_call(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url))
    twin = Candidate("twin", GOOD.answer, GOOD.path)
    v = run(judge.compare(QUERY, GOOD, twin))
    assert v.score_a == v.score_b == 5.0 and requests(server) == 0


def test_no_answer_loses_without_a_call(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url))
    missing = Candidate("cut", "", "call search", meta={"no_answer": True})
    v = run(judge.compare(QUERY, missing, POOR))
    assert (v.score_a, v.score_b) == (0.0, 5.0) and requests(server) == 0
    both = run(judge.compare(QUERY, missing, Candidate("cut2", "", "x", meta={"no_answer": True})))
    assert both.winner == "tie"
    judged = LLMJudge(judge_config(url, no_answer="judge"))
    run(judged.compare(QUERY, missing, POOR))
    assert requests(server) == 1


@pytest.mark.parametrize(
    ("plan", "reason"),
    [
        (["empty", "wrong_schema"], "parse"),
        (["wrong_schema", "empty"], "empty"),
        (["wrong_schema", "truncated"], "truncated"),
        (["truncated", "truncated"], "truncated"),
    ],
)
def test_two_unusable_replies_fail_the_judgment(mock_judge, plan, reason):
    # the first reply, the query control answered (the judge can judge this query), the second reply, four probes
    # judged fine, then the same two replies to each smaller re-ask
    url, _ = mock_judge(plan=[plan[0], "ok", plan[1], "ok", "ok", "ok", "ok", *plan, *plan])
    judge = LLMJudge(judge_config(url))
    with pytest.raises(JudgeError) as info:
        run(judge.compare(QUERY, GOOD, POOR))
    # the last reply names the reason: cut at max_tokens (finish_reason "length") is "truncated", not "empty"
    assert info.value.reason == reason and judge.counts["parse_failures"] == 3
    assert info.value.input_related and info.value.usage["completion_tokens"] >= 0 and info.value.usage["prompt_tokens"]
    # the failure was not the candidates' doing: judged alone in either slot, both were fine, so nobody forfeits; nor
    # could the judge do it on half or a quarter of each, so it raises
    assert judge.faults.counts == {"controls": 1, "probes": 4, "unattributed": 1} and judge.counts["shrunk"] == 2


def test_a_failure_pinned_on_nobody_is_judged_on_less_of_both(mock_judge):
    # the first reply, the query control, the second reply, four probes, the smaller ask
    url, server = mock_judge(plan=["empty", "ok", "empty", "ok", "ok", "ok", "ok"])
    judge = LLMJudge(judge_config(url))
    verdict = run(judge.compare(QUERY, GOOD, POOR))
    assert verdict.meta["shrunk"] == 0.5 and verdict.winner == "a" and not verdict.forfeit
    assert judge.counts["shrunk"] == 1 and sum(server.served.values()) == 8


@pytest.mark.parametrize("kind", ["truncated", "empty", "wrong_schema"])
def test_a_judge_that_fails_the_query_control_is_not_asked_again_in_that_group(mock_judge, kind):
    # an unusable reply, then the query control (two short neutral candidates) unusable too, twice: the judge cannot
    # judge this query, so the judgment fails as its own fault after three requests: no re-ask, no probe, no smaller ask
    url, server = mock_judge(faults={kind: 1.0})
    judge = LLMJudge(judge_config(url))
    with pytest.raises(JudgeError) as info:
        run(judge.compare(QUERY, GOOD, POOR))
    assert info.value.judge_fault and not info.value.input_related and "neutral comparison" in str(info.value)
    assert requests(server) == 3 and judge.faults.counts == {"controls": 2, "query_controls_failed": 1}
    assert info.value.usage["prompt_tokens"] > 0 and info.value.attempts == 1  # its one reply, not asked again
    # every later judgment of the group fails the same way without a request; another query asks its own control
    with pytest.raises(JudgeError) as again:
        run(judge.compare(QUERY, POOR, GOOD))
    assert again.value.judge_fault and requests(server) == 3
    with pytest.raises(JudgeError):
        run(judge.compare("another query", GOOD, POOR))
    assert requests(server) == 6


def test_cache_reuses_verdicts_per_order(mock_judge, tmp_path):
    url, server = mock_judge()
    cache_path = tmp_path / "verdicts.sqlite"
    judge = LLMJudge(judge_config(url, cache_path=str(cache_path)))
    first = run(judge.compare(QUERY, GOOD, POOR))
    again = run(judge.compare(QUERY, GOOD, POOR))
    assert requests(server) == 1 and again.meta["cached"] and again.score_a == first.score_a
    run(judge.compare(QUERY, POOR, GOOD))  # the other order is another judgment
    assert requests(server) == 2
    fresh = LLMJudge(judge_config(url, cache_path=str(cache_path)))  # another process, same file
    run(fresh.compare(QUERY, GOOD, POOR))
    assert requests(server) == 2 and fresh.counts["cache_hits"] == 1
    other_template = LLMJudge(judge_config(url, cache_path=str(cache_path), template="writing"))
    run(other_template.compare(QUERY, GOOD, POOR))
    assert requests(server) == 3  # the template is part of the key


def test_cache_is_shared_across_seeding_and_bracket(mock_judge, tmp_path):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url, cache_path=str(tmp_path / "c.sqlite")))
    group = [Candidate("a", "alpha plan pandas"), Candidate("b", "beta plan pandas hotpot Chengdu")]
    result = run(rank_group(QUERY, group, judge, "seeded_single_elimination"))
    # N = 2: the seeding match (b vs anchor a) and the final are the same ordered pair when b is the top seed
    assert result.comparisons == 2 and requests(server) == 1 and judge.counts["cache_hits"] == 1


def test_select_picks_the_best(mock_judge):
    url, _ = mock_judge()
    judge = LLMJudge(judge_config(url))
    group = [POOR, GOOD, Candidate("mid", "Chengdu pandas")]
    assert run(judge.select(QUERY, group, 1)) == [1]
    assert sorted(run(judge.select(QUERY, group, 2))) == [1, 2]


def test_select_skips_candidates_without_answer(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url))
    cut = Candidate("cut", "", "x", meta={"no_answer": True})
    assert run(judge.select(QUERY, [cut, POOR], 1)) == [1] and requests(server) == 0
    assert run(judge.select(QUERY, [cut, POOR, GOOD], 1)) == [2] and requests(server) == 1
    prompt = server.recent[-1]["messages"][1]["content"]
    assert "<<<CANDIDATE 3" not in prompt  # only the two answered candidates were shown


def test_order_puts_everyone_in_order_and_answers_from_the_cache(mock_judge, tmp_path):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url, cache_path=str(tmp_path / "v.sqlite")))
    group = [POOR, GOOD, Candidate("mid", "Chengdu pandas and hotpot")]
    assert run(judge.order(QUERY, group)) == [1, 2, 0] and requests(server) == 1
    assert "There are 3 candidates." in server.recent[-1]["messages"][1]["content"]
    assert run(judge.order(QUERY, group)) == [1, 2, 0] and requests(server) == 1  # cached


def test_order_places_candidates_without_answer_last_and_shows_only_the_others(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url))
    cut = Candidate("cut", "", "x", meta={"no_answer": True})
    assert run(judge.order(QUERY, [cut, POOR])) == [1, 0] and requests(server) == 0
    assert run(judge.order(QUERY, [cut, POOR, GOOD])) == [2, 1, 0] and requests(server) == 1
    assert "<<<CANDIDATE 3" not in server.recent[-1]["messages"][1]["content"]


def test_listwise_ranks_through_the_http_judge_with_order_swapping_configured(mock_judge):
    url, server = mock_judge()
    judge = build_judge(judge_config(url))  # order swapping wraps it; listwise calls pass through
    group = [Candidate(f"c{i}", "Chengdu " + "pandas hotpot metro " * i) for i in range(1, 11)]
    result = run(rank_group(QUERY, group, judge, "listwise", group_size=5))
    assert result.comparisons == requests(server) == 4 and result.depth == 1
    assert result.ranks.index(0.0) == 9  # the lexical judge prefers the longest, most detailed plan


def test_generated_rubrics_are_asked_once_per_query_and_shown(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url, rubrics="generate"))
    group = make_group([0.0] * 4)

    async def many():
        await asyncio.gather(*(judge.compare(QUERY, group[i], group[j]) for i, j in [(0, 1), (2, 3), (1, 2)]))

    run(many())
    rubric_requests = [r for r in server.recent if "between 5 and 7" in r["messages"][1]["content"]]
    assert len(rubric_requests) == 1 and requests(server) == 4
    assert "[Criteria specific to this query]" in server.recent[-1]["messages"][1]["content"]


def test_rubrics_from_data(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url))
    a = Candidate("a", "x", meta={"rubrics": ["stays under 600 yuan", {"dimension": "safety", "criterion": "warns"}]})
    run(judge.compare(QUERY, a, POOR))
    prompt = server.recent[-1]["messages"][1]["content"]
    assert "- stays under 600 yuan" in prompt and "- safety: warns" in prompt


def test_chinese_template_end_to_end(mock_judge):
    url, server = mock_judge()
    judge = build_judge(judge_config(url, template="travel", language="zh"))
    a = Candidate("a", "第一天：上午去大熊猫基地，下午逛宽窄巷子，晚上吃火锅。", "call search_poi(熊猫基地)")
    b = Candidate("b", "去成都玩。")
    v = run(judge.compare("成都两日游，想看熊猫、吃火锅", a, b))
    assert v.winner == "a" and "评分维度" in server.recent[-1]["messages"][1]["content"]


def test_long_fields_are_cut_to_max_field_chars(mock_judge):
    url, server = mock_judge()
    judge = LLMJudge(judge_config(url, max_field_chars=500))
    long_ = Candidate("long", "BEGIN " + "plan " * 2000 + " END", "call search " * 1000)
    run(judge.compare(QUERY, long_, POOR))
    prompt = server.recent[-1]["messages"][1]["content"]
    assert "characters omitted" in prompt and "BEGIN" in prompt and "END" in prompt
    assert len(prompt) < 5000


def test_a_graded_judge_asks_for_a_strength_over_http_and_records_it(mock_judge):
    url, server = mock_judge()
    server.recording = []
    verdict = run(LLMJudge(judge_config(url, graded="record")).compare(QUERY, GOOD, POOR))
    prompt = server.recording[-1][-1]["content"]
    assert '"preference": "<A>>B|A>B|A=B|B>A|B>>A>"' in prompt and '"winner"' not in prompt
    assert verdict.meta["strength"] > 0 and verdict.winner == "a"
    plain = run(LLMJudge(judge_config(url)).compare(QUERY, GOOD, POOR))  # off by default: today's format
    assert "strength" not in plain.meta and '"winner"' in server.recording[-1][-1]["content"]


def test_a_malformed_strength_is_asked_again_and_counted_against_the_judge(mock_judge):
    url, server = mock_judge(plan=["bad_grade", "ok"])
    judge = LLMJudge(judge_config(url, graded="break_ties"))
    verdict = run(judge.compare(QUERY, GOOD, POOR))
    assert verdict.meta["reasked"] and verdict.meta["strength"] > 0 and judge.counts["reasked"] == 1
    assert (
        server.served["bad_grade"] == 1 and not judge.counts["parse_failures"]
    )  # one bad reply re-asked is no failure
    # malformed every time: the candidates are judged fine alone (the probes), so the judge fails, nobody forfeits
    url, _ = mock_judge(plan=["bad_grade", "ok", "bad_grade", "ok", "ok", "ok", "ok", *["bad_grade"] * 4])
    judge = LLMJudge(judge_config(url, graded="break_ties"))
    with pytest.raises(JudgeError) as info:
        run(judge.compare(QUERY, GOOD, POOR))
    assert info.value.reason == "parse" and "preference" in str(info.value)
    assert judge.faults.counts == {"controls": 1, "probes": 4, "unattributed": 1}


def test_a_query_control_that_fails_once_is_asked_once_more(mock_judge):
    # a judge that cuts a share of its replies at random: the query control failing once must not lose the group
    url, server = mock_judge(plan=["truncated", "truncated", "ok", "ok"])  # reply, control, control again, re-ask
    judge = LLMJudge(judge_config(url))
    verdict = run(judge.compare(QUERY, GOOD, POOR))
    assert verdict.winner == "a" and requests(server) == 4 and "query_controls_failed" not in judge.faults.counts
