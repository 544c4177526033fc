# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How fast the CPU rollout generates a step: the ``verl-arena bench generation`` command.

The CPU rollout backend (:mod:`verl_arena.integrations.verl.cpu.rollout`) used to sample one sequence at a time on one
thread; it now samples the requests of a step together, on every core it may use. This bench generates one step of
rollouts (``prompts`` travel queries in the model's chat template, ``n`` samples each, up to ``tokens`` new tokens,
temperature 1, stopping at the model's end of turn) both ways with the same per-sequence random states, in one run:

- ``one_by_one``: each sequence alone, on one thread (the old backend);
- ``batched``: every sequence in one batch, on :func:`~verl_arena.integrations.verl.cpu.sampling.generation_threads`
  threads (the backend now).

It reports each way's seconds and tokens per second, the speed-up, whether both sampled the same tokens (a fixed seed
gives the same rollouts however they are batched), and the largest difference between a sampled token's
log-probability and the actor's recomputation of it (one forward pass over prompt and response, as verl's actor
computes ``old_log_probs``), which must stay under 1e-3 for the trainer's importance ratios to mean anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from verl_arena.integrations.verl.cpu.sampling import Draw, generation_threads, sample_batch

__all__ = ["GenerationRun", "format_generation", "run_generation_bench"]

#: the step's prompts: travel requests like the examples'
QUERIES = (
    "Plan a two-day trip to Lyon by train from Paris for two people on a budget of 300 euros.",
    "I have one day in Kyoto in autumn. Plan a walking route with temples, lunch and a tea house.",
    "Plan a weekend in Lisbon for a family with two children who like trams and the sea.",
    "Give me a three-stop itinerary for an afternoon in Berlin, with museum times and a dinner place.",
    "Plan a day of hiking near Zurich with a lake swim and the trains there and back.",
    "Which order should I visit Rome's Colosseum, Pantheon and Vatican in one day, and when?",
)


@dataclass(frozen=True)
class GenerationRun:
    """One way of generating the step.

    Args:
        way: ``one_by_one`` or ``batched``.
        threads: torch threads it used.
        seconds: wall time of the whole step.
        tokens: tokens sampled.
        same_tokens: whether it sampled exactly the tokens of the other way.
        log_prob_error: the largest |rollout - recomputed| log-probability of a sampled token.
    """

    way: str
    threads: int
    seconds: float
    tokens: int
    same_tokens: bool
    log_prob_error: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, with tokens per second."""
        return {**self.__dict__, "tokens_per_s": round(self.tokens / self.seconds, 2)}


def _prompts(tokenizer: Any, count: int) -> list[list[int]]:
    if not 1 <= count <= len(QUERIES):
        raise ValueError(f"prompts must be 1-{len(QUERIES)}, got {count}")
    prompts = []
    for query in QUERIES[:count]:
        ids = tokenizer.apply_chat_template([{"role": "user", "content": query}], add_generation_prompt=True)
        prompts.append(list(ids["input_ids"] if hasattr(ids, "keys") else ids))
    return prompts


def _draws(prompts: list[list[int]], n: int, tokens: int, seed: int) -> list[Draw]:
    return [
        Draw(p, tokens, 1.0, 1.0, -1, torch.Generator().manual_seed(seed * 1000 + i))
        for i, p in enumerate(p for p in prompts for _ in range(n))
    ]


def _recomputed_error(model: Any, draws: list[Draw]) -> float:
    """The largest difference between a draw's log-probabilities and one forward pass over its prompt and tokens."""
    worst = 0.0
    with torch.inference_mode():
        for d in draws:
            logits = model(torch.tensor([d.prompt_ids + d.tokens])).logits[0, len(d.prompt_ids) - 1 : -1].float()
            expected = torch.log_softmax(logits, -1).gather(1, torch.tensor(d.tokens)[:, None]).squeeze(1)
            worst = max(worst, float((torch.tensor(d.log_probs) - expected).abs().max()))
    return worst


def _timed(threads: int, generate: Callable[[], list[Draw]]) -> tuple[float, list[Draw]]:
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        start = time.perf_counter()
        draws = generate()
        return time.perf_counter() - start, draws
    finally:
        torch.set_num_threads(before)


def run_generation_bench(
    model_dir: str | Path,
    *,
    prompts: int = 4,
    n: int = 4,
    tokens: int = 128,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[GenerationRun]:
    """Generate one step both ways with the model in ``model_dir`` (see the module docstring)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    say = progress or (lambda _: None)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval()
    eos = model.generation_config.eos_token_id or model.config.eos_token_id
    stop = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    asked = _prompts(tokenizer, prompts)
    say(f"one_by_one: {prompts * n} sequences, one at a time on 1 thread")
    slow_s, slow = _timed(
        1, lambda: [d for one in _draws(asked, n, tokens, seed) for d in sample_batch(model, [one], stop)]
    )
    threads = generation_threads()
    say(f"batched: {prompts * n} sequences in one batch on {threads} threads")
    fast_s, fast = _timed(threads, lambda: list(sample_batch(model, _draws(asked, n, tokens, seed), stop)))
    same = [d.tokens for d in slow] == [d.tokens for d in fast]
    say("recomputing the log-probabilities as the actor does")
    return [
        GenerationRun("one_by_one", 1, slow_s, sum(len(d.tokens) for d in slow), same, _recomputed_error(model, slow)),
        GenerationRun(
            "batched", threads, fast_s, sum(len(d.tokens) for d in fast), same, _recomputed_error(model, fast)
        ),
    ]


def format_generation(runs: list[GenerationRun], model_dir: str | Path) -> str:
    """The table, and the speed-up of the last way over the first."""
    lines = [
        f"one step of rollouts from {model_dir}; log-prob error: the largest |rollout - actor recomputation|",
        f"{'way':<11} {'threads':>7} {'seconds':>8} {'tokens':>6} {'tokens/s':>8} {'same tokens':>11} "
        f"{'log-prob error':>14}",
    ]
    for r in runs:
        lines.append(
            f"{r.way:<11} {r.threads:>7} {r.seconds:>8.1f} {r.tokens:>6} {r.tokens / r.seconds:>8.1f} "
            f"{'yes' if r.same_tokens else 'NO':>11} {r.log_prob_error:>14.2e}"
        )
    first, last = runs[0], runs[-1]
    speedup = (last.tokens / last.seconds) / (first.tokens / first.seconds)
    lines.append(f"{last.way} generates {speedup:.1f}x the tokens per second of {first.way}")
    return "\n".join(lines)
