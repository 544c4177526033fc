# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The options users set on verl's command line: read from verl's own composed config, validated once, errors naming
the full key; the horizon curriculum; a judge file written as overrides verl's Hydra reads back unchanged."""

from __future__ import annotations

import re

import pytest
from helpers import judge_config, verl_config

from verl_arena.core.errors import ConfigError

pytest.importorskip("verl")

from verl_arena.integrations.verl.config import HorizonSchedule, arena_config, check_algorithm, judge_overrides
from verl_arena.validation import REMOVED

JUDGE = {"endpoints": [{"base_url": "http://127.0.0.1:8000/v1", "model": "m"}]}


def test_horizon_schedule_by_step():
    schedule = HorizonSchedule(turns=[8, 12, 15], steps_per_phase=80)
    assert [schedule.at(s) for s in (1, 80, 81, 160, 161, 10_000)] == [8, 8, 12, 12, 15, 15]
    assert schedule.at(None) == 15  # validation: the final horizon
    for bad in ([12, 8], [0, 4], []):
        with pytest.raises(ValueError):
            HorizonSchedule(turns=bad, steps_per_phase=1)


def test_a_judge_config_becomes_overrides_verl_accepts(tmp_path):
    judge = {
        "endpoints": [{"base_url": "http://127.0.0.1:8000/v1", "model": "Qwen3-235B", "max_concurrency": 32}],
        "template": "travel",
        "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
        "retry": {"max_attempts": 3},
        "rpm": 600.5,
    }
    config = verl_config(["reward.reward_manager.name=arena", *judge_overrides(judge)])
    parsed = arena_config(config).judge
    assert parsed.endpoints[0].max_concurrency == 32 and parsed.extra_body == judge["extra_body"]
    assert parsed.retry.max_attempts == 3 and parsed.rpm == 600.5
    with pytest.raises(ConfigError, match=r"judge\.timeout_s"):
        judge_overrides({**judge, "timeout_s": -1})


def test_without_the_reward_managers_options_the_error_says_which_to_set():
    for config in ({}, {"reward": {}}, {"reward": {"reward_kwargs": {}}}):
        with pytest.raises(ConfigError, match=r"needs \+reward\.reward_kwargs\.judge \(at least judge\.endpoints\)"):
            arena_config(config)


def test_the_arena_actors_are_placed_by_custom_resources_and_only_by_those():
    kwargs = {"judge": JUDGE, "judge_resources": {"judge_node": 0.01}, "coordinator_resources": {"cpu_node": 1}}
    arena = arena_config({"reward": {"reward_kwargs": kwargs}})
    assert arena.judge_resources == {"judge_node": 0.01} and arena.coordinator_resources == {"cpu_node": 1.0}
    assert arena_config({"reward": {"reward_kwargs": {"judge": JUDGE}}}).judge_resources == {}
    for key, bad, message in [
        ("judge_resources", {"GPU": 1}, r"\['GPU'\] are Ray's own resources"),
        ("coordinator_resources", {"cpu_node": 0}, "each amount must be positive"),
    ]:
        with pytest.raises(ConfigError, match=rf"reward\.reward_kwargs\.{key}: .*{message}"):
            arena_config({"reward": {"reward_kwargs": {"judge": JUDGE, key: bad}}})


def test_the_heldout_judge_reaches_the_coordinator_and_its_errors_name_the_full_key():
    kwargs = {"judge": JUDGE, "heldout_judge": {"judge": JUDGE, "share": 0.25}}
    options = arena_config({"reward": {"reward_kwargs": kwargs}}).coordinator_options()
    assert options.heldout_judge is not None and options.heldout_judge.share == 0.25
    assert arena_config({"reward": {"reward_kwargs": {"judge": JUDGE}}}).coordinator_options().heldout_judge is None
    bad = {"judge": JUDGE, "heldout_judge": {"judge": JUDGE, "share": 2}}
    with pytest.raises(ConfigError, match=r"reward\.reward_kwargs\.heldout_judge\.share"):
        arena_config({"reward": {"reward_kwargs": bad}})


