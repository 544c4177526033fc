# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``arena`` reward manager for verl's streaming reward loop (``reward.reward_manager.name=arena``).

verl 0.9 scores one trajectory at a time, on whichever reward worker it lands. This manager renders the trajectory
into a candidate, measures what the hack detectors read of it
(:func:`~verl_arena.outcomes.hack_detectors.member_features`: here on the worker, not on the coordinator's event loop)
and hands both to the group coordinator (a named async Ray
actor shared by every worker; with ``coordinator_shards`` above 1, the shard its ``uid`` hashes to,
:mod:`~verl_arena.runtime.sharding`), together with the other rollouts that reach this worker within 5 ms
(:data:`~verl_arena.runtime.batching.SUBMIT_WAIT_S`: one Ray call for all of them); the coordinator waits for the
rest of the group (same ``uid``), runs the tournament through the cluster's judge pool, and returns this member's
reward as soon as its group is ranked. Every answer has the same ``reward_extra_info`` keys. Nothing hangs: the
coordinator closes late groups, and this manager stops waiting after ``arrival_timeout_s + judge_deadline_s + 60``.

With ``verifiable``, each rollout is also scored by a rule here, on the worker
(:mod:`~verl_arena.integrations.verl.verifiable`), and its score rides with the candidate: the coordinator ranks by the
scores first and asks the judge only where they tie (:mod:`~verl_arena.outcomes.verifiable`).

With topology ``anchor_set`` and ``source: marked``, each row's ``extra_info[anchors_key]`` (the prompt's anchors:
answers from the data or a frozen policy, the same on every row of the prompt) rides with the candidate: the
coordinator ranks the group against them and answers only the members (:mod:`~verl_arena.runtime.data_anchors`).

Validation samples (``extra_info[split_key]`` in ``validation_splits``) never wait for a group: they are compared
with the reference answer in the data (1 win, 0.5 tie, 0 loss) or get 0, as ``validation`` says.

A rollout that was not ranked with its group (late, turned away, its environment down for everyone, or no answer from
the coordinator in time) does not vote: before answering it, the manager records it for the ``tournament`` estimator
(:mod:`~verl_arena.integrations.verl.votes`), which gives it advantage 0 outside its group's statistics; its
``arena_votes`` column is 0. A rollout a hack detector screened votes: it is ranked below its group.

The coordinator and the judge pool are created by the first worker that needs them (named after the Ray job, so
runs never share them) and live as long as that worker.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import logging
from typing import Any, ClassVar

import ray
from omegaconf import DictConfig
from ray.exceptions import RayActorError
from verl import DataProto
from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase

from verl_arena.core.errors import JudgeError
from verl_arena.core.judge_counts import judgment_kind
from verl_arena.core.tournament import takes_marked_anchors
from verl_arena.core.types import Candidate
from verl_arena.integrations.verl.columns import columns, zero_info
from verl_arena.integrations.verl.config import ANCHOR_SESSION, ArenaRewardConfig
from verl_arena.integrations.verl.step_logging import coordinator_names
from verl_arena.integrations.verl.trainer_checks import check_trainer_config
from verl_arena.integrations.verl.trajectory import (
    anchors_from_row,
    candidate_from_row,
    query_from_prompt,
    reference_from_row,
    scalar,
)
from verl_arena.integrations.verl.verifiable import VerifiableScorer
from verl_arena.integrations.verl.votes import LeftOut, VoteLedger
from verl_arena.judges.competence import require_competence
from verl_arena.outcomes.env import ENV_META
from verl_arena.outcomes.hack_detectors import member_features
from verl_arena.outcomes.verifiable import VERIFIABLE_META
from verl_arena.runtime.actors import CoordinatorActor, coordinator_stream, named_actor_options
from verl_arena.runtime.batching import SUBMIT_WAIT_S, SubmitBatcher, Unanswered
from verl_arena.runtime.data_anchors import check_data_anchors
from verl_arena.runtime.deadlines import member_patience
from verl_arena.runtime.pool import JudgePool
from verl_arena.runtime.rendezvous import Submission
from verl_arena.runtime.sharding import shard_of

