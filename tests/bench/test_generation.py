# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench generation``: a step of rollouts one by one and batched, with the same tokens both ways and the
actor's log-probabilities (timings are the bench's to report, not a test's to assert)."""

from __future__ import annotations

import pytest

from verl_arena.bench.generation import GenerationRun, format_generation, run_generation_bench
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model


def test_both_ways_sample_the_same_tokens_with_the_actors_log_probabilities(tmp_path, monkeypatch):
    monkeypatch.setenv("VERL_ARENA_CPU_THREADS", "2")
    said: list[str] = []
    slow, fast = run_generation_bench(build_tiny_model(tmp_path), prompts=2, n=3, tokens=8, progress=said.append)
    assert (slow.way, slow.threads, fast.way, fast.threads) == ("one_by_one", 1, "batched", 2)
    assert slow.same_tokens and fast.same_tokens and slow.tokens == fast.tokens and 6 <= fast.tokens <= 48
    assert max(slow.log_prob_error, fast.log_prob_error) < 1e-3
    assert said[0] == "one_by_one: 6 sequences, one at a time on 1 thread"
    with pytest.raises(ValueError, match="prompts must be 1-6"):
        run_generation_bench(build_tiny_model(tmp_path), prompts=7)


def test_the_table_gives_the_speed_up_and_names_different_tokens():
    runs = [GenerationRun("one_by_one", 1, 10.0, 100, False, 1e-6), GenerationRun("batched", 2, 2.5, 100, False, 2e-6)]
    shown = format_generation(runs, "m").splitlines()
    assert shown[-1] == "batched generates 4.0x the tokens per second of one_by_one"
    assert shown[2].split()[5] == "NO" and runs[1].to_dict()["tokens_per_s"] == 40.0
