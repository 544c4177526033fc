# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The CPU backend's pieces on their own: the private verl names it relies on, sampling with log-probabilities,
the tiny model (the trainer runs them together in tests/e2e/test_verl_training.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from verl_arena.integrations.verl.cpu import verl_private
from verl_arena.integrations.verl.cpu.sampling import _truncated, sample
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model


def test_every_private_verl_name_resolves_and_a_missing_one_is_named():
    for name in verl_private.PRIVATE_NAMES:
        module, attribute = verl_private.resolve(name)
        assert hasattr(module, attribute)
    with pytest.raises(ImportError, match=r"needs verl\.utils\.distributed:no_such_thing, which verl 0\.9"):
        verl_private.resolve("verl.utils.distributed:no_such_thing")


@pytest.mark.slow
def test_nothing_is_active_without_verl_platform_cpu():
    code = (
        "import verl\n"
        "from verl.workers.rollout.base import _ROLLOUT_REGISTRY\n"
        "from verl.plugin.platform.platform_manager import PlatformRegistry\n"
        "print(('transformers', 'async') in _ROLLOUT_REGISTRY, 'cpu' in PlatformRegistry.registered_names())"
    )
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""}, timeout=120)
    on = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"VERL_PLATFORM": "cpu"}, timeout=120
    )
    assert off.stdout.split() == ["False", "False"], off.stderr[-2000:]
    assert on.stdout.split() == ["True", "True"], on.stderr[-2000:]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = build_tiny_model(tmp_path_factory.mktemp("model"))
    return AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_the_tiny_model_is_the_same_for_the_same_seed(tmp_path):
    from safetensors.torch import load_file

    a, b = build_tiny_model(tmp_path / "a"), build_tiny_model(tmp_path / "b")
    wa, wb = load_file(a / "model.safetensors"), load_file(b / "model.safetensors")
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


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
