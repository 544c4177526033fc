# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Long-tailed rollout times for benchmarks: a single-turn agent whose episodes take as long as an agent's do.

In agent RL a group's rollouts finish at very different times (tool calls, environment steps, long answers): of 16,
the last two often arrive many judge latencies apart. A tiny model on the CPU finishes all of them within a fraction of
a second. ``LongTailAgentLoop`` is ``arena_single_turn_agent`` that, once its answer is generated, waits a seeded
lognormal time before returning it: median ``tail_median_s``, log-scale ``tail_sigma``, drawn from ``tail_seed``, the
prompt's row index, the session and the training step, so two runs with the same data (the arena's and a rule-based
reward's, ``verl-arena bench step``) see the same arrivals. It is not registered by name; a benchmark lists it in an
agent-loop file, whose extra keys verl passes to the loop:

.. code-block:: yaml

    - name: arena_long_tail_agent
      _target_: verl_arena.integrations.verl.long_tail.LongTailAgentLoop
      tail_median_s: 2.0
      tail_sigma: 1.0
      tail_seed: 0

with ``actor_rollout_ref.rollout.agent.agent_loop_config_path=<that file>`` and
``actor_rollout_ref.rollout.agent.default_agent_loop=arena_long_tail_agent``.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.agent_loops import ArenaSingleTurnAgentLoop

__all__ = ["LONG_TAIL_AGENT", "LongTailAgentLoop", "tail_delay_s"]

#: the name a benchmark's agent-loop file gives the loop
LONG_TAIL_AGENT = "arena_long_tail_agent"


def tail_delay_s(median_s: float, sigma: float, seed: int, row: int, session: int, step: int) -> float:
    """The seconds rollout ``session`` of row ``row`` waits at training step ``step``: lognormal around ``median_s``
    (``median_s * exp(sigma * z)``, ``z`` standard normal from the four integers), 0 when ``median_s`` is 0."""
    if median_s <= 0:
        return 0.0
    rng = np.random.default_rng([seed, row, session, step])
    return float(median_s * math.exp(sigma * rng.standard_normal()))


class LongTailAgentLoop(ArenaSingleTurnAgentLoop):
    """``arena_single_turn_agent`` answering after a seeded lognormal wait (see the module's docstring).

    Args:
        tail_median_s: the median wait in seconds (0: none).
        tail_sigma: the spread of its logarithm (0: every rollout waits the median).
        tail_seed: which draw.
    """

    def __init__(
        self, *args: Any, tail_median_s: float = 0.0, tail_sigma: float = 1.0, tail_seed: int = 0, **kwargs: Any
    ) -> None:
        if tail_median_s < 0 or tail_sigma < 0:
            raise ConfigError(
                f"{LONG_TAIL_AGENT}: tail_median_s and tail_sigma must be >= 0, got {tail_median_s} and {tail_sigma}"
            )
        super().__init__(*args, **kwargs)
        self.tail = (float(tail_median_s), float(tail_sigma), int(tail_seed))

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        output = await super().run(sampling_params, **kwargs)
        median_s, sigma, seed = self.tail
        row, session = int(kwargs.get("index") or 0), int(kwargs.get("session_id") or 0)
        step = int(kwargs.get("global_steps") or 0)
        await asyncio.sleep(tail_delay_s(median_s, sigma, seed, row, session, step))
        return output
