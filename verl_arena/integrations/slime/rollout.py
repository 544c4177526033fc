# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""slime's rollout-side hooks: evaluation without the group reward model, the greedy anchor, the logged metrics.

- :func:`eval_rollout` (``--eval-function-path verl_arena.slime.eval_rollout``): slime refuses group reward models
  in its evaluation rollout; this runs slime's own evaluation with the group reward model switched off and every eval
  sample judged against its reference by :func:`~verl_arena.integrations.slime.rewards.eval_rm`, so the eval reward is
  a win rate against the reference.
- :func:`rollout` (``--rollout-function-path verl_arena.slime.rollout``): slime's own rollout function, first
  recording the rollout's id as the training step (:mod:`~verl_arena.integrations.slime.steps`), which slime does not
  give its group reward model: ``arena_step_budget`` needs it; the held-out judge's tallies are logged by it. As the
  evaluation function too (slime's default for ``--eval-function-path``), it runs :func:`eval_rollout`.
- :func:`generate` (``--custom-generate-function-path verl_arena.slime.generate``): ArenaRL's anchor is the group's
  greedy rollout; this wraps slime's generate function (or ``arena_generate_function_path``, e.g. your agent loop)
  and samples the first rollout of every training group greedily, marking it ``metadata["arena_anchor"]``.
- :func:`log_rollout` (``--custom-rollout-log-function-path verl_arena.slime.log_rollout``): adds the ``arena/*``
  aggregates of the rollout batch (judge calls, failed and voided groups, forfeits, tokens, ...) to the metrics slime
  logs (with the held-out judge's ``hack/heldout_*`` tallies finished by then), passed through the judge alarm
  (``arena_judge_alarm``, :mod:`~verl_arena.outcomes.judge_alarm`), and lets slime log as usual.

slime is imported only when these run (it is on the path wherever slime calls them).
"""

from __future__ import annotations

import copy
import inspect
import logging
from typing import Any

from verl_arena.integrations.slime.config import arena_config
from verl_arena.integrations.slime.rewards import HELDOUT_TALLIES, METADATA_KEY, group_and_rollout
from verl_arena.integrations.slime.steps import record_step
from verl_arena.outcomes.hack_alarm import HackAlarm, HackAlarmConfig
from verl_arena.outcomes.judge_alarm import JudgeAlarm, JudgeAlarmConfig
from verl_arena.outcomes.members import MemberOutcome
from verl_arena.outcomes.step_metrics import summarize

__all__ = ["EVAL_RM_PATH", "eval_rollout", "generate", "log_rollout", "rollout"]

logger = logging.getLogger(__name__)

EVAL_RM_PATH = "verl_arena.slime.eval_rm"
#: the judge alarm of this process, by its options (slime logs every rollout batch from one process)
_judge_alarms: dict[JudgeAlarmConfig, JudgeAlarm] = {}
#: the hack alarm of this process, by its options
_hack_alarms: dict[str, HackAlarm] = {}


def eval_rollout(args: Any, rollout_id: int, data_source: Any, evaluation: bool = False) -> Any:
    """slime's ``generate_rollout`` with the group reward model off and :func:`eval_rm` as the reward for
    evaluation; training rollouts (``evaluation=False``) pass through unchanged."""
    from slime.rollout.base_types import RolloutFnEvalOutput
    from slime.rollout.sglang_rollout import generate_rollout

    if not evaluation:
        return generate_rollout(args, rollout_id, data_source, evaluation=False)
    if args is None:  # no slime arguments: no eval datasets, nothing to generate
        logger.warning("eval_rollout called without slime's arguments: nothing to evaluate")
        return RolloutFnEvalOutput(data={"arena": {"rewards": [], "truncated": [], "samples": []}}, metrics={})
    eval_args = copy.copy(args)
    eval_args.group_rm = False
    eval_args.custom_rm_path = EVAL_RM_PATH
    return generate_rollout(eval_args, rollout_id, data_source, evaluation=True)


def rollout(args: Any, rollout_id: int, data_source: Any, evaluation: bool = False) -> Any:
    """slime's ``generate_rollout`` for training, the training step ``rollout_id`` recorded first for the group
    reward model; :func:`eval_rollout` for evaluation."""
    if evaluation:
        return eval_rollout(args, rollout_id, data_source, evaluation=True)
    from slime.rollout.sglang_rollout import generate_rollout

    record_step(rollout_id)
    return generate_rollout(args, rollout_id, data_source, evaluation=False)


def _greedy(sampling_params: dict[str, Any]) -> dict[str, Any]:
    return {**sampling_params, "temperature": 0.0, "top_p": 1.0, "top_k": -1}


async def generate(args: Any, sample: Any, sampling_params: dict[str, Any], evaluation: bool = False) -> Any:
    """The wrapped generate function, with the first rollout of every training group sampled greedily."""
    from slime.utils.misc import load_function

    cfg = arena_config(args, required=False)
    inner_path = cfg.generate_function_path if cfg else None
    inner = load_function(inner_path or "slime.rollout.sglang_rollout.generate")
    n = int(getattr(args, "n_samples_per_prompt", 1) or 1)
    index = getattr(sample, "index", None)
    greedy_anchor = cfg is None or cfg.anchor == "greedy"
    anchor = greedy_anchor and not evaluation and n > 1 and index is not None and index % n == 0
    params = _greedy(sampling_params) if anchor else sampling_params
    if "evaluation" in inspect.signature(inner).parameters:
        result = await inner(args, sample, params, evaluation=evaluation)
    else:
        result = await inner(args, sample, params)
    for produced in result if isinstance(result, list) else [result]:
        if getattr(produced, "metadata", None) is None:
            produced.metadata = {}
        produced.metadata["arena_anchor"] = anchor
    return result


def log_rollout(
    rollout_id: int, args: Any, samples: list[Any], rollout_extra_metrics: dict[str, Any] | None, rollout_time: float
) -> bool:
    """Add the batch's ``arena/*`` metrics to ``rollout_extra_metrics``; returns False so slime logs as usual."""
    rollouts: dict[tuple[Any, Any], MemberOutcome] = {}  # the samples of a fan-out rollout count once
    for position, sample in enumerate(samples):
        metadata = getattr(sample, "metadata", None) or {}
        if METADATA_KEY in metadata:
            rollouts.setdefault(group_and_rollout(sample, position), MemberOutcome.from_dict(metadata[METADATA_KEY]))
    answers: list[tuple[str, Any]] = [(str(group), outcome) for (group, _), outcome in rollouts.items()]
    answers += HELDOUT_TALLIES.take(upto=rollout_id)  # the held-out judge's, finished by now (hack/heldout_*)
    if answers and rollout_extra_metrics is not None:
        cfg = arena_config(args, required=False)
        options = cfg.judge_alarm if cfg is not None else JudgeAlarmConfig()
        hack_options = cfg.hack_alarm if cfg is not None else HackAlarmConfig()
        alarm = _judge_alarms.setdefault(options, JudgeAlarm(options))
        hack_alarm = _hack_alarms.setdefault(hack_options.model_dump_json(), hack_options.alarm())
        rollout_extra_metrics.update(alarm.observe(hack_alarm.observe(summarize(answers))))
    if args is not None:
        args.logged_rollout_id = rollout_id  # what slime's hook contract expects a log hook to record
    return False
