# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Two real training steps on one GPU node: vLLM rollouts, the arena reward manager, the tournament estimator.

Marked ``gpu``: the default test run deselects it, and it skips itself without CUDA and vLLM. It trains a tiny,
randomly initialised Qwen2 (``verl-arena tiny-model``, no hub) on the example travel tasks (``verl-arena prepare``)
with 4 rollouts each, judged by the mock judge over loopback, and checks that verl ran two steps, logged the arena's
step metrics and that every group was judged.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest
from helpers import ROOT

pytestmark = pytest.mark.gpu


def _gpu_ready() -> bool:
    try:
        import torch

        return torch.cuda.is_available() and importlib.util.find_spec("vllm") is not None
    except ImportError:
        return False


@pytest.mark.skipif(not _gpu_ready(), reason="needs a CUDA GPU and vLLM")
def test_two_training_steps_with_tournament_advantages(tmp_path, mock_judge):
    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model
    from verl_arena.integrations.verl.prepare import prepare

    url, server = mock_judge(latency=0.01)
    model = build_tiny_model(tmp_path / "model", hidden_size=256)
    data = prepare(ROOT / "examples" / "travel_tasks.jsonl", tmp_path / "data")
    train, val = data.train, data.val
    overrides = [
        "algorithm.adv_estimator=tournament",
        f"data.train_files={train}",
        f"data.val_files={val}",
        "data.train_batch_size=4",
        "data.max_prompt_length=128",
        "data.max_response_length=64",
        "data.return_raw_chat=True",
        f"actor_rollout_ref.model.path={model}",
        "actor_rollout_ref.actor.ppo_mini_batch_size=4",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.actor.use_kl_loss=False",
        "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.rollout.n=4",
        "actor_rollout_ref.rollout.gpu_memory_utilization=0.3",
        "actor_rollout_ref.rollout.enforce_eager=True",
        "actor_rollout_ref.rollout.agent.default_agent_loop=arena_single_turn_agent",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "reward.reward_manager.name=arena",
        "reward.num_workers=2",
        f"+reward.reward_kwargs.judge.endpoints=[{{base_url: '{url}', model: mock}}]",
        "+reward.reward_kwargs.judge_deadline_s=120",
        f"+reward.reward_kwargs.judgment_log={tmp_path / 'judgments.jsonl'}",
        "trainer.nnodes=1",
        "trainer.n_gpus_per_node=1",
        "trainer.total_training_steps=2",
        "trainer.val_before_train=False",
        "trainer.test_freq=-1",
        "trainer.save_freq=-1",
        "trainer.logger=[console]",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "verl.trainer.main_ppo", *overrides], capture_output=True, text=True, timeout=1800
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-5000:]
    # training steps carry the arena's aggregates (verl itself logs reward_extra_info only for validation)
    assert "step:2" in log and "arena/groups:" in log and "arena/judgments:" in log
    assert sum(server.served.values()) > 0  # the judge was asked
    assert (tmp_path / "judgments.jsonl").read_text().count("\n") == 8  # 4 prompts x 2 steps


def _gpus() -> int:
    try:
        import torch

        return torch.cuda.device_count() if _gpu_ready() else 0
    except ImportError:
        return 0


@pytest.mark.skipif(_gpus() < 2, reason="needs two CUDA GPUs (one for training, one for the judge verl hosts) and vLLM")
def test_two_training_steps_with_the_judge_verl_hosts_on_vllm(tmp_path):
    """The judge is verl's own reward model on a standalone pool of one GPU, a vLLM replica behind verl's router; no
    endpoint exists outside the job. The judge model is a tiny random Qwen2, so its verdicts are noise: what must hold
    is that the requests reached it (the arena counted the tokens its replies reported), nothing crashed, and its
    noise was counted as failed judgments or voided groups and never blamed on a rollout."""
    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model
    from verl_arena.integrations.verl.hosted import REWARD_FUNCTION_PATH
    from verl_arena.integrations.verl.prepare import prepare

    model = build_tiny_model(tmp_path / "model", hidden_size=256)
    judge = build_tiny_model(tmp_path / "judge", hidden_size=256, seed=1, context=16384)
    data = prepare(ROOT / "examples" / "travel_tasks.jsonl", tmp_path / "data")
    overrides = [
        "algorithm.adv_estimator=tournament",
        f"data.train_files={data.train}",
        f"data.val_files={data.val}",
        "data.train_batch_size=4",
        "data.max_prompt_length=128",
        "data.max_response_length=64",
        "data.return_raw_chat=True",
        f"actor_rollout_ref.model.path={model}",
        "actor_rollout_ref.actor.ppo_mini_batch_size=4",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.actor.use_kl_loss=False",
        "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.rollout.n=4",
        "actor_rollout_ref.rollout.gpu_memory_utilization=0.3",
        "actor_rollout_ref.rollout.enforce_eager=True",
        "actor_rollout_ref.rollout.agent.default_agent_loop=arena_single_turn_agent",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "reward.reward_manager.name=arena",
        "reward.num_workers=2",
        "reward.reward_model.enable=True",
        "reward.reward_model.enable_resource_pool=True",
        "reward.reward_model.nnodes=1",
        "reward.reward_model.n_gpus_per_node=1",
        f"reward.reward_model.model_path={judge}",
        "reward.reward_model.rollout.name=vllm",
        "reward.reward_model.rollout.tensor_model_parallel_size=1",
        "reward.reward_model.rollout.gpu_memory_utilization=0.3",
        "reward.reward_model.rollout.free_cache_engine=False",
        "reward.reward_model.rollout.temperature=0",
        f"reward.custom_reward_function.path={REWARD_FUNCTION_PATH}",
        "reward.custom_reward_function.name=compute_score",
        "+reward.reward_kwargs.judge.endpoints=[{hosted: verl}]",
        "+reward.reward_kwargs.judge.max_tokens=32",
        "+reward.reward_kwargs.judge_deadline_s=600",
        f"+reward.reward_kwargs.judgment_log={tmp_path / 'judgments.jsonl'}",
        "trainer.nnodes=1",
        "trainer.n_gpus_per_node=1",
        "trainer.total_training_steps=2",
        "trainer.val_before_train=False",
        "trainer.test_freq=-1",
        "trainer.save_freq=-1",
        "trainer.logger=[console]",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "verl.trainer.main_ppo", *overrides], capture_output=True, text=True, timeout=1800
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-5000:]
    assert "step:2" in log and "arena/prompt_tokens:" in log
    tokens = [float(v) for v in re.findall(r"arena/prompt_tokens:([0-9.]+)", log)]
    assert tokens and sum(tokens) > 0  # the hosted judge answered, with usage
    forfeits = [float(v) for v in re.findall(r"arena/forfeits:([0-9.]+)", log)]
    assert not any(forfeits)  # its noise is nobody's fault
