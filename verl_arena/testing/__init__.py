# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Test doubles: judges whose behaviour is known, for statistics, tests, benchmarks and demos - never for judging
real training runs.

- :class:`SimulatedJudge`, :class:`FlakyJudge` (``simulated.py``): candidates with hidden qualities, judged with
  configurable noise, drift and biases; a wrapper that fails some judgments.
- :class:`InstantJudge`, :class:`TableJudge` (``doubles.py``): deterministic answers at no cost.
- :class:`MockJudgeServer`, :class:`MockJudgeThread` (``mock_server.py``): a real OpenAI-compatible HTTP server that
  answers verl-arena's prompts with a lexical rubric judge (``lexical.py``) and injects faults on request; what
  ``verl-arena rank`` and ``verl-arena mock-judge`` use when no judge is configured.
"""

from verl_arena.testing.doubles import InstantJudge, TableJudge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeServer, MockJudgeThread
from verl_arena.testing.simulated import FlakyJudge, SimulatedJudge

__all__ = [
    "FlakyJudge",
    "InstantJudge",
    "MockJudgeConfig",
    "MockJudgeServer",
    "MockJudgeThread",
    "SimulatedJudge",
    "TableJudge",
]
