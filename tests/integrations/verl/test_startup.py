# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's checks at the trainer's start, and ``verl-arena check``: verl's own config composed with the overrides,
every arena option validated by the one function the trainer runs, a misspelt key answered with the closest one."""

from __future__ import annotations

import pytest

from verl_arena.cli import main
from verl_arena.core.errors import ConfigError

verl = pytest.importorskip("verl")

from verl_arena.integrations.verl.startup import check_arena_options, compose_trainer_config  # noqa: E402

ARENA = [
    "reward.reward_manager.name=arena",
    "algorithm.adv_estimator=tournament",
    "actor_rollout_ref.rollout.n=4",
    "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:9/v1', model: m, api_key_env: ARENA_KEY}]",
]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("+reward.reward_kwargs.topolgy=swiss", r"reward.reward_kwargs.topolgy: .*did you mean 'topology'\?"),
        ("+reward.reward_kwargs.topology=swis", r"reward.reward_kwargs.topology: .*did you mean 'swiss'\?"),
        ("+reward.reward_kwargs.judge.templte=travel", r"reward_kwargs.judge.templte: .*did you mean 'template'\?"),
        ("+reward.reward_kwargs.anchor=best", r"reward.reward_kwargs.anchor: Input should be 'greedy', 'first' or"),
        (
            "+reward.reward_kwargs.tournament.on_judge_eror=raise",
            r"reward.reward_kwargs.tournament: .*'on_judge_eror'.*did you mean 'on_judge_error'\?",
        ),
        ("+algorithm.tournament.normalise=grpo", r"algorithm.tournament.normalise: .*did you mean 'normalize'\?"),
        ("+algorithm.tournamnet.normalize=grpo", r"algorithm.tournamnet: .*did you mean 'tournament'\?"),
        ("++reward.reward_kwargs.judge.endpoints=[{base_url: '', model: m}]", r"endpoints.0.base_url: .*http://"),
    ],
)
def test_a_bad_option_is_refused_naming_the_key_and_the_fix(override, message):
    config = compose_trainer_config([*ARENA, override])
    with pytest.raises(ConfigError, match=message):
        check_arena_options(config, keys=False)


def test_an_unknown_key_far_from_any_lists_the_valid_ones():
    config = compose_trainer_config([*ARENA, "+reward.reward_kwargs.judge.zzz=1"])
    with pytest.raises(ConfigError, match=r"judge.zzz: Extra inputs are not permitted; valid keys: endpoints, "):
        check_arena_options(config, keys=False)


def test_estimator_options_without_the_estimator_are_refused():
    config = compose_trainer_config(["algorithm.adv_estimator=grpo", "+algorithm.tournament.normalize=grpo"])
    with pytest.raises(ConfigError, match=r"algorithm.adv_estimator is 'grpo'.*set algorithm.adv_estimator=tournament"):
        check_arena_options(config)


def test_the_key_variable_is_required_where_the_trainer_runs(monkeypatch):
    monkeypatch.delenv("ARENA_KEY", raising=False)
    config = compose_trainer_config(ARENA)
    check = check_arena_options(config, keys=False)  # offline: the job's environment is elsewhere
    assert check.arena is not None and check.group_size == 4 and check.estimator.normalize == "rank"
    with pytest.raises(ConfigError, match=r"environment variable ARENA_KEY is not set"):
        check_arena_options(config)


def test_verls_own_config_validation_runs_the_arena_checks():
    """The plugin wraps verl.utils.config.validate_config, which every trainer entry point calls on its config before
    anything starts (main_ppo: in its driver, before Ray)."""
    from verl.trainer.main_ppo import validate_config
    from verl.trainer.ppo.utils import need_critic, need_reference_policy

    config = compose_trainer_config([*ARENA, "+reward.reward_kwargs.topolgy=swiss"])
    config.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu = 1  # verl's own checks pass
    config.actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu = 1
    with pytest.raises(ConfigError, match=r"reward.reward_kwargs.topolgy: .*did you mean 'topology'\?"):
        validate_config(
            config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config)
        )
    other = compose_trainer_config(["algorithm.adv_estimator=grpo", "+reward.reward_kwargs.topolgy=swiss"])  # not ours
    other.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu = 1
    other.actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu = 1
    validate_config(config=other, use_reference_policy=need_reference_policy(other), use_critic=need_critic(other))


def test_check_command_accepts_valid_overrides(capsys, monkeypatch):
    monkeypatch.delenv("ARENA_KEY", raising=False)
    assert main(["check", "--", *ARENA, "+reward.reward_kwargs.topology=swiss"]) == 0
    out = capsys.readouterr().out
    assert "reward manager arena: swiss tournaments of 4" in out and "advantage estimator tournament" in out
    assert "ARENA_KEY is not set here" in out


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["+reward.reward_kwargs.topolgy=swiss"], "reward.reward_kwargs.topolgy"),
        (["actor_rollout_ref.rolout.n=4"], "did you mean 'actor_rollout_ref.rollout.n'?"),
        (["reward.reward_kwargs.topology=swiss"], "+reward.reward_kwargs.topology=swiss"),  # Hydra: add it with +
    ],
)
def test_check_command_exits_2_naming_the_mistake(overrides, expected, capsys):
    assert main(["check", "--", *ARENA, *overrides]) == 2
    assert expected in capsys.readouterr().err


def test_check_command_names_a_setting_that_keeps_verl_from_loading_the_plugin(capsys, monkeypatch):
    monkeypatch.setenv("VERL_USE_EXTERNAL_PLUGINS", "other_plugin")
    assert main(["check", "--", *ARENA]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verl-arena check: verl would not load verl-arena: VERL_USE_EXTERNAL_PLUGINS=other_plugin")
    assert "(VERL_USE_EXTERNAL_PLUGINS=other_plugin,verl_arena)" in err and len(err.splitlines()) == 1


def test_check_command_says_when_nothing_of_the_arena_runs(capsys):
    assert main(["check", "--", "algorithm.adv_estimator=grpo"]) == 0
    assert "neither reward.reward_manager.name=arena nor algorithm.adv_estimator=tournament" in capsys.readouterr().out


def test_the_old_anchor_spelling_works_as_reference_with_one_warning_naming_it(caplog):
    config = compose_trainer_config([*ARENA, "+reward.reward_kwargs.anchor=data", "+reward.reward_kwargs.name=old"])
    with caplog.at_level("WARNING", logger="verl_arena.validation"):
        check = check_arena_options(config, keys=False)
        assert check_arena_options(config, keys=False).arena is check.arena  # validated once in this process
    assert check.arena.anchor == "reference"
    warnings = [r.getMessage() for r in caplog.records if r.name == "verl_arena.validation"]
    assert warnings == [
        "reward.reward_kwargs.anchor: 'data' is deprecated and goes in the next release; use 'reference' (the same)"
    ]
    new = compose_trainer_config([*ARENA, "+reward.reward_kwargs.anchor=reference", "+reward.reward_kwargs.name=old"])
    assert check_arena_options(new, keys=False).arena == check.arena


def test_the_coordinator_options_are_the_validated_options_not_copies_of_their_defaults():
    config = compose_trainer_config(
        [*ARENA, "+reward.reward_kwargs.arrival_timeout_s=60", "+reward.reward_kwargs.hack_alarm.window=4"]
    )
    arena = check_arena_options(config, keys=False).arena
    options = arena.coordinator_options()
    assert options.arrival_timeout_s == 60 and options.hack_alarm is arena.hack_alarm
    assert options.judge_alarm is arena.judge_alarm and options.stored_groups == arena.stored_groups
    assert set(type(options).model_fields) <= set(type(arena).model_fields)  # every one of them a user's option
