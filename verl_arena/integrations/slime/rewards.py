# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tournament rewards for slime: the group reward model, the reward post-process and the evaluation reward.

- :func:`group_rm` (``--group-rm --custom-rm-path verl_arena.slime.group_rm``): slime awaits it once per finished
  group of rollouts, on the rollout manager's event loop. It ranks the group with one tournament through the judge
  runtime of this process (one judge budget for the job: slime judges every group in its rollout manager) and returns
  one reward per rollout; each rollout's outcome (rank, points, judge calls, tokens, degraded, voided, order
  disagreement, forfeit, the hack detectors' screening, whose regular expressions run in a thread, not on slime's
  event loop) goes to ``sample.metadata["arena"]``. The group goes through the same group stages as under verl
  (:func:`group_stages`): a rollout a hack detector set to screen flags (``arena_hack_alarm.screen``) is not shown to
  the judge and ranks below every unflagged rollout of its group, tied with the other flagged ones, and votes
  (:mod:`~verl_arena.outcomes.hack_screen`); episodes' outcomes combine with the ranking (``arena_env_reward``); the
  judgment log gets the whole group with its step; with ``arena_heldout_judge``, a sample of the verdicts is asked
  again in the background. With ``arena_step_budget``, each group draws on its rollout step's budget (the step
  :func:`~verl_arena.integrations.slime.rollout.rollout` recorded). Judge trouble never raises into slime: a
  group that cannot be ranked in time is voided (equal rewards, counted). Samples of one group that carry different
  prompts are ranked per prompt (slime only groups samples of one prompt; a prompt alone in its group gets reward 0).
  With topology ``anchor_set`` and ``source: marked``, the prompt's anchors come from the data:
  ``sample.metadata[anchors_key]`` (the same on every sample of the prompt; :mod:`~verl_arena.runtime.data_anchors`);
  the group is ranked against them and only its rollouts get rewards.
  A fan-out rollout (a list of samples) is judged by its last sample; every sample of it gets the rollout's reward
  in place and the function returns ``[]``, because slime writes a group's rewards back with a plain ``zip`` that a
  fan-out group would break.
- :func:`reward_post_process` (``--custom-reward-post-process-path``): advantages per slime group (``group_index``),
  over its rollouts (``rollout_id`` ties fan-out siblings together), instead of slime's reshape by
  ``n_samples_per_prompt``, which silently makes one group of an uneven batch. Voided groups and groups of one get 0.
  Only rollouts that vote make a group's statistics: a rollout the arena left out of its group's ranking
  (``metadata["arena"]["votes"]`` false) or whose every sample slime removes from the loss (``remove_sample``) gets
  advantage 0, and its siblings get exactly what they would get without it (slime's own normalisation would keep it
  in the mean and the std); a group with fewer than two voting rollouts gets 0.
- :func:`eval_rm`: one evaluation sample judged against its reference (``sample.label``, or ``metadata[reference_key]``)
  in both orders: 1 for a win, 0.5 for a tie, 0 for a loss, so slime's eval reward is a win rate.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from verl_arena.core.errors import JudgeError
from verl_arena.core.rewards import group_advantages
from verl_arena.core.tournament import EPSILON, Tournament, takes_marked_anchors
from verl_arena.core.types import Candidate, GroupResult, PairVerdict
from verl_arena.integrations.slime.config import SlimeArenaConfig, arena_config
from verl_arena.integrations.slime.hosted import hosted_judge
from verl_arena.integrations.slime.samples import anchors_of, candidate_of, query_of, reference_of, trajectory_of
from verl_arena.integrations.slime.steps import rollout_step
from verl_arena.integrations.slime.verifiable import SampleScorer
from verl_arena.judges.competence import require_competence
from verl_arena.outcomes.group_filter import GroupFilter
from verl_arena.outcomes.hack_detectors import MemberFeatures, member_features
from verl_arena.outcomes.members import Answers, GroupSummary, MemberOutcome, zero_answers
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.outcomes.verifiable import VERIFIABLE_META
from verl_arena.runtime.data_anchors import check_data_anchors
from verl_arena.runtime.rendezvous import group_seed
from verl_arena.runtime.service import JudgeService
from verl_arena.runtime.stages import GroupRecord, Pipeline, StageContext

