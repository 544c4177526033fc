# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge implementations: the OpenAI-compatible LLM judge and what it is built from.

- :class:`LLMJudge` (``llm.py``): templates, parsing, cache, shortcuts; over :class:`ChatClient` (``http.py``).
- :class:`OrderSwapJudge` (``order_swap.py``): ArenaRL's bidirectional protocol around any pairwise judge.
- :class:`OneOrderJudge` (``one_order.py``): one request per pair, in a slot order drawn from the seed.
- :func:`build_judge`: the stack a :class:`JudgeConfig` describes.
- :func:`candidate_from_messages` (``rendering.py``): chat trajectories into candidates.
- ``blame.py``: which candidate broke the judge (probes of each suspect alone, against controls of its size).

Judges with known behaviour for statistics, tests and demos (simulated judges, the mock judge server) live in
:mod:`verl_arena.testing`.
"""

from verl_arena.judges.config import EndpointConfig, JudgeConfig, RetryConfig, parse_judge_config
from verl_arena.judges.factory import build_judge
from verl_arena.judges.http import ChatClient, ChatResult
from verl_arena.judges.llm import LLMJudge
from verl_arena.judges.one_order import OneOrderJudge
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.judges.rendering import candidate_from_messages

__all__ = [
    "ChatClient",
    "ChatResult",
    "EndpointConfig",
    "JudgeConfig",
    "LLMJudge",
    "OneOrderJudge",
    "OrderSwapJudge",
    "RetryConfig",
    "build_judge",
    "candidate_from_messages",
    "parse_judge_config",
]
