# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``docs/configuration.md``, written from the code itself: every option of the configuration models (name, type,
default, the description in the model's docstring) and every metric key with what it means. A test compares the
committed file with what this module writes, so the reference cannot drift from the code."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

__all__ = ["configuration_markdown", "docstring_args"]

_ENTRY = re.compile(r"^ {4}(\S[^:]*?):\s(.*)$")


def docstring_args(obj: Any) -> dict[str, str]:
    """``name -> description`` from the ``Args:`` block of ``obj``'s docstring; an entry may name several fields
    (``a / b:`` or ``a, b, c:``) and continue on more-indented lines."""
    doc = (obj.__doc__ or "").expandtabs()
    if "Args:" not in doc:
        return {}
    block = doc.split("Args:", 1)[1]
    lines = [line for line in block.splitlines()]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    out: dict[str, str] = {}
    names: list[str] = []
    for line in lines:
        text = line[indent:] if len(line) >= indent else line.strip()
        entry = _ENTRY.match("    " + text) if text and not text.startswith(" ") else None
        if entry:
            names = [n.strip() for n in re.split(r"[,/]", entry.group(1)) if n.strip()]
            for name in names:
                out[name] = entry.group(2).strip()
        elif text.strip() and names:
            for name in names:
                out[name] += " " + text.strip()
    return {k: _markdown(v) for k, v in out.items()}


