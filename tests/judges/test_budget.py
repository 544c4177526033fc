# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How much of each candidate the judge reads: a prompt budget shared fairly among the candidates of a call, each
cut in the middle to its share, a short field leaving its room to the other, and a fixed part too large for any
candidate refused as the judge's size.

Counting is the byte bound here; a judge whose server counts otherwise is in ``test_judge_faults.py``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import Candidate
from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.judges.budget import MIN_SHARE, PromptBudget, byte_bound, token_counter
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.templates import load_template

TRAVEL = load_template("travel")
SELECT = load_template("select")
NONE = JudgeContext(None)
QUERY = "Plan one day in Kyoto with temples, a market lunch and an evening walk"


def plan(name: str, answer_bytes: int, path_bytes: int = 0) -> Candidate:
    return Candidate(name, f"{name} answer " + "a" * answer_bytes, "p" * path_bytes)


def test_the_byte_bound_counts_utf8_bytes_whatever_the_text_holds():
    assert [byte_bound(t) for t in ("abc", "é", "京都", "🙂", "\ud800")] == [3, 2, 6, 4, 3]
    assert token_counter(None) is byte_bound


def test_a_chat_prompt_counts_its_chat_template_overhead():
    budget = PromptBudget(4096, 512)
    messages = [{"role": "system", "content": "judge"}, {"role": "user", "content": "京都"}, {"role": "user"}]
    assert budget.messages_tokens(messages) == 16 + 3 * 8 + 5 + 6
    assert budget.limit == 4096 - 512 and not budget.exact


def test_a_candidate_within_its_share_is_read_whole():
    budget = PromptBudget(4096, 512)
    short = plan("short", 100, 50)
    assert budget.fit(short, 400) is short


@pytest.mark.parametrize(
    ("answer", "path", "whole"),
    [
        (2000, 100, "path"),  # a short process leaves its room to the answer
        (100, 2000, "answer"),  # and a short answer to the process
        (2000, 2000, None),  # both long: half each
    ],
)
def test_a_long_candidate_is_cut_in_the_middle_to_its_share(answer, path, whole):
    budget = PromptBudget(4096, 512)
    long = plan("long", answer, path)
    fitted = budget.fit(long, 600)
    sizes = {"answer": byte_bound(fitted.answer), "path": byte_bound(fitted.path)}
    assert 540 <= sum(sizes.values()) <= 600 and fitted.id == long.id and fitted.meta is long.meta  # the share, filled
    if whole is None:
        assert all(250 <= size <= 300 for size in sizes.values())
    else:
        assert getattr(fitted, whole) == getattr(long, whole)
    for cut, text in ((fitted.answer, long.answer), (fitted.path, long.path)):
        if cut != text:  # both ends kept, the middle said to be left out
            assert "characters omitted" in cut and cut[:20] == text[:20] and cut[-20:] == text[-20:]


def test_a_long_candidate_never_squeezes_its_opponent_and_no_prompt_overflows():
    budget = PromptBudget(8192, 1024)
    long, short = plan("long", 20_000, 5_000), plan("short", 300, 200)
    for pair in ([long, short], [short, long]):
        shown = budget.shown(TRAVEL, QUERY, NONE, pair)
        assert short in shown and long not in shown
        prompt = TRAVEL.render_pairwise(QUERY, *shown, "0" * 12)
        assert budget.messages_tokens(prompt) <= budget.limit


def test_a_group_call_shares_the_budget_among_all_its_candidates_and_a_smaller_ask_reads_less():
    budget = PromptBudget(8192, 1024)
    group = [plan(f"c{i}", 20_000) for i in range(4)]
    shown = budget.shown(SELECT, QUERY, NONE, group, 1)
    assert budget.messages_tokens(SELECT.render_select(QUERY, shown, 1, "0" * 12)) <= budget.limit
    two = budget.shown(SELECT, QUERY, NONE, group[:2], 1)
    assert byte_bound(two[0].answer) > 1.8 * byte_bound(shown[0].answer)  # one of two gets about twice one of four
    half = budget.shown(SELECT, QUERY, NONE, group[:2], 1, scale=0.5)
    assert byte_bound(half[0].answer) < 0.6 * byte_bound(two[0].answer)  # asked again on half its share


def test_max_field_chars_cuts_a_field_first_whatever_the_budget():
    budget = PromptBudget(131_072, 1024, max_field_chars=500)
    long = plan("long", 3000, 3000)
    (shown, _) = budget.shown(TRAVEL, QUERY, NONE, [long, plan("other", 10)])
    assert len(shown.answer) <= 500 and len(shown.path) <= 500 and "characters omitted" in shown.answer


def test_a_context_that_leaves_no_room_for_the_candidates_is_the_judges_size_not_their_fault():
    budget = PromptBudget(2048, 1024)
    rubrics = [f"rubric item {i}: " + "x" * 40 for i in range(20)]
    with pytest.raises(JudgeError, match=r"raise judge.context_tokens, lower judge.max_tokens") as info:
        budget.shown(TRAVEL, QUERY, JudgeContext(rubrics), [plan("a", 10), plan("b", 10)])
    assert info.value.reason == "prompt_too_long" and not info.value.input_related
    assert budget.share([{"role": "user", "content": ""}], 2) >= MIN_SHARE  # an empty fixed part leaves room


@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(MIN_SHARE, 3000))
def test_a_fitted_candidate_never_exceeds_its_share(answer, path, share):
    fitted = PromptBudget(32_768, 1024).fit(plan("c", answer, path), share)
    assert byte_bound(fitted.answer) + byte_bound(fitted.path) <= share


@pytest.mark.slow
def test_a_tokenizer_that_cannot_be_loaded_is_refused_naming_the_option(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match=rf"judge.tokenizer: cannot load tokenizer '{tmp_path}'"):
        token_counter(str(tmp_path))
