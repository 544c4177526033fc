# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge stack a configuration describes: the LLM judge, in order swapping unless it is turned off, and with an
ensemble one such judge per member and sample, the samples of a member sharing its client and cache; and the range
of one side's score.

An ensemble built from configuration judging over HTTP is in ``test_ensemble.py``."""

from __future__ import annotations

import pytest
from helpers import judge_config

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.ensemble import EnsembleJudge
from verl_arena.judges.factory import build_judge, score_range
from verl_arena.judges.llm import LLMJudge
from verl_arena.judges.order_swap import OrderSwapJudge

URL = "http://127.0.0.1:9/v1"  # nothing is asked: building a judge sends no request


def test_a_judge_is_order_swapped_unless_configured_otherwise():
    judge = build_judge(judge_config(URL, orders="agree"))
    assert isinstance(judge, OrderSwapJudge) and isinstance(judge.inner, LLMJudge) and judge.require_agreement
    plain = build_judge(parse_judge_config(judge_config(URL, orders="given", template="writing")))
    assert isinstance(plain, LLMJudge) and plain.config.template == "writing"


def test_a_configuration_that_does_not_validate_builds_nothing():
    with pytest.raises(ConfigError, match=r"judge.endpoints: List should have at least 1 item"):
        build_judge({"endpoints": []})


def test_an_ensemble_asks_each_member_per_sample_and_the_samples_of_a_member_share_its_client_and_cache(tmp_path):
    other = {"endpoints": [{"base_url": "http://127.0.0.1:10/v1", "model": "other"}], "template": "writing"}
    config = judge_config(
        URL, cache_path=str(tmp_path / "v.sqlite"), ensemble={"members": [{}, other], "samples": 3, "combine": "mean"}
    )
    judge = build_judge(config)
    assert isinstance(judge, EnsembleJudge) and len(judge.members) == 6 and judge.combine == "mean"
    inner = [member.inner for member in judge.members]
    first, second = inner[:3], inner[3:]
    assert len({id(j.client) for j in first}) == 1 and len({id(j.client) for j in second}) == 1
    assert first[0].client is not second[0].client and first[0].cache is first[2].cache
    assert first[0].cache is not second[0].cache  # each member keeps its own, even on one file
    assert [j.config.template for j in second] == ["writing"] * 3
    assert len({j.identity for j in first}) == 3  # the samples are cached apart
    assert all(j.config.seed is None for j in inner)  # no seed: the samples differ by the temperature alone
    assert judge.ranges == [(0.0, 20.0)] * 6


def test_a_sides_score_range_is_the_templates_doubled_by_order_swapping(tmp_path):
    path = tmp_path / "five.yaml"
    path.write_text(
        "name: five\nlanguage: en\nkind: pairwise\nscale: [1, 5]\nweights: {answer: 1.0}\n"
        "dimensions: {answer: {quality: overall quality}}\nsystem: judge\n"
        "user: |\n  $query\n  $candidate_a\n  $candidate_b\n  $reply_format\n"
    )
    assert score_range(parse_judge_config(judge_config(URL, template=str(path)))) == (2.0, 10.0)
    assert score_range(parse_judge_config(judge_config(URL, template=str(path), orders="given"))) == (1.0, 5.0)
    assert score_range(parse_judge_config(judge_config(URL))) == (0.0, 20.0)