__all__ = [
    "GROUP_KEY",
    "METADATA_KEY",
    "eval_rm",
    "group_and_rollout",
    "group_rm",
    "group_stages",
    "reward_post_process",
]

logger = logging.getLogger(__name__)

#: where each sample's outcome goes in ``sample.metadata``
METADATA_KEY = "arena"
#: the id of the tournament that ranked the sample (``group-<group_index>``, or per prompt in a mixed group)
GROUP_KEY = "arena_group"
_services: dict[str, JudgeService] = {}
_filters: dict[tuple[str, float], GroupFilter] = {}
_pipelines: dict[str, Pipeline] = {}
_scorers: dict[str, SampleScorer] = {}


class _SharedStepMetrics(StepMetrics):
    """Step metrics written on slime's rollout loop and read by its log hook, which may run in another thread."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def add(self, step: int | None, group_id: str, outcome: Any) -> None:
        with self._lock:
            super().add(step, group_id, outcome)

    def take(self, upto: int | None = None) -> list[tuple[str, Any]]:
        with self._lock:
            return super().take(upto)


#: the held-out judge's tallies of this process, by step, until the log hook takes them
HELDOUT_TALLIES = _SharedStepMetrics()


def judge_service(cfg: SlimeArenaConfig, args: Any) -> JudgeService:
    """This process's judge service for ``cfg``'s judge and step budget (one per distinct pair), with the judges slime
    hosts (``hosted: slime:NAME``) resolved from slime's arguments ``args``. Its first call asks each endpoint the
    tiny comparison (:func:`~verl_arena.judges.competence.require_competence`): a judge that gives no verdict raises
    ``ConfigError`` naming what came back, as the trainer's start does under verl."""
    judge = hosted_judge(cfg.judge, args)
    budget = cfg.step_budget
    key = judge.model_dump_json() + (budget.model_dump_json() if budget is not None else "")
    if key not in _services:
        for check in require_competence(judge):  # a judge that gives no verdict stops the job at its first group
            if check.checked and check.cause:  # a failed request is left to the run's retries and alarms
                logger.warning("the judge at %s", check.describe())
        _services[key] = JudgeService(judge, deadline_s=cfg.judge_deadline_s, step_budget=budget)
    return _services[key]


def group_stages(cfg: SlimeArenaConfig) -> Pipeline:
    """This process's group stages for ``cfg`` (:mod:`~verl_arena.runtime.stages`: the environment outcomes, the hack
    screen, the judgment log, the held-out judge), one pipeline per distinct options, as verl's rendezvous runs them;
    the held-out judge's tallies go to :data:`HELDOUT_TALLIES`, which
    :func:`~verl_arena.integrations.slime.rollout.log_rollout` logs."""
    key = cfg.model_dump_json()
    if key not in _pipelines:
        _pipelines[key] = Pipeline.build(cfg, StageContext(HELDOUT_TALLIES))
    return _pipelines[key]


def _samples_of(rollout: Any) -> list[Any]:
    return list(rollout) if isinstance(rollout, list) else [rollout]


def _group_key(trajectories: list[Any], query: str, mixed: bool) -> str:
    """``group-<group_index>``; in a group holding several prompts, each prompt's part gets its own id."""
    indices = {getattr(s, "group_index", None) for s in trajectories}
    digest = hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    if len(indices) == 1 and None not in indices:
        return f"group-{indices.pop()}" + (f"-prompt-{digest}" if mixed else "")
    return f"prompt-{digest}"


