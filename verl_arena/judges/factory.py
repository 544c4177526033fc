# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Building the judge stack a configuration describes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verl_arena.judges.config import JudgeConfig, parse_judge_config
from verl_arena.judges.llm import LLMJudge
from verl_arena.judges.order_swap import OrderSwapJudge

__all__ = ["build_judge"]


def build_judge(config: JudgeConfig | Mapping[str, Any]) -> LLMJudge | OrderSwapJudge:
    """The LLM judge, wrapped in order swapping when ``config.order_swap`` is set (the default)."""
    cfg = parse_judge_config(config)
    judge = LLMJudge(cfg)
    if cfg.order_swap:
        return OrderSwapJudge(judge, require_agreement=cfg.require_agreement)
    return judge
