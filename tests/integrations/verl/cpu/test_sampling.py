# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Sampling with a key-value cache: the log-probabilities verl's actor would compute for the same tokens, greedy
decoding, top-k / top-p truncation, and a batch of prompts of different lengths that samples what each would alone
(the trainer runs it in tests/e2e/test_verl_training.py)."""

from __future__ import annotations

import pytest
import torch

from verl_arena.integrations.verl.cpu.sampling import Draw, _truncated, sample, sample_batch
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


def _prompt(tokenizer, text: str) -> list[int]:
    ids = tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


def test_a_batch_samples_what_each_sequence_would_alone_with_the_actors_log_probabilities(tiny):
    model, tokenizer = tiny
    prompts = [_prompt(tokenizer, text) for text in ("Plan a day", "Plan a long day in Lyon with trains", "Hi")]
    settings = [(12, 0.7, 1.0, -1), (5, 1.0, 0.9, 20), (12, 0.0, 1.0, -1), (9, 1.2, 1.0, 5)]

    def draws() -> list[Draw]:
        return [
            Draw(prompts[i % 3], n, t, p, k, torch.Generator().manual_seed(i))
            for i, (n, t, p, k) in enumerate(settings)
        ]

    unstopped = [sample_batch(model, [d], set())[0].tokens for d in draws()]
    stop = {unstopped[1][1], unstopped[3][2]}  # tokens two sequences draw early: they leave the batch mid-way
    batched = sample_batch(model, draws(), stop)
    alone = [sample_batch(model, [d], stop)[0] for d in draws()]
    assert [d.tokens for d in batched] == [d.tokens for d in alone]
    lengths = [len(d.tokens) for d in batched]
    assert lengths[1] <= 2 and lengths[3] <= 3 and max(lengths) > 3 and all(n > 0 for n in lengths)
    for draw in batched:
        with torch.no_grad():
            logits = model(torch.tensor([draw.prompt_ids + draw.tokens])).logits[0, len(draw.prompt_ids) - 1 : -1]
        logits = logits.float() / (draw.temperature if draw.temperature > 0 else 1.0)
        expected = torch.log_softmax(logits, -1).gather(1, torch.tensor(draw.tokens)[:, None]).squeeze(1)
        assert torch.allclose(torch.tensor(draw.log_probs), expected, atol=1e-4)


def test_a_draw_of_no_tokens_samples_nothing_and_leaves_the_others_alone(tiny):
    model, tokenizer = tiny
    prompt = _prompt(tokenizer, "Plan a day")
    none, some = Draw(prompt, 0, 1.0, 1.0, -1, torch.Generator()), Draw(prompt, 3, 0.0, 1.0, -1, torch.Generator())
    sample_batch(model, [none, some], set())
    assert none.tokens == [] and len(some.tokens) == 3
    assert (
        sample(
            model,
            prompt,
            max_tokens=3,
            temperature=0.0,
            top_p=1.0,
            top_k=-1,
            stop_ids=set(),
            generator=torch.Generator(),
        )[0]
        == some.tokens
    )
