# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The options users set on the verl command line, validated at start-up.

Reward manager options live under ``+reward.reward_kwargs.*`` (verl's ``reward`` node has no ``reward_kwargs`` key,
hence the ``+``); advantage-estimator options under ``+algorithm.tournament.*``. Errors name the full key.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any, Literal

from omegaconf import DictConfig, OmegaConf
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.core.errors import ConfigError, did_you_mean
from verl_arena.environments.client import EnvConfig
from verl_arena.runtime.batching import SUBMIT_WAIT_S
from verl_arena.runtime.options import ArenaOptions, CoordinatorOptions
from verl_arena.validation import refuse_removed, removed_options, validate

__all__ = [
    "ArenaRewardConfig",
    "HorizonSchedule",
    "TournamentAdvantageConfig",
    "arena_config",
    "check_algorithm",
    "estimator_config",
    "hydra_value",
    "judge_overrides",
    "loop_config",
    "refuse_kl_in_reward",
]

logger = logging.getLogger(__name__)

REWARD_PREFIX = "reward.reward_kwargs"
#: resources every Ray node has, which do not place an actor on a chosen node
_RAY_BUILTIN_RESOURCES = {"CPU", "GPU", "memory", "object_store_memory"}
ESTIMATOR_PREFIX = "algorithm.tournament"
#: the session of each training prompt the ``arena_*_agent`` loops sample greedily, its anchor (``anchor=greedy``)
ANCHOR_SESSION = 0

_REMOVED = removed_options(
    "",
    {
        "submit_wait_s": f"a rollout waits {SUBMIT_WAIT_S * 1000:g} ms on its worker for others to share its call; "
        "remove it",
        "anchor_session": f"the greedy anchor is session {ANCHOR_SESSION} of every prompt; remove it",
        "group_size": "the members a group waits for are expected_members now (tournament.group_size is the "
        "listwise and multi_round topologies' own): use +reward.reward_kwargs.expected_members",
    },
)


