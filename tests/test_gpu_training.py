# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Two real training steps on one GPU node: vLLM rollouts, the arena reward manager, the tournament estimator.

Marked ``gpu``: the default test run deselects it, and it skips itself without CUDA and vLLM. It trains a tiny,
randomly initialised Qwen2 (built here, no hub) on 8 travel prompts with 4 rollouts each, judged by the mock judge
over loopback, and checks that verl ran two steps and logged the arena's reward fields.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu


def _gpu_ready() -> bool:
    try:
        import torch

        return torch.cuda.is_available() and importlib.util.find_spec("vllm") is not None
    except ImportError:
        return False


def _tiny_model(path: Path) -> Path:
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from verl_support import build_tokenizer

    build_tokenizer(path)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=256, intermediate_size=512, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024, tie_word_embeddings=True,
    )  # fmt: skip
    Qwen2ForCausalLM(config).save_pretrained(path)
    return path


def _data(path: Path) -> tuple[Path, Path]:
    import pandas as pd

    queries = [f"Plan a day in city {i} with museums and food" for i in range(8)]

    def rows(split: str) -> list[dict]:
        return [
            {
                "data_source": "travel",
                "prompt": [{"role": "user", "content": q}],
                "ability": "planning",
                "reward_model": {"style": "arena", "ground_truth": "Morning museum, lunch, evening food market."},
                "extra_info": {"split": split, "index": i},
            }
            for i, q in enumerate(queries)
        ]

    train, val = path / "train.parquet", path / "val.parquet"
    pd.DataFrame(rows("train")).to_parquet(train)
    pd.DataFrame(rows("test")[:2]).to_parquet(val)
    return train, val


@pytest.mark.skipif(not _gpu_ready(), reason="needs a CUDA GPU and vLLM")
def test_two_training_steps_with_tournament_advantages(tmp_path, mock_judge):
    url, server = mock_judge(latency=0.01)
    model = _tiny_model(tmp_path / "model")
    train, val = _data(tmp_path)
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
        "trainer.nnodes=1",
        "trainer.n_gpus_per_node=1",
        "trainer.total_training_steps=2",
        "trainer.val_before_train=False",
        "trainer.test_freq=-1",
        "trainer.save_freq=-1",
        "trainer.logger=[console]",
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    done = subprocess.run(
        [sys.executable, "-m", "verl.trainer.main_ppo", *overrides], capture_output=True, text=True, env=env,
        timeout=1800,
    )  # fmt: skip
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-5000:]
    assert "step:2" in log and "arena_rank" in log
    assert sum(server.served.values()) > 0  # the judge was asked
