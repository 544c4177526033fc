# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Building the judge stack a configuration describes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verl_arena.judges.cache import VerdictCache
from verl_arena.judges.config import JudgeConfig, parse_judge_config
from verl_arena.judges.ensemble import EnsembleJudge
from verl_arena.judges.http import ChatClient
from verl_arena.judges.llm import LLMJudge
from verl_arena.judges.one_order import OneOrderJudge
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.judges.templates import load_template

__all__ = ["build_judge", "score_range"]


def build_judge(
    config: JudgeConfig | Mapping[str, Any],
) -> LLMJudge | OrderSwapJudge | OneOrderJudge | EnsembleJudge:
    """The LLM judge, wrapped in order swapping (``config.orders`` ``both``, the default, or ``agree``) or in one
    drawn order per pair (``drawn``); with an ``ensemble``, one such judge per member and sample, combined. The
    samples of one member share its HTTP client (so its limits) and its cache."""
    cfg = parse_judge_config(config)
    if cfg.ensemble is None:
        return _single(cfg)
    members, ranges = [], []
    for member in cfg.member_configs():
        client = ChatClient(member)
        cache = VerdictCache(member.cache_path) if member.cache_path else None
        for k in range(cfg.ensemble.samples):
            seeded = member if k == 0 or member.seed is None else member.model_copy(update={"seed": member.seed + k})
            members.append(_single(seeded, client=client, cache=cache, sample=k))
            ranges.append(score_range(member))
    return EnsembleJudge(members, combine=cfg.ensemble.combine, ranges=ranges)


def score_range(config: JudgeConfig) -> tuple[float, float]:
    """The range of one side's score in a verdict of this judge: the template's scale, doubled with order swapping
    (both orders' scores are added up)."""
    low, high = load_template(config.template, config.language, kind="pairwise").scale
    orders = 2 if config.both_orders else 1
    return low * orders, high * orders


def _single(cfg: JudgeConfig, **llm: Any) -> LLMJudge | OrderSwapJudge | OneOrderJudge:
    judge = LLMJudge(cfg, **llm)
    if cfg.orders == "drawn":
        return OneOrderJudge(judge, seed=cfg.seed or 0)
    if cfg.both_orders:
        return OrderSwapJudge(judge, require_agreement=cfg.orders == "agree", break_ties=cfg.graded == "break_ties")
    return judge
