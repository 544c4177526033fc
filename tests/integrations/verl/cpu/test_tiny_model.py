# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The tiny model built offline: the same weights for the same seed, the caller's random state left alone, the
context window asked for, and a chat template whose tool calls verl's own hermes parser reads back."""

from __future__ import annotations

import asyncio
import json

import pytest
import torch

from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model, build_tokenizer


def test_the_tiny_model_is_the_same_for_the_same_seed_and_leaves_the_callers_random_state_alone(tmp_path):
    from safetensors.torch import load_file
    from transformers import AutoConfig

    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    a, b = build_tiny_model(tmp_path / "a"), build_tiny_model(tmp_path / "b", context=1024)
    assert torch.equal(torch.rand(3), expected)  # building drew nothing from the caller's generator
    c = build_tiny_model(tmp_path / "c", seed=1)
    wa, wb, wc = (load_file(p / "model.safetensors") for p in (a, b, c))
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)
    windows = [AutoConfig.from_pretrained(p).max_position_embeddings for p in (a, b)]
    assert windows == [2048, 1024]


def test_a_tool_call_the_chat_template_renders_is_read_back_by_verls_hermes_parser(tmp_path):
    pytest.importorskip("verl")
    from transformers import AutoTokenizer
    from verl.experimental.agent_loop.tool_parser import ToolParser

    tokenizer = AutoTokenizer.from_pretrained(build_tokenizer(tmp_path))
    call = {"type": "function", "function": {"name": "search_poi", "arguments": {"q": "熊猫基地", "limit": 2}}}
    messages = [
        {"role": "user", "content": "Plan Chengdu"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        {"role": "tool", "content": "Panda base opens 7:30"},
    ]
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    assert "<|im_start|>user\n<tool_response>\nPanda base opens 7:30\n</tool_response><|im_end|>" in text
    reply = text.split("<|im_start|>assistant\n", 1)[1].split("<|im_end|>", 1)[0]
    ids = tokenizer.encode(reply, add_special_tokens=False)
    assert tokenizer.decode(ids) == reply  # byte-level: any text survives the round trip
    parser = ToolParser.get_tool_parser("hermes", tokenizer)
    content, calls = asyncio.run(parser.extract_tool_calls(ids))
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("search_poi", {"q": "熊猫基地", "limit": 2})]
    assert content.strip() == "Let me look."