class HorizonSchedule(BaseModel):
    """ScalingInter-RL's curriculum (AgentGym-RL): the interaction-turn limit grows in phases as training goes on.

    Args:
        turns: the limit of each phase, strictly increasing (e.g. ``[8, 12, 15]``).
        steps_per_phase: training steps each phase lasts (K); the last phase lasts to the end.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    turns: list[int] = Field(min_length=1)
    steps_per_phase: int = Field(ge=1)

    @model_validator(mode="after")
    def _increasing(self) -> HorizonSchedule:
        if self.turns[0] < 1 or any(b <= a for a, b in zip(self.turns, self.turns[1:], strict=False)):
            raise ValueError(f"turns must be positive and strictly increasing, got {self.turns}")
        return self

    def at(self, step: int | None) -> int:
        """The limit at training ``step`` (1-based, as verl counts); ``None`` (validation) gets the final one."""
        if step is None:
            return self.turns[-1]
        phase = max(0, int(step) - 1) // self.steps_per_phase
        return self.turns[min(phase, len(self.turns) - 1)]


class ArenaRewardConfig(ArenaOptions, CoordinatorOptions):
    """``+reward.reward_kwargs.*`` of the ``arena`` reward manager: the options every adapter takes
    (:class:`ArenaOptions`), the group coordinator's (:class:`CoordinatorOptions`), and verl's own.

    Args:
        expected_members: the members a group waits for; default ``actor_rollout_ref.rollout.n``.
        validation: reward of validation samples: ``"reference"`` (a judged comparison with the reference answer:
            1 win, 0.5 tie, 0 loss) or ``"none"`` (0).
        validation_splits: values of ``extra_info[split_key]`` that mark validation samples.
        split_key: the ``extra_info`` key holding the split.
        reference_key: the ``extra_info`` key holding a reference answer (text or chat messages); falls back to a
            string ``reward_model.ground_truth``.
        judge_shards: actors in the judge pool.
        judge_resources: Ray custom resources each judge pool actor asks for, to pin the pool to the nodes started
            with them (``ray start --resources '{"arena_judge": 1}'`` and ``{arena_judge: 0.01}`` here); by
            default the pool asks for nothing, and Ray may place it on any node.
        coordinator_resources: the same for the group coordinator's actors.
        coordinator_shards: group coordinator actors; groups are spread over them by a stable hash of their ``uid``
            (answers do not change). More than one only when one coordinator's event loop cannot keep up with the
            step's rollouts (see the sizing guide in docs/training-verl.md).
        name: prefix of the Ray actor names (the job id is appended).
        step_metrics: add the ``arena/*`` aggregates of each training step to verl's logged metrics.
        horizon: the arena agent loops' interaction-turn curriculum (see :class:`HorizonSchedule`).
        env: the environment server ``arena_env_agent`` plays episodes on (see
            :class:`~verl_arena.environments.client.EnvConfig`).
    """

    expected_members: int | None = Field(default=None, ge=2)
    validation: Literal["reference", "none"] = "reference"
    validation_splits: list[str] = Field(default_factory=lambda: ["test", "val", "validation", "eval"])
    split_key: str = "split"
    reference_key: str = "reference"
    judge_shards: int = Field(default=1, ge=1)
    judge_resources: dict[str, float] = Field(default_factory=dict)
    coordinator_resources: dict[str, float] = Field(default_factory=dict)
    coordinator_shards: int = Field(default=1, ge=1)
    name: str = "verl_arena"
    step_metrics: bool = True
    horizon: HorizonSchedule | None = None
    env: EnvConfig | None = None

    @field_validator("judge_resources", "coordinator_resources")
    @classmethod
    def _custom_resources(cls, resources: dict[str, float]) -> dict[str, float]:
        builtin = sorted(set(resources) & _RAY_BUILTIN_RESOURCES)
        if builtin:
            raise ValueError(f"{builtin} are Ray's own resources, not custom ones: name the resource a node was given")
        if any(amount <= 0 for amount in resources.values()):
            raise ValueError(f"each amount must be positive (a share of what a node has), got {resources}")
        return resources

    def is_validation(self, extra_info: Any) -> bool:
        """Whether a row with this ``extra_info`` is a validation sample (its ``split_key`` in
        ``validation_splits``)."""
        split = extra_info.get(self.split_key) if hasattr(extra_info, "get") else None
        return split is not None and str(split) in self.validation_splits

    def coordinator_options(self) -> CoordinatorOptions:
        """The group coordinator's options, as validated here, ``eager`` resolved: ``auto`` is off under a step
        budget (the budget chooses a group's topology once the group is complete)."""
        options = CoordinatorOptions.of(self)
        if self.step_budget is not None and options.eager == "auto":
            options = options.model_copy(update={"eager": False})
        return options

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

    @model_validator(mode="after")
    def _eager_under_a_budget(self) -> ArenaRewardConfig:
        if self.eager is True and self.step_budget is not None:
            raise ValueError(
                "eager: true cannot work with step_budget: the budget chooses a group's topology only once the group "
                "is complete; leave eager unset (auto) or set it to false"
            )
        return self


class TournamentAdvantageConfig(BaseModel):
    """``+algorithm.tournament.*`` of the ``tournament`` advantage estimator.

    Args:
        normalize: ``"rank"`` (ranks of the rewards -> quantile rewards -> standardised, ArenaRL eq. 6-7) or
            ``"grpo"`` (standardise the rewards themselves, e.g. Tournament-GRPO's min-max rewards, eq. 10).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    normalize: Literal["rank", "grpo"] = "rank"


def _plain(node: Any) -> Any:
    if isinstance(node, DictConfig):
        return OmegaConf.to_container(node, resolve=True)
    return node


#: the options validated in this process, by the reward manager's options as given (see :func:`arena_config`)
_validated: dict[str, ArenaRewardConfig] = {}


def arena_config(config: Mapping[str, Any] | DictConfig) -> ArenaRewardConfig:
    """``config.reward.reward_kwargs`` of the trainer config, validated: the one object every part of the arena in
    this process reads (the reward manager, the agent loops, the start-up check). Validated once per process (per
    distinct options); ``ConfigError`` naming the key."""
    reward = config.get("reward") or {}
    kwargs = _plain(reward.get("reward_kwargs")) if hasattr(reward, "get") else None
    if not kwargs:
        raise ConfigError(
            "the arena needs +reward.reward_kwargs.judge (at least judge.endpoints), the arena reward manager's "
            "options, which its agent loops read too; see docs/training-verl.md"
        )
    key = json.dumps(kwargs, sort_keys=True, default=str)
    if key not in _validated:
        _validated[key] = validate(ArenaRewardConfig, kwargs, REWARD_PREFIX, "verl-arena options")
    return _validated[key]


def loop_config(config: Mapping[str, Any] | DictConfig) -> ArenaRewardConfig:
    """The options the arena's agent loops read: :func:`arena_config` with the ``arena`` reward manager; beside
    another reward manager (a baseline run with a rule reward, such as ``verl-arena bench step``'s), which has no judge
    to validate, the arena's defaults: a greedy session 0, no horizon curriculum, no environment."""
    reward = config.get("reward") or {}
    manager = reward.get("reward_manager") if hasattr(reward, "get") else None
    name = manager.get("name") if hasattr(manager, "get") else manager
    if name != "arena":
        return ArenaRewardConfig.model_construct()
    return arena_config(config)


def estimator_config(config: Mapping[str, Any] | DictConfig | None) -> TournamentAdvantageConfig:
    """Validate ``algorithm.tournament`` (``config`` is the ``algorithm`` node, as verl passes it)."""
    node = config.get("tournament") if config is not None and hasattr(config, "get") else None
    return validate(TournamentAdvantageConfig, _plain(node) or {}, ESTIMATOR_PREFIX, "verl-arena options")


def check_algorithm(algorithm: Mapping[str, Any] | DictConfig | None) -> TournamentAdvantageConfig | None:
    """Validate the trainer's ``algorithm`` node for the ``tournament`` estimator; ``None`` when it is not in use.

    Hydra composes any ``+algorithm.*`` key, so a misspelt ``+algorithm.tournamnet.normalize`` would be ignored in
    silence: with the estimator in use, a key that is neither verl's (``AlgoConfig``) nor ``tournament`` is refused,
    and ``tournament`` options without the estimator are refused too (they would do nothing).
    """
    algorithm = algorithm if algorithm is not None and hasattr(algorithm, "get") else {}
    estimator = algorithm.get("adv_estimator")
    if estimator != "tournament":
        if algorithm.get("tournament") is not None:
            raise ConfigError(
                f"+{ESTIMATOR_PREFIX}.* is set, but algorithm.adv_estimator is {estimator!r}: the options would do "
                f"nothing; set algorithm.adv_estimator=tournament, or drop them"
            )
        return None
    known = [*_verl_algorithm_keys(), "tournament"]
    for key in algorithm:
        if key not in known:
            hint = did_you_mean(key, known) or f"valid keys: {', '.join(known)}"
            raise ConfigError(f"algorithm.{key}: neither verl's option nor the tournament estimator's; {hint}")
    refuse_kl_in_reward(algorithm)
    return estimator_config(algorithm)


def refuse_kl_in_reward(config: Any) -> None:
    """Raise :class:`ConfigError` if ``config`` (verl's ``algorithm`` node) puts a KL penalty in the reward."""
    if config is not None and hasattr(config, "get") and config.get("use_kl_in_reward"):
        raise ConfigError(
            "algorithm.use_kl_in_reward=true does not work with algorithm.adv_estimator=tournament: the penalty "
            "moves every reward by a little, which rank normalisation turns into whole ranks, and rows that do not "
            "vote could no longer be recognised; use actor_rollout_ref.actor.use_kl_loss=true instead"
        )


def verl_directory() -> str | None:
    """The installed verl package's directory (``None`` if verl is not installed), found without importing verl."""
    import importlib.util

    spec = importlib.util.find_spec("verl")  # a top-level package: found, not imported
    return next(iter(spec.submodule_search_locations)) if spec and spec.submodule_search_locations else None


#: where verl defines its ``algorithm`` node's dataclass (``AlgoConfig``) and the base class it takes fields from: a
#: file of verl's package and a class in it
_ALGO_CONFIG_SOURCES = (("base_config.py", "BaseConfig"), ("trainer/config/algorithm.py", "AlgoConfig"))


def _verl_algorithm_keys() -> list[str]:
    """The keys of verl's ``algorithm`` node (the fields of its ``AlgoConfig``): read from verl's source unless verl is
    imported already, since importing it takes seconds and ``verl-arena check`` needs nothing else of verl."""
    import dataclasses
    import sys

    if "verl.trainer.config" not in sys.modules:
        keys = [key for path, name in _ALGO_CONFIG_SOURCES for key in _dataclass_fields_in_source(path, name)]
        if "adv_estimator" in keys:
            return keys
    from verl.trainer.config import AlgoConfig

    return [f.name for f in dataclasses.fields(AlgoConfig)]


def _dataclass_fields_in_source(path: str, name: str) -> list[str]:
    """The annotated class attributes of class ``name`` (ClassVars left out) in the file ``path`` of verl's package,
    read without importing verl; empty if verl, the file or the class is not there."""
    import ast
    import os

    package = verl_directory()
    file = os.path.join(package, path) if package is not None else ""
    if not os.path.isfile(file):
        return []
    with open(file, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)
            ]
    return []


def hydra_value(value: Any) -> str:
    """``value`` written in Hydra's override grammar (strings quoted, mappings and lists in flow style), read back by
    Hydra and OmegaConf as it was: backslashes, quotes and ``${`` included."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {hydra_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return repr(value)
    from hydra.core.override_parser.types import Quote, QuotedString

    return QuotedString(text=_literal(str(value)), quote=Quote.single).with_quotes()


#: ``${`` and the backslashes before it: OmegaConf reads ``${...}`` as an interpolation unless escaped
_INTERPOLATION = re.compile(r"(\\*)\$\{")


def _literal(text: str) -> str:
    """``text`` escaped so that OmegaConf reads every ``${`` in it as text: ``k`` backslashes before a ``${`` become
    ``2k + 1`` (OmegaConf halves an even run and takes the odd one as the escape)."""
    return _INTERPOLATION.sub(lambda m: "\\" * (2 * len(m.group(1)) + 1) + "${", text)


def judge_overrides(judge: Mapping[str, Any]) -> list[str]:
    """The ``+reward.reward_kwargs.judge.*`` overrides of a judge configuration (validated first)."""
    from verl_arena.judges.config import parse_judge_config

    parse_judge_config(judge)  # a bad file fails here, naming the field, not inside the trainer
    return [f"+{REWARD_PREFIX}.judge.{key}={hydra_value(value)}" for key, value in judge.items()]
