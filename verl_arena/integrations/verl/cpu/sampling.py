# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Sampling from a transformers model with a key-value cache, several sequences at once, with the log-probability of
every token: what the CPU rollout server and the reward-model chat server both generate with.

The sequences of a batch are left-padded to one length and stepped together; a sequence that stopped leaves the batch
(its rows of the cache are dropped), so a batch costs what its longest sequence costs, not the sum of all. Each
sequence draws from its own :class:`torch.Generator`, so what it samples does not depend on which others share its
batch.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["THREADS_ENV", "Draw", "generation_threads", "sample", "sample_batch"]

#: the environment variable that sets how many threads a server generates with (default: every core it may use)
THREADS_ENV = "VERL_ARENA_CPU_THREADS"


def generation_threads() -> int:
    """How many threads a CPU server generates with: :data:`THREADS_ENV`, else the cores this process may run on."""
    given = os.environ.get(THREADS_ENV)
    if given:
        if not given.isdigit() or int(given) < 1:
            raise ValueError(f"{THREADS_ENV} must be a whole number of threads, at least 1; got {given!r}")
        return int(given)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass
class Draw:
    """One sequence to sample, and then what was sampled.

    Args:
        prompt_ids: the prompt's token ids.
        max_tokens: at most this many tokens are sampled.
        temperature: the logits are divided by it; 0 is greedy (its log-probabilities are untempered).
        top_p: the nucleus drawn from (1: all of it).
        top_k: the top tokens drawn from (-1: all of them).
        generator: this sequence's random state.
        tokens: the sampled tokens (filled by :func:`sample_batch`).
        log_probs: their log-probabilities (filled by :func:`sample_batch`).
    """

    prompt_ids: list[int]
    max_tokens: int
    temperature: float
    top_p: float
    top_k: int
    generator: torch.Generator
    tokens: list[int] = field(default_factory=list)
    log_probs: list[float] = field(default_factory=list)


def sample(
    model: Any,
    prompt_ids: list[int],
    *,
    max_tokens: int,
    temperature: float,
    top_p: float,
    top_k: int,
    stop_ids: set[int],
    generator: torch.Generator,
) -> tuple[list[int], list[float]]:
    """Sample up to ``max_tokens`` tokens after ``prompt_ids``; returns the tokens and their log-probabilities (one
    sequence of :func:`sample_batch`)."""
    (draw,) = sample_batch(model, [Draw(list(prompt_ids), max_tokens, temperature, top_p, top_k, generator)], stop_ids)
    return draw.tokens, draw.log_probs


def sample_batch(model: Any, draws: Sequence[Draw], stop_ids: set[int]) -> Sequence[Draw]:
    """Sample every draw of ``draws`` in one batch, until each has its ``max_tokens`` or a token of ``stop_ids``;
    returns ``draws`` with their ``tokens`` and ``log_probs`` filled.

    Log-probabilities are taken from the distribution the token was drawn from before top-p/top-k truncation, with
    logits divided by the temperature (as verl's actor computes them); a greedy draw (temperature 0) reports the
    untempered distribution.
    """
    for draw in draws:
        draw.tokens, draw.log_probs = [], []
    live = [i for i, d in enumerate(draws) if d.max_tokens > 0]
    if not live:
        return draws
    width = max(len(draws[i].prompt_ids) for i in live)
    mask = torch.tensor([[0] * (width - len(draws[i].prompt_ids)) + [1] * len(draws[i].prompt_ids) for i in live])
    step_input = torch.tensor([[0] * (width - len(draws[i].prompt_ids)) + draws[i].prompt_ids for i in live])
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    past = None
    with torch.inference_mode():
        while live:
            out = model(
                input_ids=step_input, attention_mask=mask, position_ids=positions, past_key_values=past, use_cache=True
            )
            past = out.past_key_values
            chosen = [_draw_next(draws[i], out.logits[row, -1].float()) for row, i in enumerate(live)]
            keep = [row for row, i in enumerate(live) if _goes_on(draws[i], stop_ids)]
            if len(keep) < len(live):
                live = [live[row] for row in keep]
                if not live:
                    break
                index = torch.tensor(keep)
                past.batch_select_indices(index)
                mask, positions, chosen = mask[index], positions[index], [chosen[row] for row in keep]
            step_input = torch.tensor(chosen)[:, None]
            mask = torch.cat([mask, torch.ones(len(live), 1, dtype=mask.dtype)], dim=1)
            positions = positions[:, -1:] + 1
    return draws


def _draw_next(draw: Draw, logits: torch.Tensor) -> int:
    """Draw the next token of ``draw`` from ``logits`` (its last position's) and record it."""
    if draw.temperature > 0:
        logits = logits / draw.temperature
    distribution = torch.log_softmax(logits, dim=-1)
    if draw.temperature <= 0:
        token = int(torch.argmax(logits))
    else:
        truncated = _truncated(distribution, draw.top_p, draw.top_k).exp()
        token = int(torch.multinomial(truncated, 1, generator=draw.generator))
    draw.tokens.append(token)
    draw.log_probs.append(float(distribution[token]))
    return token


def _goes_on(draw: Draw, stop_ids: set[int]) -> bool:
    return len(draw.tokens) < draw.max_tokens and draw.tokens[-1] not in stop_ids


def _truncated(log_probs: torch.Tensor, top_p: float, top_k: int) -> torch.Tensor:
    """Log-probabilities with everything outside the top-k and the top-p nucleus set to -inf."""
    out = log_probs.clone()
    if 0 < top_k < out.numel():
        kth = torch.topk(out, top_k).values[-1]
        out[out < kth] = -float("inf")
    if 0 < top_p < 1:
        ordered, order = torch.sort(out, descending=True)
        mass_before = torch.cumsum(ordered.exp(), dim=0) - ordered.exp()
        out[order[mass_before >= top_p]] = -float("inf")
    return out
