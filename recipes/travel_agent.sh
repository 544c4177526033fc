#!/usr/bin/env bash
# Travel-planning agent RL, ArenaRL's Open-Travel setting: Qwen3-8B, 16 rollouts of each of 8 prompts per step,
# seeded single elimination (2N-2 = 30 judgments per group, both orders judged: 60 requests), greedy anchor, the
# travel rubric in Chinese, tools through verl's tool agent loop.
#
#   MODEL=/models/Qwen3-8B TRAIN_FILES=/data/travel/train.parquet VAL_FILES=/data/travel/test.parquet \
#   TOOL_CONFIG=/data/travel/tools.yaml NNODES=2 bash recipes/travel_agent.sh
#
# Judge cost per step: 8 groups x 60 requests = 480 requests; at ~6k prompt tokens each about 2.9M tokens.
# DRY_RUN=1 checks the overrides (verl-arena check; a mistake exits 2) and prints the job instead of submitting it.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MODEL="${MODEL:-Qwen/Qwen3-8B}"
TRAIN_FILES="${TRAIN_FILES:-${HOME}/data/travel/train.parquet}"
VAL_FILES="${VAL_FILES:-${HOME}/data/travel/test.parquet}"
TOOL_CONFIG="${TOOL_CONFIG:-${HOME}/data/travel/tools.yaml}"
NNODES="${NNODES:-1}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
N="${N:-16}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-8}"

arena_judge_options travel zh
OVERRIDES=(
    "algorithm.adv_estimator=tournament"
    "algorithm.use_kl_in_reward=False"
    "data.train_files=${TRAIN_FILES}"
    "data.val_files=${VAL_FILES}"
    "data.train_batch_size=${PROMPTS_PER_STEP}"
    "data.max_prompt_length=4096"
    "data.max_response_length=16384"
    "data.return_raw_chat=True"
    "actor_rollout_ref.model.path=${MODEL}"
    "actor_rollout_ref.actor.optim.lr=1e-6"
    "actor_rollout_ref.actor.ppo_mini_batch_size=${PROMPTS_PER_STEP}"
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"
    "actor_rollout_ref.actor.use_kl_loss=False"
    "actor_rollout_ref.actor.clip_ratio_low=0.2"
    "actor_rollout_ref.actor.clip_ratio_high=0.28"
    "actor_rollout_ref.rollout.name=vllm"
    "actor_rollout_ref.rollout.n=${N}"
    "actor_rollout_ref.rollout.temperature=0.8"
    "actor_rollout_ref.rollout.tensor_model_parallel_size=2"
    "actor_rollout_ref.rollout.gpu_memory_utilization=0.6"
    "actor_rollout_ref.rollout.agent.default_agent_loop=arena_tool_agent"
    "actor_rollout_ref.rollout.multi_turn.format=hermes"
    "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=6"
    "actor_rollout_ref.rollout.multi_turn.tool_config_path=${TOOL_CONFIG}"
    "actor_rollout_ref.rollout.val_kwargs.temperature=0"
    "reward.reward_manager.name=arena"
    "reward.num_workers=8"
    "+reward.reward_kwargs.topology=seeded_single_elimination"
    "+reward.reward_kwargs.anchor=greedy"
    "+reward.reward_kwargs.arrival_timeout_s=1800"
    "+reward.reward_kwargs.judge_deadline_s=900"
    "${ARENA_JUDGE_OPTIONS[@]}"
    "trainer.nnodes=${NNODES}"
    "trainer.n_gpus_per_node=${GPUS_PER_NODE}"
    "trainer.project_name=verl_arena"
    "trainer.experiment_name=travel_qwen3_8b_n${N}"
    "trainer.logger=[console]"
    "trainer.total_epochs=3"
    "trainer.test_freq=20"
    "trainer.save_freq=50"
)
arena_submit "${OVERRIDES[@]}" "$@"
