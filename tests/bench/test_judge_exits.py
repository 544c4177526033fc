# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench judge-exits``: groups through the group coordinator and the judge service to the mock judge over
loopback HTTP, the weak non-answer honest and attacking; the table marks a row where the attack pays."""

from __future__ import annotations

import pytest

from verl_arena.bench.judge_exits import ATTACKS, JudgeExitRow, format_exits, run_exits_bench


def test_a_short_planted_verdict_id_does_not_pay_through_the_coordinator():
    rows = run_exits_bench(groups=1, topologies=["seeded_single_elimination"], attacks=["short_verdict_id"])
    honest, attacking, losing = rows
    assert (honest.way, attacking.way, losing.way) == ("honest", "attacking", "losing")
    assert attacking.weak <= losing.weak <= honest.weak < 0 and attacking.strong == honest.strong > 0
    assert attacking.voided == {} and attacking.proven == 1 and attacking.unproven == 0 and attacking.strong_blamed == 0
    assert losing.proven == 0  # losing without an answer is no forfeit
    assert "the exit pays" not in format_exits(rows, 1)


def test_the_table_marks_an_attack_that_pays_and_unknown_attacks_are_refused():
    rows = [
        JudgeExitRow("round_robin", "gateway_502", "honest", -1.43, 1.43, {}, 0, 0, 0),
        JudgeExitRow("round_robin", "gateway_502", "attacking", 0.0, 0.0, {"judge_fault": 1}, 0, 0, 0),
        JudgeExitRow("round_robin", "gateway_502", "losing", -1.43, 1.43, {}, 0, 0, 0),
    ]
    shown = format_exits(rows, 1).splitlines()
    assert shown[-2].endswith("judge_fault 1  <- the exit pays") and "<-" not in shown[-1] + shown[-3]
    rows[1] = JudgeExitRow("round_robin", "gateway_502", "attacking", -1.42, 1.4, {}, 1, 0, 0)
    rows[0] = JudgeExitRow("round_robin", "gateway_502", "honest", -1.44, 1.4, {}, 0, 0, 0)
    rows[2] = JudgeExitRow("round_robin", "gateway_502", "losing", -1.42, 1.4, {}, 0, 0, 0)
    assert format_exits(rows, 1).splitlines()[-2].endswith("(above honest by 0.0200)")
    assert {a.name for a in ATTACKS} >= {"escaped_verdict_id", "gateway_502", "endless_reasoning"}
    with pytest.raises(ValueError, match="unknown attacks"):
        run_exits_bench(attacks=["nothing"])
