# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The token bench's tokenizers: Qwen's BPE read offline from the package that ships it, the fallback BPE trained
offline, and which one a report is told it got."""

from __future__ import annotations

import functools
import logging
import sys

import pytest

from verl_arena.bench import tokenizer as tokenizers
from verl_arena.bench.tokenizer import load_tokenizer, qwen_bpe_path


@pytest.fixture
def without_dashscope(monkeypatch):
    """dashscope made unfindable, and a fresh cache for Qwen's tokenizer (the real loader, run again)."""
    monkeypatch.setitem(sys.modules, "dashscope", None)
    monkeypatch.setattr(tokenizers, "_qwen", functools.cache(tokenizers._qwen.__wrapped__))


def test_qwens_tokenizer_loads_offline_from_the_package():
    pytest.importorskip("tiktoken")
    if qwen_bpe_path() is None:
        pytest.skip("dashscope is not installed (pip install 'verl-arena[tokens]')")
    qwen = load_tokenizer("qwen")
    assert qwen.name.startswith("Qwen BPE (151,643 tokens")
    assert qwen.encode("Hello world") == [9707, 1879]  # Qwen2/2.5/3's ids
    assert qwen.chat([{"role": "user", "content": "Hi"}])[:2] == [151644, 872]  # <|im_start|> user
    text = "Plan one day in Kyoto for two people who love temples, food markets and an evening walk, with times."
    assert 3.5 < len(text) / qwen.count(text) < 6  # a real vocabulary: whole English words per token


@pytest.mark.slow  # trains its BPE: a few seconds
def test_the_fallback_is_a_real_bpe_and_says_it_is_the_fallback():
    tiny = load_tokenizer("tiny")
    assert "fallback" in tiny.name
    assert 0 < tiny.count("Plan two days in Chengdu") < len("Plan two days in Chengdu")


def test_an_unknown_tokenizer_is_named_with_the_choices():
    with pytest.raises(ValueError, match=r"one of auto, qwen, tiny, got 'bert'"):
        load_tokenizer("bert")


def test_asking_for_qwens_tokenizer_without_its_package_says_what_to_install(without_dashscope):
    assert qwen_bpe_path() is None
    with pytest.raises(ImportError, match=r'pip install "verl-arena\[tokens\]"'):
        load_tokenizer("qwen")


@pytest.mark.slow
def test_auto_falls_back_to_the_tiny_bpe_with_a_warning_and_the_report_names_it(without_dashscope, caplog):
    with caplog.at_level(logging.WARNING, logger=tokenizers.__name__):
        fallback = load_tokenizer("auto")
    assert fallback is load_tokenizer("tiny") and "fallback" in fallback.name
    assert "counting with the tiny fallback BPE" in caplog.text
