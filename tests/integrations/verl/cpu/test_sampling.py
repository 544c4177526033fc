# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Sampling one sequence with a key-value cache: the log-probabilities verl's actor would compute for the same tokens,
greedy decoding, and top-k / top-p truncation (the trainer runs it in tests/e2e/test_verl_training.py)."""

from __future__ import annotations

import pytest
import torch

from verl_arena.integrations.verl.cpu.sampling import _truncated, sample
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = build_tiny_model(tmp_path_factory.mktemp("model"))
    return AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_sampling_reports_the_log_probabilities_verls_actor_computes(tiny):
    model, tokenizer = tiny
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "Plan a day"}], add_generation_prompt=True)
    prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)

    def draw(max_tokens: int, temperature: float, seed: int) -> tuple[list[int], list[float]]:
        untruncated = {"top_p": 1.0, "top_k": -1, "stop_ids": set()}
        generator = torch.Generator().manual_seed(seed)
        return sample(model, prompt, max_tokens=max_tokens, temperature=temperature, generator=generator, **untruncated)

    tokens, log_probs = draw(6, 0.7, seed=0)
    with torch.no_grad():
        logits = model(torch.tensor([prompt + tokens])).logits[0, len(prompt) - 1 : -1] / 0.7
    expected = torch.log_softmax(logits.float(), -1).gather(1, torch.tensor(tokens)[:, None]).squeeze(1)
    assert len(tokens) == 6 and torch.allclose(torch.tensor(log_probs), expected, atol=1e-4)
    greedy = [draw(4, 0.0, seed=s)[0] for s in (1, 2)]
    assert greedy[0] == greedy[1]


def test_top_k_and_top_p_truncate_the_distribution():
    log_probs = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    assert torch.isinf(_truncated(log_probs, 1.0, 2)).tolist() == [False, False, True, True]
    assert torch.isinf(_truncated(log_probs, 0.7, -1)).tolist() == [False, False, True, True]
    assert not torch.isinf(_truncated(log_probs, 1.0, -1)).any()
