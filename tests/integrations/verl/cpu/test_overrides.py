# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A CPU run's trainer overrides, read without importing verl (``recipes/cpu_smoke.sh`` reads them before every run;
that they compose with verl's config: ``test_backend.py``)."""

from __future__ import annotations

from helpers import fresh_python

from verl_arena.integrations.verl.cpu.overrides import FULL_PRECISION, OBJECT_STORE, ROLLOUT_NAME, cpu_overrides


def test_the_overrides_are_read_without_importing_verl_or_activating_anything():
    code = (
        "import sys\n"
        "from verl_arena.integrations.verl.cpu.overrides import cpu_overrides\n"
        "overrides = cpu_overrides(judge_processes=1)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('verl', 'torch', 'ray')), len(overrides))"
    )
    done = fresh_python(code, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[]", "23"]


def test_the_actor_and_the_reference_compute_in_full_precision_on_the_cpu():
    overrides = cpu_overrides()
    for role in ("actor", "ref"):  # verl's bf16 default is about 18x slower on a CPU without bf16 instructions
        assert f"++actor_rollout_ref.{role}.fsdp_config.mixed_precision={FULL_PRECISION}" in overrides
    assert FULL_PRECISION.count("fp32") == 3


def test_a_cluster_job_leaves_ray_to_its_nodes_and_judge_replicas_get_the_cpu_rollout():
    job = cpu_overrides(processes=2, judge_processes=1, local_ray=False)
    assert not [o for o in job if o.lstrip("+").startswith("ray_kwargs.")]  # the nodes were started with them
    assert "trainer.n_gpus_per_node=2" in job and f"reward.reward_model.rollout.name={ROLLOUT_NAME}" in job
    local = cpu_overrides(processes=2, judge_processes=1)
    assert "+ray_kwargs.ray_init.num_gpus=3" in local and set(job) < set(local)


def test_standalone_rollout_servers_get_their_logical_gpus_and_the_object_store_weight_sync():
    overrides = cpu_overrides(processes=1, rollout_processes=2)
    assert "+ray_kwargs.ray_init.num_gpus=3" in overrides  # one trainer, two standalone rollout servers
    assert "actor_rollout_ref.rollout.n_gpus_per_node=2" in overrides
    assert f"actor_rollout_ref.rollout.checkpoint_engine.backend={OBJECT_STORE}" in overrides
    assert not [o for o in cpu_overrides() if "checkpoint_engine" in o]  # synchronous training keeps verl's own
