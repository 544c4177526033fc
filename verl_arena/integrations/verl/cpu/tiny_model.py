# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A tiny, randomly initialised Qwen2 with its own tokenizer, built offline (no model hub).

Enough for verl's trainer to run real steps on a CPU: a byte-level BPE tokenizer trained on a small travel-planning
corpus, with ChatML markers and a chat template that renders tool calls the way Qwen's hermes parser reads them, and
a two-layer Qwen2 of about 0.2 M parameters. It generates noise, which is all a smoke test needs.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["CHAT_TEMPLATE", "build_tiny_model", "build_tokenizer"]

# ChatML with hermes-style tool calls. Hugging Face renders chat templates with trim_blocks, so a newline right after
# a block tag is written as a Jinja string.
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

_CORPUS = [
    "Plan two days in Chengdu with pandas and hotpot.",
    "Day 1: visit the panda base at 7:30, lunch, then Jinli street. Day 2: Leshan Buddha by train.",
    "<think>I should search for the opening hours first.</think>",
    '<tool_call>\n{"name": "search_poi", "arguments": {"q": "panda base"}}\n</tool_call>',
    "<tool_response>\nPanda base opens 7:30, tickets 55 yuan.\n</tool_response>",
    "The museum opens at 9:00. Metro line 3 takes 40 minutes. Budget 600 yuan per person.",
    "Kyoto temples, tea houses, a market lunch and an evening walk along the river.",
    "user assistant system tool response call arguments name function",
] * 20


def build_tokenizer(path: str | Path, vocab_size: int = 800) -> Path:
    """Train the tokenizer and save it (with a minimal qwen2 ``config.json``) at ``path``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    path = Path(path)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(  # no progress: it goes to stdout, where `verl-arena tiny-model` prints the path
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", additional_special_tokens=specials[1:]
    )
    fast.chat_template = CHAT_TEMPLATE
    path.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(path)
    config = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": len(fast)}
    (path / "config.json").write_text(json.dumps(config))
    return path


def build_tiny_model(
    path: str | Path, *, hidden_size: int = 64, layers: int = 2, seed: int = 0, context: int = 2048
) -> Path:
    """Build the tokenizer and a random Qwen2 at ``path`` (the same weights for the same ``seed``) with a context
    window of ``context`` tokens."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    path = build_tokenizer(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=context,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng():  # the caller's random state is left as it was
        torch.manual_seed(seed)
        Qwen2ForCausalLM(config).save_pretrained(path)
    return path