async def _rank(
    cfg: SlimeArenaConfig, args: Any, query: str, trajectories: list[Any], mixed: bool
) -> tuple[str, list[MemberOutcome]]:
    """The group id and the outcomes of one prompt's rollouts (``mixed``: the slime group holds other prompts too),
    ranked through the group stages as the coordinator ranks a group for verl: a rollout a hack detector set to screen
    flags (``arena_hack_alarm.screen``) is not shown to the judge and ranks below the others (``screened`` naming the
    detector), one whose environment failed for everyone is left out and does not vote."""
    key = _group_key(trajectories, query, mixed)
    if len(trajectories) < 2:
        return key, [MemberOutcome(0.0, GroupSummary(size=1, expected=1))] * len(trajectories)
    step = rollout_step("step_budget", args) if cfg.step_budget is not None else rollout_step()
    members = [candidate_of(s, str(i), cfg) for i, s in enumerate(trajectories)]
    # what the hack detectors read of each rollout, and its verifiable score, measured in a thread (not on slime's
    # loop)
    features = await asyncio.to_thread(_measured, cfg, trajectories, members, query)
    record = GroupRecord(
        key,
        query,
        {c.id: c for c in members},
        step=step,
        expected=len(trajectories),
        features={c.id: f for c, f in zip(members, features, strict=True)},
    )
    stages = group_stages(cfg)
    stages.before_rank(record)
    if len(record.voting) < 2:
        answers = zero_answers(list(record.members), record.expected)
    else:
        answers = await _ranked(cfg, args, record, trajectories, stages)
    answers = stages.answered(record, answers)
    stages.finished(record)  # the held-out judge's work, in the background: it never holds up the rollout
    return key, [answers.members.get(c.id, answers.late) for c in members]


async def _ranked(
    cfg: SlimeArenaConfig, args: Any, record: GroupRecord, trajectories: list[Any], stages: Pipeline
) -> Answers:
    """The answers of a group with at least two members to rank: the judge ranks the members no stage took out (the
    judge ranks nothing with fewer than two), against a reference and the data's anchors where they apply, unless a
    stage ranks the group (verifiable scores)."""
    key, ranked = record.group_id, record.ranked
    if cfg.anchor == "greedy":  # the rollout slime sampled as the anchor (verl_arena.slime.generate marks it)
        record.marked = [m for m in record.members if _metadata(trajectories[int(m)]).get("arena_anchor")]
    elif cfg.anchor == "reference" and (reference := reference_of(trajectories[0], cfg)) is not None:
        record.reference = Candidate("__reference__", reference)
    record.data_anchors = tuple(_data_anchors(cfg, trajectories, key))  # after the members: never rewarded
    record.candidates, record.anchor = record.what_ranks(ranked)
    record.tournament = cfg.built_tournament().for_group(seed=group_seed(key), anchor=record.anchor)
    if len(ranked) >= 2:
        record.result = await stages.rank(record, _SlimeJudge(cfg, args, record))
        record.judged = (list(record.candidates), record.result)
    await stages.after_rank(record)
    filter_key = (cfg.drop_groups, cfg.drop_max_share)
    if filter_key not in _filters:
        _filters[filter_key] = cfg.group_filter()
    return record.answers(_filters[filter_key], cfg.hack_alarm)


@dataclasses.dataclass
class _SlimeJudge:
    """The judge of one slime group, for a stage that owns its ranking (a
    :class:`~verl_arena.runtime.stages.SubsetJudge`)."""

    cfg: SlimeArenaConfig
    args: Any
    record: GroupRecord

    @property
    def tournament(self) -> Tournament:
        return self.cfg.built_tournament()

    async def __call__(self, members: Sequence[str]) -> GroupResult:
        record = self.record
        candidates, anchor = record.what_ranks(members)
        tournament = self.tournament.for_group(seed=group_seed(record.group_id), anchor=anchor)
        service = judge_service(self.cfg, self.args)
        return await service.rank_group(
            record.query, candidates, tournament, group_id=record.group_id, step=record.step
        )


