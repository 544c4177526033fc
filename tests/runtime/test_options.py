# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The runtime's options: each defined once, in the model of its concern, and inherited by the adapters' models."""

from __future__ import annotations

import pytest
from helpers import judge_config
from pydantic import ValidationError

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import SlimeArenaConfig
from verl_arena.runtime.options import ArenaOptions, CoordinatorOptions, OutcomeOptions
from verl_arena.validation import validate

verl = pytest.importorskip("verl")

from verl_arena.integrations.verl.config import ArenaRewardConfig  # noqa: E402


def field(model, name: str) -> str:
    """A field as pydantic describes it: its type, default and constraints."""
    return repr(model.model_fields[name])


def test_an_option_is_defined_once_and_the_adapters_inherit_it():
    for name in OutcomeOptions.model_fields:
        assert field(ArenaRewardConfig, name) == field(SlimeArenaConfig, name) == field(CoordinatorOptions, name)
    for name in ArenaOptions.model_fields:  # the anchor among them: one set of values in verl and slime
        assert field(ArenaRewardConfig, name) == field(SlimeArenaConfig, name) == field(ArenaOptions, name)
    verl_only = set(ArenaRewardConfig.model_fields) - set(ArenaOptions.model_fields)
    assert set(CoordinatorOptions.model_fields) - set(OutcomeOptions.model_fields) <= verl_only


def test_the_coordinators_options_are_taken_from_validated_options_as_they_are():
    arena = validate(ArenaRewardConfig, {"judge": judge_config("http://x/v1"), "incomplete": "zero"}, "kw", "options")
    options = CoordinatorOptions.of(arena)
    assert (
        type(options) is CoordinatorOptions and options.incomplete == "zero" and options.hack_alarm is arena.hack_alarm
    )
    with pytest.raises(TypeError, match="SlimeArenaConfig does not hold the coordinator's options"):
        CoordinatorOptions.of(SlimeArenaConfig(judge=judge_config("http://x/v1")))
    with pytest.raises(ValidationError):  # frozen
        options.incomplete = "rank"
    with pytest.raises(ValidationError, match="incomplete"):
        CoordinatorOptions(incomplete="drop")


@pytest.mark.parametrize(
    ("prefix", "separator", "key"), [("arena", "_", "arena_anchor"), ("options", ".", "options.anchor")]
)
def test_an_old_anchor_is_read_as_its_new_spelling_with_one_warning_naming_the_key(caplog, prefix, separator, key):
    with caplog.at_level("WARNING", logger="verl_arena.validation"):
        cfg = validate(
            SlimeArenaConfig, {"judge": judge_config("http://x/v1"), "anchor": "data"}, prefix, "o", separator
        )
    assert cfg.anchor == "reference"
    assert [r.getMessage() for r in caplog.records] == [
        f"{key}: 'data' is deprecated and goes in the next release; use 'reference' (the same)"
    ]
    with pytest.raises(ConfigError, match=rf"{key}: Input should be 'greedy', 'first' or 'reference'"):
        validate(SlimeArenaConfig, {"judge": judge_config("http://x/v1"), "anchor": "best"}, prefix, "o", separator)


def test_the_step_budget_enters_with_the_arena_options_and_its_fallback_is_cheaper_topologies():
    judge = {"endpoints": [{"base_url": "http://localhost:1/v1", "model": "m"}]}
    options = ArenaOptions(judge=judge, topology="round_robin", step_budget={"calls": 100, "fallback": ["anchor"]})
    assert options.step_budget is not None and options.step_budget.fallback == ("anchor",)
    with pytest.raises(ValidationError, match=r"step_budget\.fallback"):
        ArenaOptions(judge=judge, topology="anchor", step_budget={"calls": 100, "fallback": ["anchor"]})
    assert SlimeArenaConfig(judge=judge, step_budget={"calls": 100}).step_budget.calls == 100  # slime takes it too
    assert ArenaRewardConfig(judge=judge, step_budget={"calls": 100}).coordinator_options().eager is False


def test_a_step_budget_with_fallbacks_is_refused_for_anchors_from_the_data():
    """A fallback topology takes no marked anchors: the data's anchors would be ranked as if they were rollouts."""
    judge = {"endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}]}
    marked = {"anchors": 2, "source": "marked"}
    with pytest.raises(ValidationError, match=r"step_budget\.fallback: topology 'anchor_set' with source: marked"):
        ArenaOptions(judge=judge, topology="anchor_set", tournament=marked, step_budget={"calls": 100})
    options = ArenaOptions(
        judge=judge, topology="anchor_set", tournament=marked, step_budget={"calls": 100, "fallback": []}
    )
    assert options.step_budget is not None and options.step_budget.fallback == ()
    drawn = ArenaOptions(judge=judge, topology="anchor_set", tournament={"anchors": 2}, step_budget={"calls": 100})
    assert drawn.step_budget is not None and drawn.step_budget.fallback == ("budgeted", "anchor")


def test_eager_judging_is_auto_off_where_an_option_needs_the_whole_group_and_an_explicit_true_there_is_refused():
    judge = {"endpoints": [{"base_url": "http://localhost:1/v1", "model": "m"}]}
    assert CoordinatorOptions().eager == "auto" and CoordinatorOptions().judges_eagerly
    assert not CoordinatorOptions(verifiable={}).judges_eagerly and not CoordinatorOptions(eager=False).judges_eagerly
    assert ArenaRewardConfig(judge=judge).coordinator_options().judges_eagerly
    assert ArenaRewardConfig(judge=judge, eager=False, step_budget={"calls": 9}).coordinator_options().eager is False
    with pytest.raises(ValidationError, match=r"eager: true cannot work with verifiable.*leave eager unset"):
        CoordinatorOptions(eager=True, verifiable={})
    with pytest.raises(ValidationError, match=r"eager: true cannot work with step_budget.*leave eager unset"):
        ArenaRewardConfig(judge=judge, eager=True, step_budget={"calls": 9})
