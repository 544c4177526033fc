# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A pointwise LLM-judge reward for verl's ``custom_reward_function``: the way users score rollouts with a judge today.

verl's ``naive`` reward manager awaits :func:`compute_score` once per rollout. It asks the judge ``k`` times, each
request showing the task and this one answer and asking for a score from 0 to 10 (``{"score": N}``), and returns the
mean of the ``k`` scores over 10. Averaging ``k`` scores is how the ``bench learning`` pointwise arm spends about the
judge tokens the arena spends on a group, and how it fights the judge's noise.

A request that fails (a transport error, an HTTP error, a reply without a score) is asked again, up to ``attempts``
times; a score that still cannot be had fails the rollout's reward with an error naming the judge, so the run fails
and says why: no score is invented. verl hands a custom reward function the row's ``extra_info``, not its prompt: the
request is looked up by the row's task id (``extra_info.id``, as ``verl-arena prepare`` writes it) in ``tasks``, the
task file the data was prepared from. Validation rows (``extra_info.split`` in verl-arena's validation splits) get 0
without asking the judge: ``bench learning`` scores held-out answers with its own gold scorer.

Use it with ``reward.reward_manager.name=naive``,
``reward.custom_reward_function.path=pkg://verl_arena.bench.pointwise_reward``, and
``+reward.custom_reward_function.reward_kwargs.base_url=URL`` and ``tasks=FILE`` among its reward kwargs (``k``,
``model``, ``timeout_s``, ``attempts`` likewise).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Mapping
from typing import Any

import httpx

from verl_arena.judges.parsing import json_objects
from verl_arena.offline.files import jsonl_objects

__all__ = ["compute_score", "parse_score", "pointwise_prompt", "task_queries"]

logger = logging.getLogger(__name__)

#: the ``extra_info.split`` values of validation rows (verl-arena prepare's)
VALIDATION_SPLITS = frozenset({"test", "val", "validation", "eval"})


def pointwise_prompt(query: str, answer: str) -> str:
    """The judge prompt that asks for one answer's score: the task, the answer in a candidate block, the reply
    format."""
    return (
        "You grade one answer to a travel-planning request. Judge how well it answers the request: times for every "
        "stop, real places and transport, the stated budget, the travellers' interests.\n\n"
        f"[Request]\n{query}\n\n"
        f"<<<CANDIDATE A answer>>>\n[Final answer]\n{answer}\n<<<END CANDIDATE A answer>>>\n\n"
        'Reply with one JSON object and nothing else: {"score": 0}, the score a number from 0 (useless) to 10 '
        "(perfect)."
    )


def parse_score(reply: str) -> float | None:
    """The score (0-10) in a judge's reply: the ``score`` of its last JSON object, or ``None`` if it has none in
    range."""
    objects = json_objects(reply)
    value = objects[-1].get("score") if objects and isinstance(objects[-1], Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 10:
        return None
    return float(value)


async def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    base_url: str = "",
    tasks: str = "",
    model: str = "mock",
    k: int = 1,
    timeout_s: float = 60.0,
    attempts: int = 3,
    **_: Any,
) -> float:
    """verl's custom reward function: the mean of ``k`` pointwise judge scores of ``solution_str``, over 10 (0 for a
    validation row, unjudged)."""
    info = extra_info if isinstance(extra_info, Mapping) else {}
    if str(info.get("split", "")) in VALIDATION_SPLITS:
        return 0.0
    if not base_url or not tasks or k < 1 or attempts < 1:
        raise ValueError(
            f"pointwise reward: base_url, tasks, k >= 1 and attempts >= 1 are needed, got base_url={base_url!r}, "
            f"tasks={tasks!r}, k={k}, attempts={attempts}"
        )
    task_id = str(info.get("id", ""))
    queries = task_queries(tasks)
    if task_id not in queries:
        raise ValueError(f"pointwise reward: task id {task_id!r} (extra_info.id) is not in {tasks}")
    prompt = pointwise_prompt(queries[task_id], solution_str)
    async with httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout_s) as client:
        scores = await asyncio.gather(*(_score(client, model, prompt, attempts) for _ in range(k)))
    return sum(scores) / (10 * k)


@functools.cache
def task_queries(path: str) -> dict[str, str]:
    """``{task id: request}`` of a task file (JSONL with ``id`` and ``query``), read once per process."""
    return {str(task["id"]): str(task["query"]) for _, _, task in jsonl_objects(path)}


async def _score(client: httpx.AsyncClient, model: str, prompt: str, attempts: int) -> float:
    """One score from the judge, asked up to ``attempts`` times."""
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": 64, "temperature": 0}
    problem = ""
    for attempt in range(attempts):
        try:
            response = await client.post("/chat/completions", json=body)
            response.raise_for_status()
            reply = response.json()["choices"][0]["message"]["content"] or ""
        except (httpx.HTTPError, KeyError, IndexError, TypeError, json.JSONDecodeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
        else:
            score = parse_score(reply)
            if score is not None:
                return score
            problem = f"no score in the reply {reply[:200]!r}"
        logger.warning("pointwise judge %s, attempt %d of %d: %s", client.base_url, attempt + 1, attempts, problem)
    raise RuntimeError(f"pointwise judge at {client.base_url} gave no score in {attempts} attempts: {problem}")