def _data_anchors(cfg: SlimeArenaConfig, trajectories: list[Any], key: str) -> list[Candidate]:
    """The prompt's anchors in the samples' metadata, read only for a tournament that judges against marked
    anchors; a count it cannot use, or samples that disagree, fail naming the field and the group."""
    tournament = cfg.built_tournament()
    if not takes_marked_anchors(tournament):
        return []
    anchors = anchors_of(trajectories, cfg, key)
    check_data_anchors(tournament, anchors, f"sample.metadata[{cfg.anchors_key!r}]", key)
    return anchors


def _metadata(sample: Any) -> dict[str, Any]:
    return getattr(sample, "metadata", None) or {}


def _measured(
    cfg: SlimeArenaConfig, trajectories: list[Any], candidates: list[Candidate], query: str
) -> list[MemberFeatures]:
    """Each candidate's hack-detector features; with ``verifiable``, its score goes to its ``meta["verifiable"]``."""
    if cfg.verifiable is not None:
        if cfg.verifiable.score not in _scorers:
            _scorers[cfg.verifiable.score] = SampleScorer(cfg.verifiable)
        scorer = _scorers[cfg.verifiable.score]
        for candidate, sample in zip(candidates, trajectories, strict=True):
            candidate.meta[VERIFIABLE_META] = scorer.meta(sample)
    return [member_features(c, query) for c in candidates]


async def group_rm(args: Any, samples: list[Any], **kwargs: Any) -> list[float]:
    """Rewards of one finished group (see the module docstring)."""
    cfg = arena_config(args)
    rollouts = list(samples)
    trajectories = [trajectory_of(r) for r in rollouts]
    by_query: dict[str, list[int]] = defaultdict(list)
    for i, sample in enumerate(trajectories):
        by_query[query_of(sample)].append(i)
    if len(by_query) > 1:
        logger.warning("a slime group holds %d different prompts; each is ranked on its own", len(by_query))
    mixed = len(by_query) > 1
    ranked = await asyncio.gather(
        *(_rank(cfg, args, q, [trajectories[i] for i in idx], mixed) for q, idx in by_query.items())
    )
    outcomes: list[tuple[str, MemberOutcome]] = [("", MemberOutcome(0.0))] * len(rollouts)
    for idx, (key, group_outcomes) in zip(by_query.values(), ranked, strict=True):
        for i, outcome in zip(idx, group_outcomes, strict=True):
            outcomes[i] = key, outcome
    fan_out = any(isinstance(r, list) for r in rollouts)
    for rollout, (key, outcome) in zip(rollouts, outcomes, strict=True):
        for sample in _samples_of(rollout):
            if getattr(sample, "metadata", None) is None:
                sample.metadata = {}
            sample.metadata[METADATA_KEY] = outcome.to_dict()
            sample.metadata[GROUP_KEY] = key
            if fan_out:
                sample.reward = outcome.reward
    return [] if fan_out else [o.reward for _, o in outcomes]


def group_and_rollout(sample: Any, position: int) -> tuple[Any, Any]:
    """The tournament a sample of the batch belongs to (its ``arena_group``, else its ``group_index``) and the rollout
    it is part of (``rollout_id``, which fan-out siblings share, else ``index``); ``position`` stands in for either
    when the sample carries neither."""
    group = (getattr(sample, "metadata", None) or {}).get(GROUP_KEY, getattr(sample, "group_index", None))
    rollout = getattr(sample, "rollout_id", None)
    rollout = getattr(sample, "index", None) if rollout is None else rollout
    return ("sample", position) if group is None else group, ("position", position) if rollout is None else rollout


def _reward_value(args: Any, sample: Any) -> float:
    reward = getattr(sample, "reward", None)
    if isinstance(reward, dict):
        reward = reward.get(getattr(args, "reward_key", None))
    return 0.0 if reward is None else float(reward)


