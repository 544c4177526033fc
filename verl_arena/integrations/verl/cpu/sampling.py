# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Sampling one sequence from a transformers model with a key-value cache, with the log-probability of every token:
what the CPU rollout server and the reward-model chat server both generate with."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["sample"]


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
    """Sample up to ``max_tokens`` tokens after ``prompt_ids``; returns the tokens and their log-probabilities.

    Log-probabilities are taken from the distribution the token was drawn from before top-p/top-k truncation, with
    logits divided by the temperature (as verl's actor computes them); a greedy request (temperature 0) reports the
    untempered distribution.
    """
    tokens: list[int] = []
    log_probs: list[float] = []
    past = None
    step_input = torch.tensor([prompt_ids])
    with torch.inference_mode():
        for _ in range(max_tokens):
            out = model(input_ids=step_input, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logits = out.logits[0, -1].float()
            if temperature > 0:
                logits = logits / temperature
            distribution = torch.log_softmax(logits, dim=-1)
            if temperature <= 0:
                token = int(torch.argmax(logits))
            else:
                token = int(torch.multinomial(_truncated(distribution, top_p, top_k).exp(), 1, generator=generator))
            tokens.append(token)
            log_probs.append(float(distribution[token]))
            if token in stop_ids:
                break
            step_input = torch.tensor([[token]])
    return tokens, log_probs


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
