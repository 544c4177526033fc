# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The CPU backend: what it registers with verl when activated, the trainer overrides of a CPU run (composed by verl's
own config), and nothing active in a fresh interpreter without ``VERL_PLATFORM=cpu``.

Importing the backend activates it in this process, as ``VERL_PLATFORM=cpu`` would: the platform is only ever chosen
by that variable, and the other registrations add names verl's GPU paths never look up."""

from __future__ import annotations

import sys

import pytest
from helpers import fresh_python, verl_config

pytest.importorskip("verl")

from verl_arena.integrations.verl.cpu import backend


def test_once_active_verls_own_lookups_find_the_rollout_the_cpu_engines_and_gloo(monkeypatch):
    from verl.workers.engine.base import EngineRegistry
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead
    from verl.workers.rollout.base import get_rollout_class
    from verl.workers.rollout.replica import RolloutReplicaRegistry

    from verl_arena.integrations.verl.cpu.rollout import TransformersReplica, TransformersServerAdapter

    backend.activate()  # the import activated it; once per process
    assert RolloutReplicaRegistry.get(backend.ROLLOUT_NAME) is TransformersReplica
    assert get_rollout_class(backend.ROLLOUT_NAME) is TransformersServerAdapter
    monkeypatch.setenv("VERL_ENGINE_DEVICE", "cpu")  # what the CPU platform answers in a training process
    assert EngineRegistry.get_engine_cls("language_model", "fsdp2") is FSDPEngineWithLMHead
    for name in backend.PRIVATE_NAMES[1:]:  # verl's process-group initialiser, and the copy its workers import
        module, attribute = name.split(":")
        assert getattr(sys.modules[module], attribute).__verl_arena_cpu__


def test_the_process_group_is_gloo_unless_verl_names_a_backend():
    calls = []
    initialize = backend._gloo_process_group(lambda **kwargs: calls.append(kwargs))
    initialize(timeout_second=60)
    initialize(timeout_second=60, backend="cpu:gloo,cuda:nccl")
    assert calls == [
        {"timeout_second": 60, "backend": "gloo"},
        {"timeout_second": 60, "backend": "cpu:gloo,cuda:nccl"},
    ]


def test_the_overrides_of_a_cpu_run_compose_with_verls_config():
    config = verl_config(backend.cpu_overrides(processes=2, judge_processes=1))
    assert config.trainer.device == "cpu" and config.trainer.n_gpus_per_node == 2
    assert config.ray_kwargs.ray_init.num_gpus == 3  # a logical GPU per training process and per judge replica
    assert config.actor_rollout_ref.rollout.name == config.reward.reward_model.rollout.name == backend.ROLLOUT_NAME
    assert config.reward.reward_model.n_gpus_per_node == 1
    for role in (config.actor_rollout_ref.actor, config.actor_rollout_ref.ref):
        assert dict(role.fsdp_config.mixed_precision) == dict.fromkeys(
            ("param_dtype", "reduce_dtype", "buffer_dtype"), "fp32"
        )
    # the trainer's own Ray starts no dashboard and no idle workers ahead of its actors (seconds of CPU each start)
    assert config.ray_kwargs.ray_init.include_dashboard is False
    assert dict(config.ray_kwargs.ray_init._system_config) == {
        "enable_worker_prestart": False,
        "prestart_worker_first_driver": False,
    }
    plain = backend.cpu_overrides()
    assert verl_config(plain).ray_kwargs.ray_init.num_gpus == 1
    assert not [o for o in plain if o.startswith("reward.")]  # no judge replicas: verl's reward model left alone


@pytest.mark.slow
def test_nothing_is_active_without_verl_platform_cpu():
    code = (
        "import verl\n"
        "from verl.workers.rollout.base import _ROLLOUT_REGISTRY\n"
        "from verl.plugin.platform.platform_manager import PlatformRegistry\n"
        "print(('transformers', 'async') in _ROLLOUT_REGISTRY, 'cpu' in PlatformRegistry.registered_names())"
    )
    off = fresh_python(code, timeout=120)
    on = fresh_python(code, timeout=120, VERL_PLATFORM="cpu")
    assert off.stdout.split() == ["False", "False"], off.stderr[-2000:]
    assert on.stdout.split() == ["True", "True"], on.stderr[-2000:]
