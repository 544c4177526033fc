# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the verl tests need and no hub can give here: a tiny tokenizer with a tool-calling chat template, and verl's
own trainer config composed with overrides."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

# ChatML with hermes-style tool calls. Hugging Face renders chat templates with trim_blocks, so a newline right
# after a block tag is written as a Jinja string.
CHAT_TEMPLATE = (
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0].role == 'system' %}{{ messages[0].content }}{{ '\\n' }}{% endif %}"
    "Tools:{% for t in tools %}{{ '\\n' }}{{ t | tojson }}{% endfor %}<|im_end|>\n"
    "{% elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n{% endif %}"
    "{% for m in messages %}"
    "{% if m.role == 'system' %}"
    "{% elif m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n</tool_response><|im_end|>\n"
    "{% elif m.role == 'assistant' %}<|im_start|>assistant\n{{ m.content }}"
    "{% for c in (m.tool_calls or []) %}{{ '\\n' }}<tool_call>\n"
    '{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}\n</tool_call>'
    "{% endfor %}<|im_end|>\n"
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CORPUS = [
    "Plan two days in Chengdu with pandas and hotpot.",
    "Day 1: visit the panda base at 7:30, lunch, then Jinli street. Day 2: Leshan Buddha by train.",
    "<think>I should search for the opening hours first.</think>",
    '<tool_call>\n{"name": "search_poi", "arguments": {"q": "panda base"}}\n</tool_call>',
    "<tool_response>\nPanda base opens 7:30, tickets 55 yuan.\n</tool_response>",
    "The museum opens at 9:00. Metro line 3 takes 40 minutes. Budget 600 yuan per person.",
    "user assistant system tool response call arguments name function",
] * 20


def build_tokenizer(path: Path) -> Path:
    """Train a byte-level BPE tokenizer with ChatML markers and save it (with a qwen2 config) at ``path``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=800, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", additional_special_tokens=specials[1:]
    )
    fast.chat_template = CHAT_TEMPLATE
    path.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(path)
    config = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": len(fast)}
    (path / "config.json").write_text(json.dumps(config))
    return path


def verl_config(overrides: Sequence[str] = ()):
    """verl's ``ppo_trainer`` config composed with Hydra, as ``python -m verl.trainer.main_ppo ...`` would."""
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=list(overrides))
