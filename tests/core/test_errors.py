# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The errors verl-arena raises: which can be caught as what, what a failed judgment carries, and the closest valid
name offered for a misspelt one."""

from __future__ import annotations

import pytest

from verl_arena.core.errors import ArenaError, ConfigError, InvalidJudgeOutput, JudgeError, closest, did_you_mean


def test_bad_input_is_a_value_error_and_a_failed_judgment_is_not():
    assert issubclass(ConfigError, ValueError) and issubclass(InvalidJudgeOutput, ValueError)
    assert not issubclass(JudgeError, ValueError)  # a judge's trouble is no bad value of the caller's
    for error in (ConfigError, InvalidJudgeOutput, JudgeError):
        with pytest.raises(ArenaError):
            raise error("x")


def test_a_failed_judgment_carries_its_cause_and_a_copy_of_its_usage():
    usage = {"prompt_tokens": 120}
    error = JudgeError("the judge timed out", reason="timeout", attempts=3, input_related=True, usage=usage)
    usage["prompt_tokens"] = 0  # the caller's dict changing later changes nothing counted
    assert (str(error), error.reason, error.attempts) == ("the judge timed out", "timeout", 3)
    assert error.input_related and not error.judge_fault and error.usage == {"prompt_tokens": 120}
    plain = JudgeError()
    assert (str(plain), plain.reason, plain.attempts, plain.usage) == ("judgment failed", "error", 1, {})
    assert not plain.input_related and JudgeError(judge_fault=True).judge_fault


def test_a_misspelling_gets_the_closest_choice_and_nothing_close_gets_nothing():
    topologies = ["round_robin", "anchor", "swiss"]
    assert closest("swis", topologies) == "swiss" and closest("round-robin", topologies) == "round_robin"
    assert did_you_mean("ancor", topologies) == "did you mean 'anchor'?"
    assert closest("knockout", topologies) is None and did_you_mean("knockout", topologies) == ""
    assert did_you_mean(8, ["8", "9"]) == "did you mean '8'?"  # a value of another type is read as its text
    assert did_you_mean("swiss", iter(topologies)) == "did you mean 'swiss'?"  # any iterable of choices