__all__ = ["ArenaRewardManager", "check_trainer_config"]

logger = logging.getLogger(__name__)

#: a sample's reward and its reward_extra_info
_Answer = tuple[float, dict[str, float]]


@functools.cache
def _warn_unmarked_anchor(session: int) -> None:
    """Once per process: ``anchor=greedy`` without the arena agent loops has no greedy rollout to use."""
    logger.warning(
        "anchor=greedy, but session %d was not sampled greedily: the arena_tool_agent / arena_single_turn_agent loops "
        "are not in use. Each group's anchor is its lowest-numbered rollout that arrived, sampled like the others; set "
        "actor_rollout_ref.rollout.agent.default_agent_loop=arena_tool_agent, or anchor=first to say so",
        session,
    )


class ArenaRewardManager(RewardManagerBase):
    """Tournament rewards: one group rendezvous per ``uid`` (see the module docstring)."""

    _coordinators: ClassVar[list[Any]] = []  # the group coordinator's shards (one by default)
    _pool: ClassVar[JudgePool | None] = None
    _arena: ClassVar[ArenaRewardConfig | None] = None
    _group_size: ClassVar[int] = 0
    _ledger: ClassVar[VoteLedger | None] = None
    _ledger_open: ClassVar[bool] = False

    def __init__(
        self,
        config: DictConfig,
        tokenizer: Any,
        compute_score: Any = None,
        reward_router_address: str | None = None,
        reward_model_tokenizer: Any = None,
    ) -> None:
        self._start(config, reward_router_address)  # before init_class, which would start without the router
        super().__init__(config, tokenizer, compute_score)
        assert self._arena is not None
        self.arena, self.group_size = self._arena, self._group_size
        self._rows = itertools.count()
        self._special_tokens = [t for t in getattr(tokenizer, "all_special_tokens", []) if t]
        self._batchers: dict[int, SubmitBatcher] = {}  # by coordinator shard, made on this worker's event loop
        verifiable = self.arena.verifiable
        self._scorer = None if verifiable is None else VerifiableScorer(verifiable, compute_score)

    @classmethod
    def init_class(cls, config: DictConfig, tokenizer: Any) -> None:
        """Attach to (or create) this job's coordinator and judge pool, once per process."""
        cls._start(config, None)

    @classmethod
    def _start(cls, config: DictConfig, router_address: str | None) -> None:
        if cls._class_initialized:
            return
        arena, group_size = check_trainer_config(config, router_address)
        for check in require_competence(arena.judge):  # a judge that gives no verdict stops the job here
            if check.cause:
                logger.warning("the judge at %s", check.describe())
        context = ray.get_runtime_context()
        namespace, job = context.namespace, context.get_job_id()
        cls._pool = JudgePool.start(
            arena.judge,
            name=f"{arena.name}_judge_{job}",
            namespace=namespace,
            shards=arena.judge_shards,
            deadline_s=arena.judge_deadline_s,
            resources=arena.judge_resources,
            step_budget=arena.step_budget,
        )
        tournament, options = arena.built_tournament(), arena.coordinator_options()
        cls._coordinators = [
            CoordinatorActor.options(
                **named_actor_options(name, namespace, resources=arena.coordinator_resources)
            ).remote(cls._pool, tournament, options)
            for name in coordinator_names(arena.name, job, arena.coordinator_shards)
        ]
        cls._arena, cls._group_size = arena, group_size
        algorithm = config.get("algorithm") or {}
        cls._ledger = VoteLedger(job) if algorithm.get("adv_estimator") == "tournament" else None  # its only reader
        cls._class_initialized = True
        logger.info(
            "arena reward manager: %s tournaments of %d, judge %s, coordinator %s, eager judging %s%s",
            arena.topology,
            group_size,
            [f"{e.model} at {e.base_url}" for e in arena.judge.endpoints],
            coordinator_names(arena.name, job, arena.coordinator_shards),
            "on" if options.judges_eagerly else "off",
            f" (eager: {arena.eager})" if arena.eager == "auto" else "",
        )

    # -- one trajectory ---------------------------------------------------------------------------------------------

    async def run_single(self, data: DataProto) -> dict[str, Any]:
        """Render this rollout, meet its group, return its tournament reward."""
        item = data[-1:][0]  # agent loops with several outputs: the last one carries the trajectory
        non_tensor = item.non_tensor_batch
        response_text = await self.loop.run_in_executor(None, self._decode, item)
        session = scalar(non_tensor.get("session_id"))
        member = str(session) if session is not None else f"row{next(self._rows)}"
        arena = self.arena
        candidate = candidate_from_row(
            member,
            non_tensor,
            response_text,
            include_tool_outputs=arena.include_tool_outputs,
            **arena.trajectory_limits,
            special_tokens=self._special_tokens,
        )
        query = query_from_prompt(non_tensor.get("raw_prompt"))
        if self._is_validation(non_tensor):
            reward, info = await self._validation(query, candidate, non_tensor)
        else:
            uid = str(scalar(non_tensor["uid"]))
            await self._open_ledger()
            if self._scorer is not None:  # its verifiable score rides with it to the coordinator
                scored = await self._scorer.meta(response_text, non_tensor)
                candidate = dataclasses.replace(candidate, meta={**candidate.meta, VERIFIABLE_META: scored})
            reward, info = await self._tournament(uid, member, candidate, query, non_tensor)
            if not info["arena_votes"]:
                await self._leave_out(uid, member, LeftOut(reward, rows=len(data), why=_why(info)))
        return {"reward_score": reward, "reward_extra_info": info}

    async def _leave_out(self, uid: str, member: str, left_out: LeftOut) -> None:
        """Tell the ``tournament`` estimator that this row does not vote (before verl gets its reward)."""
        if self._ledger is None:
            return
        try:
            await self._ledger.leave_out(uid, member, left_out)
        except Exception:
            logger.exception(
                "group %s member %s does not vote (%s), but the record for the estimator could not be written: it "
                "counts as a member with its stand-in reward",
                uid,
                member,
                left_out.why,
            )

    async def _open_ledger(self) -> None:
        """Open the job's channel to the ``tournament`` estimator, once per process (it reads records only then)."""
        if self._ledger is None or ArenaRewardManager._ledger_open:
            return
        try:
            await self._ledger.open()
            ArenaRewardManager._ledger_open = True
        except Exception:
            logger.exception("could not open the channel to the tournament estimator: every row will vote")

    def _decode(self, item: Any) -> str:
        responses = item.batch["responses"]
        length = int(item.batch["attention_mask"][-responses.shape[-1] :].sum())
        return self.tokenizer.decode(responses[:length], skip_special_tokens=True)

    def _is_validation(self, non_tensor: Any) -> bool:
        return self.arena.is_validation(scalar(non_tensor.get("extra_info")) or {})

    async def _tournament(self, uid: str, member: str, candidate: Any, query: str, non_tensor: Any) -> _Answer:
        extra = scalar(non_tensor.get("tool_extra_fields")) or {}
        extra = extra if hasattr(extra, "get") else {}
        if "env_success" in extra:  # an arena_env_agent episode: its outcome rides with the candidate
            candidate = dataclasses.replace(candidate, meta={**candidate.meta, ENV_META: env_meta(extra)})
        anchor = self.arena.anchor == "greedy" and bool(extra.get("arena_anchor"))
        step = scalar(non_tensor.get("global_steps"))
        if self.arena.anchor == "greedy" and not anchor and member == str(ANCHOR_SESSION):
            _warn_unmarked_anchor(ANCHOR_SESSION)
        by_reference = self.arena.anchor == "reference"
        reference = reference_from_row(non_tensor, self.arena.reference_key) if by_reference else None
        features = await self.loop.run_in_executor(None, member_features, candidate, query)
        entry = Submission(
            uid,
            member,
            candidate,
            self.group_size,
            query,
            anchor=anchor,
            reference=reference,
            step=None if step is None else int(step),
            horizon=int(extra.get("arena_horizon") or 0),
            features=features,
            anchors=self._data_anchors(uid, non_tensor),
        )
        patience = member_patience(self.arena.arrival_timeout_s, self.arena.judge_deadline_s)
        try:
            outcome = await asyncio.wait_for(self._batcher(uid).submit(entry), patience)
        except (asyncio.TimeoutError, RayActorError, Unanswered) as exc:
            logger.error("group %s member %s: no answer from the coordinator (%s); reward 0", uid, member, exc)
            # a spread of filter values: a group filter never drops a group for the coordinator's silence
            spread = 1.0 + next(self._rows)
            info = zero_info(arena_timeout=1.0, arena_expected=self.group_size, arena_filter=spread, arena_votes=0.0)
            return 0.0, info
        return outcome.reward, columns(outcome)

    def _data_anchors(self, uid: str, non_tensor: Any) -> tuple[Candidate, ...]:
        """The prompt's anchors in the row (``extra_info[anchors_key]``), read only for a tournament that judges
        against marked anchors; a count it cannot use fails here, naming the field and the group."""
        arena, tournament = self.arena, self.arena.built_tournament()
        if not takes_marked_anchors(tournament):
            return ()
        anchors = anchors_from_row(non_tensor, arena.anchors_key, **arena.trajectory_limits)
        check_data_anchors(tournament, anchors, f"extra_info.{arena.anchors_key}", uid)
        return tuple(anchors)

    def _batcher(self, uid: str) -> SubmitBatcher:
        """The batcher of the coordinator shard that owns ``uid``."""
        shard = shard_of(uid, len(self._coordinators))
        if shard not in self._batchers:
            send = coordinator_stream(self._coordinators[shard])
            self._batchers[shard] = SubmitBatcher(send, wait_s=SUBMIT_WAIT_S)
        return self._batchers[shard]

    async def _validation(self, query: str, candidate: Any, non_tensor: Any) -> _Answer:
        reference = reference_from_row(non_tensor, self.arena.reference_key)
        info = dict(arena_validation=1.0, arena_group_size=1.0, arena_expected=1.0)
        if self.arena.validation == "none" or reference is None:
            return 0.0, zero_info(**info)
        if candidate.meta.get("no_answer"):
            return 0.0, zero_info(**info, arena_no_answer=1.0)
        assert self._pool is not None
        judge = self._pool.judge(str(scalar(non_tensor.get("uid", ""))))
        try:
            verdict = await asyncio.wait_for(judge.compare(query, candidate, reference), self.arena.judge_deadline_s)
        except (JudgeError, asyncio.TimeoutError, RayActorError) as exc:
            reason = getattr(exc, "reason", type(exc).__name__)
            logger.warning("validation comparison with the reference failed (%s); reward 0", reason)
            return 0.0, zero_info(**info, arena_failed_judgments=1.0, arena_degraded=1.0)
        reward = {"a": 1.0, "tie": 0.5, "b": 0.0}[verdict.winner]
        usage = verdict.usage or {}
        return reward, zero_info(
            **info,
            arena_judgments=1.0,
            arena_judge_requests=float(usage.get("requests", 0)),
            arena_cache_hits=float(judgment_kind(usage) == "cache_hit"),
            arena_points=reward,
            arena_prompt_tokens=float(usage.get("prompt_tokens", 0)),
            arena_completion_tokens=float(usage.get("completion_tokens", 0)),
            arena_order_disagreement=float(bool(verdict.meta.get("orders_disagree"))),
            arena_forfeit=float(bool(verdict.forfeit) and "a" in verdict.forfeit),
        )


def env_meta(extra: Any) -> dict[str, Any]:
    """An episode's outcome from the extra fields ``arena_env_agent`` recorded."""
    return {
        "reward": float(extra.get("env_reward") or 0.0),
        "success": bool(extra.get("env_success")),
        "turns": int(extra.get("env_turns") or 0),
        "error": str(extra.get("env_error") or ""),
        "crash": str(extra.get("env_crash") or ""),
        "cause": str(extra.get("env_cause") or ""),
        "recovered": int(extra.get("env_recovered") or 0),
        "replays": int(extra.get("env_replays") or 0),
    }


def _why(info: dict[str, float]) -> str:
    """Why a member does not vote, from its answer's columns."""
    for why in ("timeout", "overflow", "late", "env_error"):
        if info.get(f"arena_{why}"):
            return why
    return "left_out"
