# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real model's honest answers: the committed samples are read as groups of four per query, and a run of
``generate_samples`` writes each batch of groups as it is done and answers only the queries its output lacks."""

from __future__ import annotations

import json
import sys
import types

import pytest

from verl_arena.bench import model_samples
from verl_arena.bench.honest_queries import QUERIES
from verl_arena.bench.model_samples import SAMPLES, generate_samples, load_samples


def test_the_committed_samples_are_groups_of_four_answers_to_the_corpus_queries():
    if not SAMPLES.exists():
        pytest.skip(f"no {SAMPLES}: an installed package")
    groups = load_samples()
    queries = {q for qs in QUERIES.values() for q in qs}
    assert len(groups) >= 60 and sum(len(a) for _, _, a in groups) >= 240
    assert all(q in queries and len(answers) == 4 for _, q, answers in groups)
    assert all(domain in QUERIES for domain, _, _ in groups)
    assert SAMPLES.stat().st_size < 300_000


def test_a_run_appends_each_batch_and_answers_only_what_its_output_lacks(tmp_path, monkeypatch):
    calls = []

    def answers(model, tokenizer, queries, max_new_tokens, seed):
        calls.append((list(queries), seed))
        return [f"answer {i} to {q[:10]}" for i, q in enumerate(queries)]

    loader = types.SimpleNamespace(from_pretrained=lambda *a, **k: types.SimpleNamespace(eval=lambda: None))
    fake = types.ModuleType("transformers")
    fake.AutoTokenizer = fake.AutoModelForCausalLM = loader
    monkeypatch.setitem(sys.modules, "transformers", fake)
    monkeypatch.setattr(model_samples, "_answers", answers)
    out = tmp_path / "samples.jsonl"
    assert generate_samples(tmp_path / "model", out, per_query=2, batch=2, limit=3, seed=1) == 3
    assert [len(queries) for queries, _ in calls] == [4, 2] and calls[1][1] == 100_003 + 2
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [len(e["answers"]) for e in lines] == [2, 2, 2] and lines[0]["model"] == "model"
    assert load_samples(out)[1] == (lines[1]["domain"], lines[1]["query"], lines[1]["answers"])
    calls.clear()  # the next run goes on after them
    assert generate_samples(tmp_path / "model", out, per_query=2, batch=2, limit=4) == 1 and len(calls) == 1
    assert load_samples(tmp_path / "missing.jsonl") == []
