# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The verl trainer overrides of a CPU run (``recipes/cpu_smoke.sh`` prints and passes them).

Apart from :mod:`.backend` because importing that module imports verl and activates the CPU backend (seconds of
imports): a recipe that only needs the overrides reads them here without importing verl.
"""

from __future__ import annotations

__all__ = ["FULL_PRECISION", "OBJECT_STORE", "ROLLOUT_NAME", "cpu_overrides"]

#: ``actor_rollout_ref.rollout.name`` of the transformers rollout
ROLLOUT_NAME = "transformers"
#: ``actor_rollout_ref.rollout.checkpoint_engine.backend`` of the CPU's weight sync to standalone servers
OBJECT_STORE = "object_store"
#: FSDP computes in full precision on the CPU: verl's default, bf16 parameters, runs a 135M model's forward and
#: backward about 18x slower on a CPU without bf16 instructions (132 s against 7.4 s for 4 x 112 tokens, one thread)
FULL_PRECISION = "{param_dtype:fp32,reduce_dtype:fp32,buffer_dtype:fp32}"


def cpu_overrides(
    *, processes: int = 1, judge_processes: int = 0, rollout_processes: int = 0, local_ray: bool = True
) -> list[str]:
    """The verl trainer overrides of a CPU run, next to ``VERL_PLATFORM=cpu``.

    Args:
        processes: training processes (logical GPUs given to Ray, one per process).
        judge_processes: logical GPUs of a reward-model pool verl hosts the judge on (its replicas on the CPU).
        rollout_processes: logical GPUs of standalone rollout servers (``trainer.v1.trainer_mode=separate_async``),
            which take the trained weights through the object store (:mod:`.weight_sync`).
        local_ray: the trainer starts its own Ray and gives it its logical GPUs and CPUs; ``False`` for a job on a
            running cluster, whose nodes were started with them (``ray start --num-gpus 1 --num-cpus 8``).
    """
    local = [
        f"+ray_kwargs.ray_init.num_gpus={processes + judge_processes + rollout_processes}",
        "ray_kwargs.ray_init.num_cpus=16",  # logical: actors reserve CPUs; the machine may have two
        # seconds of CPU at each start that a laptop run never uses: the dashboard, and idle workers started ahead
        "++ray_kwargs.ray_init.include_dashboard=False",
        "++ray_kwargs.ray_init._system_config={enable_worker_prestart:false,prestart_worker_first_driver:false}",
    ]
    return [
        "trainer.device=cpu",
        "trainer.nnodes=1",
        f"trainer.n_gpus_per_node={processes}",
        *(local if local_ray else []),
        "actor_rollout_ref.actor.strategy=fsdp2",
        "actor_rollout_ref.ref.strategy=fsdp2",
        "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
        "actor_rollout_ref.model.use_remove_padding=False",
        "actor_rollout_ref.model.enable_gradient_checkpointing=False",
        f"++actor_rollout_ref.actor.fsdp_config.mixed_precision={FULL_PRECISION}",
        f"++actor_rollout_ref.ref.fsdp_config.mixed_precision={FULL_PRECISION}",
        f"actor_rollout_ref.rollout.name={ROLLOUT_NAME}",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
        "transfer_queue.backend.SimpleStorage.num_data_storage_units=1",
        "data.dataloader_num_workers=0",
        "actor_rollout_ref.rollout.agent.num_workers=1",
        *_hosted_judge_overrides(judge_processes),
        *_standalone_rollout_overrides(rollout_processes),
    ]


def _standalone_rollout_overrides(rollout_processes: int) -> list[str]:
    """Standalone transformers servers on the CPU, one logical GPU each, synced through the object store."""
    if rollout_processes <= 0:
        return []
    return [
        "actor_rollout_ref.rollout.nnodes=1",
        f"actor_rollout_ref.rollout.n_gpus_per_node={rollout_processes}",
        f"actor_rollout_ref.rollout.checkpoint_engine.backend={OBJECT_STORE}",
    ]


def _hosted_judge_overrides(judge_processes: int) -> list[str]:
    """The reward-model rollout on the CPU: transformers replicas, one logical GPU each, never asleep."""
    if judge_processes <= 0:
        return []
    return [
        f"reward.reward_model.rollout.name={ROLLOUT_NAME}",
        "reward.reward_model.rollout.tensor_model_parallel_size=1",
        "reward.reward_model.nnodes=1",
        f"reward.reward_model.n_gpus_per_node={judge_processes}",
    ]