def _markdown(text: str) -> str:
    """reStructuredText roles and literals as Markdown code; pipes escaped for tables."""
    text = re.sub(r":\w+:`~?([^`]+)`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text).replace("|", "\\|")


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    text = text or str(annotation).replace("typing.", "")
    return re.sub(r"[\w.]*\.(\w+)", r"\1", text).replace("NoneType", "None").replace(" | ", " or ")


def _default(value: Any) -> str:
    if value is PydanticUndefined or value is dataclasses.MISSING:
        return "required"
    return f"`{value!r}`" if not isinstance(value, BaseModel) else "see below"


def _described(cls: type) -> dict[str, str]:
    """The field descriptions of ``cls`` and of the classes it inherits fields from (its own first)."""
    out: dict[str, str] = {}
    for klass in cls.__mro__:
        for name, text in docstring_args(klass).items():
            out.setdefault(name, text)
    return out


def _field_order(model: type[BaseModel]) -> list[str]:
    """The fields of ``model``, those it declares first, then those of each class it inherits from."""
    order: list[str] = []
    for klass in model.__mro__:
        order += [n for n in vars(klass).get("__annotations__", {}) if n in model.model_fields and n not in order]
    return order


def _model_rows(model: type[BaseModel], prefix: str, leave_out: type[BaseModel] | None = None) -> Iterator[str]:
    """A row per field of ``model``, but those of ``leave_out`` (a model it inherits from, documented elsewhere)."""
    described = _described(model)
    for name in _field_order(model):
        if leave_out is not None and name in leave_out.model_fields:
            continue
        info = model.model_fields[name]
        default = info.default_factory() if info.default_factory is not None else info.default
        if name not in described:
            raise ValueError(f"{model.__name__}.{name} has no description in the docstring's Args block")
        yield f"| `{prefix}{name}` | {_type_name(info.annotation)} | {_default(default)} | {described[name]} |"


def _dataclass_rows(cls: type, prefix: str = "") -> Iterator[str]:
    described = docstring_args(cls)
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else dataclasses.MISSING
        if f.name not in described:
            raise ValueError(f"{cls.__name__}.{f.name} has no description in the docstring's Args block")
        hints = typing.get_type_hints(cls)
        yield f"| `{prefix}{f.name}` | {_type_name(hints[f.name])} | {_default(default)} | {described[f.name]} |"


def _table(rows: Iterator[str]) -> str:
    return "\n".join(["| option | type | default | what it does |", "|---|---|---|---|", *rows])


def _section(
    heading: str, model: type[BaseModel], prefix: str = "", *, leave_out: type[BaseModel] | None = None, intro: str = ""
) -> list[str]:
    """A heading, an optional introduction and the table of ``model``'s options (their keys under ``prefix``; but
    those of ``leave_out``)."""
    return ["", heading, "", *([intro, ""] if intro else []), _table(_model_rows(model, prefix, leave_out))]


def _judge_part() -> list[str]:
    from verl_arena.judges.config import EndpointConfig, EnsembleConfig, JudgeConfig, RetryConfig

    return [
        *_section("## The judge (`judge:` in a judge YAML, `+reward.reward_kwargs.judge.*` for verl)", JudgeConfig),
        *_section("### Each endpoint (`endpoints: [...]`)", EndpointConfig, "endpoints[]."),
        *_section("### Retries (`retry:`)", RetryConfig, "retry."),
        *_section("### An ensemble of judges (`ensemble:`)", EnsembleConfig, "ensemble."),
    ]


def _tournament_part() -> list[str]:
    from verl_arena.core.topologies import TOPOLOGIES
    from verl_arena.core.tournament import Tournament

    # topology and options have their own sections; a late plan is set per group by the coordinator, not by a user
    common = [r for r in _dataclass_rows(Tournament) if not r.startswith(("| `topology`", "| `options`", "| `late`"))]
    parts = [
        "",
        "## The tournament",
        "",
        "Options every topology takes (`Tournament`, `rank_group(..., **options)`, `verl-arena rank --tournament`,"
        " `+reward.reward_kwargs.tournament.*`):",
        "",
        _table(iter(common)),
    ]
    options_of = {TOPOLOGIES.get(name).Options: name for name in TOPOLOGIES.names()}
    for name in TOPOLOGIES.names():
        cls = TOPOLOGIES.get(name)
        parts += ["", f"### `{name}`", ""]
        base = next((options_of[b] for b in cls.Options.__mro__[1:] if b in options_of), None)
        if base is not None:  # a preset: another topology's options under other defaults
            changed = [
                f"`{f.name}: {f.default}`"
                for f in dataclasses.fields(cls.Options)
                if f.default != getattr(TOPOLOGIES.get(base).Options, f.name)
            ]
            parts.append(f"The options of `{base}`, with the defaults {', '.join(changed)}.")
            continue
        rows = list(_dataclass_rows(cls.Options)) if dataclasses.fields(cls.Options) else []
        parts.append(_table(iter(rows)) if rows else "No options of its own.")
    return parts


_SHARED = (
    "Each option has one name, spelt as each place takes it: `+reward.reward_kwargs.NAME=...` on verl's command line,"
    " `arena_NAME: ...` in the YAML of slime's `--custom-config-path`, `NAME: ...` in the YAML file `VERL_ARENA_CONFIG`"
    " names (slime's fallback), and `--NAME` with dashes for underscores where a `verl-arena` command takes it (`rank"
    " --judgment-log`, `--judge-deadline-s`, `--timeout-s`, `--max-concurrency`, `--cache-path`,"
    " `--no-include-tool-outputs`, `--orders`, `--tournament KEY=VALUE`). The options inside one join with dots"
    " on verl's command line (`+reward.reward_kwargs.judge_alarm.window=5`) and nest in YAML (`arena_judge_alarm:"
    " {window: 5}`)."
)


def _shared_part() -> list[str]:
    from verl_arena.outcomes.judge_alarm import JudgeAlarmConfig
    from verl_arena.runtime.options import ArenaOptions

    return [
        *_section("## Options every framework takes", ArenaOptions, intro=_SHARED),
        *_section("### The judge alarm (`judge_alarm.*`)", JudgeAlarmConfig, "judge_alarm."),
    ]


def _training_part() -> list[str]:
    from verl_arena.environments.client import EnvConfig
    from verl_arena.integrations.slime.config import SlimeArenaConfig
    from verl_arena.integrations.verl.config import ArenaRewardConfig, HorizonSchedule, TournamentAdvantageConfig
    from verl_arena.outcomes.hack_alarm import HackAlarmConfig
    from verl_arena.outcomes.verifiable import VerifiableConfig
    from verl_arena.runtime.heldout import HeldoutJudgeConfig
    from verl_arena.runtime.options import ArenaOptions
    from verl_arena.runtime.step_budget import StepBudgetConfig

    verl = "## The verl reward manager's own (`+reward.reward_kwargs.*`)"
    slime = "## The slime hooks' own (`arena_*` keys of `--custom-config-path`, or unprefixed in `VERL_ARENA_CONFIG`)"
    besides = "Besides the options every framework takes:"
    return [
        *_section(verl, ArenaRewardConfig, leave_out=ArenaOptions, intro=besides),
        *_section("### The horizon curriculum (`+reward.reward_kwargs.horizon.*`)", HorizonSchedule, "horizon."),
        *_section("### The environment (`+reward.reward_kwargs.env.*`, for `arena_env_agent`)", EnvConfig, "env."),
        *_section("### The hack alarm (`+reward.reward_kwargs.hack_alarm.*`)", HackAlarmConfig, "hack_alarm."),
        *_section("### Hybrid RLVR + judge (`+reward.reward_kwargs.verifiable.*`)", VerifiableConfig, "verifiable."),
        *_section("### The step budget (`+reward.reward_kwargs.step_budget.*`)", StepBudgetConfig, "step_budget."),
        *_section(
            "### The held-out judge (`+reward.reward_kwargs.heldout_judge.*`)", HeldoutJudgeConfig, "heldout_judge."
        ),
        *_section("## The advantage estimator (`+algorithm.tournament.*`)", TournamentAdvantageConfig),
        *_section(slime, SlimeArenaConfig, "arena_", leave_out=ArenaOptions, intro=besides),
    ]


def _fixed_tournament_options() -> dict[str, str]:
    """The tournament's former options, now fixed (``tournament.NAME`` -> what to do instead)."""
    from verl_arena.core.topologies import TOPOLOGIES
    from verl_arena.core.tournament import FIXED_OPTIONS

    fixed = {f"tournament.{name}": value for name, value in FIXED_OPTIONS.items()}
    for name in TOPOLOGIES.names():
        fixed.update({f"tournament.{key}": value for key, value in TOPOLOGIES.get(name).fixed_options.items()})
    return {key: f"fixed at {value}; remove it (results that record it are read back)" for key, value in fixed.items()}


def _renamed_part() -> list[str]:
    from verl_arena.judges.config import REPLACED_ORDER_OPTIONS
    from verl_arena.runtime.options import RENAMED_ANCHORS
    from verl_arena.validation import REMOVED

    removed: dict[str, list[str]] = {}  # the keys that share their advice, together
    for key, advice in {**REMOVED, **_fixed_tournament_options()}.items():
        removed.setdefault(advice, []).append(f"`{key}`")
    return [
        "",
        "## Old spellings",
        "",
        "Still read for one release, each with one warning naming the new spelling:",
        "",
        "| option | old value | new value |",
        "|---|---|---|",
        *(f"| `anchor` | `{old}` | `{new}` |" for old, new in RENAMED_ANCHORS.items()),
        "| `tournament.source` (`anchor_set`) | `marked` with `pool: true` | `pool` |",
        "",
        "Replaced or removed, and refused with an error that names what to do instead:",
        "",
        "| option | instead |",
        "|---|---|",
        *(f"| `judge.{old}` | {new} |" for old, new in REPLACED_ORDER_OPTIONS.items()),
        *(f"| {', '.join(keys)} | {advice} |" for advice, keys in sorted(removed.items(), key=lambda kv: kv[1])),
    ]


def _metrics_part() -> list[str]:
    from verl_arena.integrations.verl.columns import INFO_DESCRIPTIONS, INFO_KEYS
    from verl_arena.integrations.verl.votes import ESTIMATOR_METRICS
    from verl_arena.outcomes.step_metrics import STEP_METRICS
    from verl_arena.runtime import stages  # noqa: F401  (the stages register their per-group metrics)

    return [
        "",
        "## Metrics",
        "",
        "Each training step's logged metrics (aggregated over the step's rollouts):",
        "",
        "| metric | what it counts |",
        "|---|---|",
        *(f"| `{k}` | {v} |" for k, v in {**STEP_METRICS, **ESTIMATOR_METRICS}.items()),
        "",
        "Each sample's `reward_extra_info` (verl logs them for validation, as `val-aux/<data source>/<key>/...`):",
        "",
        "| key | what it holds |",
        "|---|---|",
        *(f"| `{k}` | {INFO_DESCRIPTIONS[k]} |" for k in INFO_KEYS),
        "",
    ]


def configuration_markdown() -> str:
    """The whole reference, as Markdown: the judge, the tournament, the options every framework takes, each
    framework's own, old spellings, the metrics."""
    intro = [
        "# Configuration reference",
        "",
        "Written by `verl-arena docs configuration` from the configuration models and metric lists in the code; a test"
        " keeps this file and the code in step. Every option is validated when the configuration is built, and an"
        " error names the full key.",
    ]
    return "\n".join(
        [
            *intro,
            *_judge_part(),
            *_tournament_part(),
            *_shared_part(),
            *_training_part(),
            *_renamed_part(),
            *_metrics_part(),
        ]
    )