def reward_post_process(args: Any, samples: list[Any]) -> tuple[list[float], list[float]]:
    """``(raw_rewards, advantages)`` of a rollout batch, group by group (see the module docstring)."""
    cfg = arena_config(args, required=False)
    normalize = cfg.normalize if cfg else "rank"
    raw = [_reward_value(args, s) for s in samples]
    groups: dict[Any, dict[Any, list[int]]] = defaultdict(lambda: defaultdict(list))
    for position, sample in enumerate(samples):
        group, rollout = group_and_rollout(sample, position)
        groups[group][rollout].append(position)
    advantages = [0.0] * len(samples)
    for rollouts in groups.values():
        members = [m for m in rollouts.values() if _votes([samples[p] for p in m])]
        voided = any(_outcome(samples[m[0]]).get("group", {}).get("voided") for m in members)
        values = [0.0] * len(members) if voided else group_advantages([raw[m[0]] for m in members], normalize, EPSILON)
        for positions, value in zip(members, values, strict=True):
            for p in positions:
                advantages[p] = value
    return raw, advantages


def _outcome(sample: Any) -> dict[str, Any]:
    """The arena outcome ``group_rm`` stored on ``sample`` (``{}`` if none)."""
    return (getattr(sample, "metadata", None) or {}).get(METADATA_KEY) or {}


def _votes(rollout: list[Any]) -> bool:
    """Whether a rollout (its samples) votes: the arena ranked it, and slime trains on at least one of its samples."""
    if any(_outcome(s).get("votes") is False for s in rollout):
        return False
    return not all(getattr(s, "remove_sample", False) for s in rollout)


async def _against_reference(
    cfg: SlimeArenaConfig, args: Any, query: str, candidate: Candidate, reference: Candidate
) -> tuple[float, list[PairVerdict], bool]:
    """1, 0.5 or 0 for a win, tie or loss against the reference, judged in both orders (by the order-swapping judge,
    or here when the judge asks one order)."""
    service = judge_service(cfg, args)
    if cfg.judge.both_orders:
        verdict = await service.compare(query, candidate, reference)
        return {"a": 1.0, "tie": 0.5, "b": 0.0}[verdict.winner], [verdict], "a" in verdict.forfeit
    forward, backward = await asyncio.gather(
        service.compare(query, candidate, reference), service.compare(query, reference, candidate)
    )
    wins = (forward.winner == "a") + (backward.winner == "b")
    losses = (forward.winner == "b") + (backward.winner == "a")
    forfeit = "a" in forward.forfeit or "b" in backward.forfeit
    return (1.0 if wins > losses else 0.0 if losses > wins else 0.5), [forward, backward], forfeit


async def eval_rm(args: Any, sample: Any, **kwargs: Any) -> float:
    """An evaluation sample judged against its reference: 1 win, 0.5 tie, 0 loss (and 0 without a reference)."""
    cfg = arena_config(args)
    reference = reference_of(sample, cfg)
    candidate = candidate_of(sample, "candidate", cfg)
    info: dict[str, Any] = {"judged": False, "reason": ""}
    if reference is None:
        info["reason"] = "no reference"
        score = 0.0
    elif candidate.meta.get("no_answer"):
        info["reason"] = "no answer"
        score = 0.0
    else:
        try:
            score, verdicts, forfeit = await asyncio.wait_for(
                _against_reference(cfg, args, query_of(sample), candidate, Candidate("reference", reference)),
                cfg.judge_deadline_s,
            )
        except (JudgeError, asyncio.TimeoutError) as exc:
            info["reason"] = f"failed: {getattr(exc, 'reason', 'deadline')}"
            score = 0.0
            logger.warning(
                "eval sample %s: the judgment against the reference failed (%s); scored as a loss",
                getattr(sample, "index", "?"),
                info["reason"],
            )
        else:
            usage: dict[str, float] = defaultdict(float)
            for verdict in verdicts:
                for name, value in verdict.usage.items():
                    if isinstance(value, int | float):
                        usage[name] += value
            info.update(judged=True, forfeit=forfeit, usage=dict(usage))
    if getattr(sample, "metadata", None) is None:
        sample.metadata = {}
    sample.metadata["arena_eval"] = {"score": score, **info}
    return score
