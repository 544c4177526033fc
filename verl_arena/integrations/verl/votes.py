# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Which rows do not vote: the channel from the ``arena`` reward manager to the ``tournament`` estimator.

A rollout that was not ranked with its group (it arrived late, was turned away, its environment failed for everyone,
or the coordinator never answered) must get advantage 0 and stay out of its group's statistics. verl 0.9 calls an
advantage estimator with the rows' rewards, response masks and uids only (``compute_advantage``: only GDPO gets more),
in the trainer's process, while the reward manager runs in verl's reward-loop workers. So the manager writes a record
for every row that does not vote into Ray's key-value store (the GCS, which every process of the job reaches), under
the job's id, before it answers the row; the estimator takes the records of its batch's uids.

The estimator finds the row by its uid and its reward. The coordinator answers a member that does not vote with a
stand-in reward no ranked member of its group has, even in single precision
(:func:`~verl_arena.outcomes.members.stand_in_reward`), so within a uid the value picks out exactly the rows the records
name. The only answers given without knowing the group (a coordinator that did not answer in time, a member turned
away) carry 0; should a ranked member also have 0, the rows cannot be told apart, and the estimator gives the whole
group advantage 0 (counted in ``arena/ambiguous_groups``) rather than credit the wrong row.

The manager opens the job's channel when it first ranks a row. An estimator that finds it closed (the estimator used
without the arena reward manager, or outside Ray) lets every row with trained tokens vote, and says so once.

Records: ``votes/<job id>/<uid>/<member>`` -> ``{"reward", "rows", "why"}`` in Ray's namespace ``verl_arena``, and the
mark ``votes/<job id>/open``. The estimator deletes the records it reads; the key-value janitor deletes what is left
(groups verl dropped before training on them) when the job ends.
"""

from __future__ import annotations

import functools
import json
import logging
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["ESTIMATOR_METRICS", "LeftOut", "VoteLedger", "count", "job_ledger", "take_left_out", "take_metrics"]

logger = logging.getLogger(__name__)

#: the ``tournament`` estimator's metrics in each training step, and what each one counts
ESTIMATOR_METRICS = {
    "arena/left_out_rows": "rows the tournament estimator left out of their group's statistics (advantage 0): rows "
    "the arena says do not vote, rows without a trained token (response_mask all 0), and the rows of ambiguous groups",
    "arena/ambiguous_groups": "groups given advantage 0 because a ranked member had the reward of a row that does not "
    "vote (only answers given without the group, reward 0, can collide)",
}

_OPEN = "open"
_counts: Counter[str] = Counter()


@dataclass(frozen=True)
class LeftOut:
    """A member that does not vote: the reward it was answered with, its rows (a trajectory of several outputs has
    several), and why (``late``, ``overflow``, ``env_error``, ``timeout``)."""

    reward: float
    rows: int = 1
    why: str = ""


class VoteLedger:
    """One Ray job's records (see the module docstring).

    Args:
        job_id: the Ray job (hex id) of the trainer and its reward workers.
    """

    def __init__(self, job_id: str) -> None:
        from verl_arena.runtime.actors import RayKVStore  # Ray, only where the ledger is used

        self.store = RayKVStore(f"votes/{job_id}", job_id=job_id)

    async def open(self) -> None:
        """Mark the job's channel open: the estimator then reads the records."""
        await self.store.put(_OPEN, b"1")

    async def leave_out(self, uid: str, member: str, left_out: LeftOut) -> None:
        """Record that ``member`` of group ``uid`` does not vote."""
        value = json.dumps({"reward": left_out.reward, "rows": left_out.rows, "why": left_out.why})
        await self.store.put(f"{uid}/{member}", value.encode())

    def is_open(self) -> bool:
        """Whether a reward manager opened the channel (blocking)."""
        return self.store.has(_OPEN)

    def take(self, uids: Collection[str]) -> dict[str, list[LeftOut]]:
        """The records of the groups ``uids``, by uid, deleted as they are read (blocking)."""
        wanted = set(uids)
        taken = self.store.take(lambda key: key.rpartition("/")[0] in wanted)
        found: dict[str, list[LeftOut]] = {}
        for key, value in taken.items():
            found.setdefault(key.rpartition("/")[0], []).append(LeftOut(**json.loads(value)))
        return found


def job_ledger() -> VoteLedger | None:
    """The ledger of this process's Ray job; ``None`` outside Ray."""
    import ray

    if not ray.is_initialized():
        return None
    return VoteLedger(ray.get_runtime_context().get_job_id())


def take_left_out(uids: Collection[str]) -> dict[str, list[LeftOut]] | None:
    """The records of the groups ``uids`` (deleted as they are read); ``None`` when no reward manager of this job
    opened the channel (every row votes then, which is said once)."""
    ledger = job_ledger()
    if ledger is None or not ledger.is_open():
        _warn_closed("outside Ray" if ledger is None else "the arena reward manager did not open it in this Ray job")
        return None
    return ledger.take(uids)


@functools.cache
def _warn_closed(why: str) -> None:
    logger.warning(
        "tournament estimator: no channel from the arena reward manager (%s), so every row with trained tokens votes; "
        "rows the arena left out of their groups (late, turned away, environment down) count with their stand-in "
        "rewards. Use reward.reward_manager.name=arena for the arena to say which rows do not vote",
        why,
    )


def count(name: str, value: float) -> None:
    """Add to a metric of the estimator (``arena/left_out_rows``, ...), logged with the next training step."""
    _counts[name] += value


def take_metrics() -> dict[str, float]:
    """The estimator's metrics since the last call (what :mod:`~verl_arena.integrations.verl.step_logging` adds to
    a training step's metrics), forgotten."""
    metrics = {k: float(v) for k, v in _counts.items()}
    _counts.clear()
    return metrics