def test_a_validation_sample_is_told_by_the_configured_split_key_and_values():
    arena = arena_config(
        {"reward": {"reward_kwargs": {"judge": JUDGE, "split_key": "part", "validation_splits": ["2024"]}}}
    )
    assert arena.is_validation({"part": "2024"}) and arena.is_validation({"part": 2024})  # compared as text
    assert not arena.is_validation({"part": "train"}) and not arena.is_validation({"split": "val"})
    assert not arena.is_validation(None)  # a row without extra_info is a training row
    default = arena_config({"reward": {"reward_kwargs": {"judge": JUDGE}}})
    splits = ("test", "val", "validation", "eval", "train")
    assert [default.is_validation({"split": s}) for s in splits] == [True, True, True, True, False]


def test_the_estimators_start_up_check_takes_verls_own_keys_and_refuses_a_kl_penalty_in_the_reward():
    ours = verl_config(["algorithm.adv_estimator=tournament", "+algorithm.tournament.normalize=grpo"]).algorithm
    assert check_algorithm(ours).normalize == "grpo"  # every key of verl's own algorithm node passes
    assert check_algorithm(verl_config(["algorithm.adv_estimator=grpo"]).algorithm) is None  # not in use
    kl = verl_config(["algorithm.adv_estimator=tournament", "algorithm.use_kl_in_reward=true"]).algorithm
    with pytest.raises(ConfigError, match=r"use_kl_in_reward=true does not work .*use_kl_loss=true instead"):
        check_algorithm(kl)


def test_text_with_backslashes_quotes_and_interpolation_marks_reaches_the_trainer_as_written():
    """A judge file's strings pass Hydra's override grammar and OmegaConf's interpolation unchanged (a guided-decoding
    regex in ``extra_body``, a Windows path, a price written ``${price}``)."""
    texts = [r'\{"winner": "[AB]"\}\d+', "C:\\judges\\", "it's", "costs ${price}", r"a \${b}", "\\\\${c}", "a, b: [c]"]
    judge = {**JUDGE, "extra_body": {"guided_regex": texts[0], "stop": texts}, "cache_path": "C:\\cache\\"}
    config = verl_config(["reward.reward_manager.name=arena", *judge_overrides(judge)])
    parsed = arena_config(config).judge
    assert parsed.extra_body == judge["extra_body"] and parsed.cache_path == judge["cache_path"]


def test_verls_algorithm_keys_read_from_its_source_are_its_algo_configs_fields():
    """``verl-arena check`` reads them without importing verl; the trainer, with verl imported, from the dataclass."""
    import dataclasses

    from verl.trainer.config import AlgoConfig

    from verl_arena.integrations.verl import config

    fields = [f.name for f in dataclasses.fields(AlgoConfig)]
    read = [key for path, name in config._ALGO_CONFIG_SOURCES for key in config._dataclass_fields_in_source(path, name)]
    assert read == fields and "adv_estimator" in read


#: what a section needs beside the removed option to be valid otherwise
_SECTION_NEEDS = {"heldout_judge": {"judge": judge_config("http://127.0.0.1:9/v1")}, "step_budget": {"calls": 10}}


@pytest.mark.parametrize("key", sorted(REMOVED))
def test_every_removed_option_is_refused_where_it_enters_naming_its_full_key_and_what_to_do(key):
    """No removed option is silently ignored or silently still obeyed: each says what to do instead."""
    *section, name = key.split(".")
    kwargs = {"judge": judge_config("http://127.0.0.1:9/v1")}
    if section:
        kwargs[section[0]] = {**kwargs.get(section[0], {}), **_SECTION_NEEDS.get(section[0], {}), name: 1}
    else:
        kwargs[name] = 1
    prefix = "reward.reward_kwargs" + "".join(f".{s}" for s in section)
    with pytest.raises(
        ConfigError, match=rf"{re.escape(prefix)}: {name} is no longer an option: {re.escape(REMOVED[key])}"
    ):
        arena_config({"reward": {"reward_kwargs": kwargs}})
