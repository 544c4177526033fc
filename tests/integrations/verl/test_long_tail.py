# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The long-tailed rollout times of ``verl-arena bench step``: seeded, lognormal, the same for both runs, and loaded
the way verl loads an agent-loop file (the waiting loop end to end: ``tests/bench/test_step.py``)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

pytest.importorskip("verl")

from verl_arena.bench import step
from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.long_tail import LONG_TAIL_AGENT, LongTailAgentLoop, tail_delay_s


def test_the_waits_are_seeded_lognormal_around_the_median_and_off_at_zero():
    draws = [tail_delay_s(2.0, 1.0, 7, row, session, 3) for row in range(40) for session in range(25)]
    assert draws == [tail_delay_s(2.0, 1.0, 7, row, session, 3) for row in range(40) for session in range(25)]
    assert draws != [tail_delay_s(2.0, 1.0, 8, row, session, 3) for row in range(40) for session in range(25)]
    logs = [math.log(d) for d in draws]
    assert statistics.median(logs) == pytest.approx(math.log(2.0), abs=0.1)
    assert statistics.stdev(logs) == pytest.approx(1.0, abs=0.1)
    assert tail_delay_s(0.0, 1.0, 7, 1, 1, 1) == 0.0 and tail_delay_s(2.0, 0.0, 7, 1, 1, 1) == pytest.approx(2.0)


def test_the_bench_names_the_loop_verl_instantiates_from_its_file(tmp_path):
    (overrides,) = step._long_tail_args(tmp_path, tail_median_s=1.5, tail_sigma=0.5, tail_seed=3)
    key, path = overrides.split("=", 1)
    assert key == "actor_rollout_ref.rollout.agent.agent_loop_config_path"
    (entry,) = json.loads(Path(path).read_text())
    assert entry["name"] == step.LONG_TAIL_AGENT == LONG_TAIL_AGENT
    module, name = entry["_target_"].rsplit(".", 1)
    assert getattr(__import__(module, fromlist=[name]), name) is LongTailAgentLoop
    with pytest.raises(ConfigError, match="tail_sigma"):
        LongTailAgentLoop(tail_median_s=1.0, tail_sigma=-1.0)
