# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench learning`` end to end: its two-step smoke (N=2, 32 tokens) with the real model, SmolLM2-135M
(built from its PyPI wheel, skipped with the reason where it cannot be), in verl's real trainer on the CPU.

One arm, to stay near two minutes: ``shuffled``, the arena's run (the arena reward manager, the lexical judge over
HTTP with its noise, the tournament's advantages) with its advantages permuted by the estimator the bench loads into
the trainer's processes; the ``arena`` arm is the same run without that last step, and the ``pointwise`` arm's reward
function is tested against the same judge server in tests/bench/test_pointwise_reward.py. Marked ``e2e``.
"""

from __future__ import annotations

import json

import pytest

from verl_arena.cli import main
from verl_arena.integrations.verl.cpu.real_model import ModelUnavailable, build_real_model

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def real_model():
    try:
        return build_real_model()
    except ModelUnavailable as exc:
        pytest.skip(f"the real model cannot be built here: {exc}")


def test_the_smoke_trains_two_steps_and_scores_the_held_out_answers(real_model, tmp_path, capsys):
    args = ["bench", "learning", "--setting", "smoke", "--arms", "shuffled", "--model", str(real_model)]
    status = main(
        [*args, "--workdir", str(tmp_path), "--plot", str(tmp_path / "curve.png"), "--json", "--timeout", "900"]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err[-3000:]
    report = json.loads(captured.out)
    (run,) = report["runs"]
    assert run["arm"] == "shuffled" and run["eval_steps"] == [0, 1, 2] and sorted(run["steps"]) == ["1", "2"]
    assert len(run["gold"]) == 3 and all(len(row) == 2 and all(0 <= g <= 1 for g in row) for row in run["gold"])
    assert all(m["actor/grad_norm"] > 0 for m in run["steps"].values())  # the policy was updated
    # 2 groups of 2 rollouts a step, each judged in both orders (the server's count: validation asks the judge nothing)
    assert run["judge"]["requests"] >= 4 and run["judge"]["prompt_tokens"] > 0
    assert report["arms"]["shuffled"]["judge"]["requests"] == run["judge"]["requests"]
    for step in (0, 1, 2):  # verl's validation answered both held-out tasks at every evaluation
        answers = (tmp_path / "shuffled_seed0" / "eval" / f"{step}.jsonl").read_text().splitlines()
        assert len(answers) == 2 and all(json.loads(a)["output"].strip() for a in answers)
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
