#!/usr/bin/env bash
# Deep-research agent RL, ArenaRL's Open-DeepResearch setting: 8 rollouts of each of 4 prompts per step, seeded
# single elimination (14 judgments per group, 28 requests with both orders), the deep-research rubric, long
# trajectories with search tools (up to 10 assistant turns).
#
#   MODEL=/models/Qwen3-8B TRAIN_FILES=... VAL_FILES=... TOOL_CONFIG=... bash recipes/deep_research.sh
#
# Judge cost per step: 4 groups x 28 requests = 112 requests; reports are long, so budget ~12k prompt tokens each.
# DRY_RUN=1 checks the overrides (verl-arena check; a mistake exits 2) and prints the job instead of submitting it.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MODEL="${MODEL:-Qwen/Qwen3-8B}"
TRAIN_FILES="${TRAIN_FILES:-${HOME}/data/deep_research/train.parquet}"
VAL_FILES="${VAL_FILES:-${HOME}/data/deep_research/test.parquet}"
TOOL_CONFIG="${TOOL_CONFIG:-${HOME}/data/deep_research/tools.yaml}"
NNODES="${NNODES:-1}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
N="${N:-8}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-4}"

arena_judge_options deep_research "${JUDGE_LANGUAGE:-en}"
OVERRIDES=(
    "algorithm.adv_estimator=tournament"
    "data.train_files=${TRAIN_FILES}"
    "data.val_files=${VAL_FILES}"
    "data.train_batch_size=${PROMPTS_PER_STEP}"
    "data.max_prompt_length=4096"
    "data.max_response_length=24576"
    "data.return_raw_chat=True"
    "actor_rollout_ref.model.path=${MODEL}"
    "actor_rollout_ref.actor.optim.lr=1e-6"
    "actor_rollout_ref.actor.ppo_mini_batch_size=${PROMPTS_PER_STEP}"
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"
    "actor_rollout_ref.actor.use_kl_loss=False"
    "actor_rollout_ref.rollout.name=vllm"
    "actor_rollout_ref.rollout.n=${N}"
    "actor_rollout_ref.rollout.temperature=0.8"
    "actor_rollout_ref.rollout.tensor_model_parallel_size=2"
    "actor_rollout_ref.rollout.agent.default_agent_loop=arena_tool_agent"
    "actor_rollout_ref.rollout.multi_turn.format=hermes"
    "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=10"
    "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=3000"
    "actor_rollout_ref.rollout.multi_turn.tool_response_truncate_side=middle"
    "actor_rollout_ref.rollout.multi_turn.tool_config_path=${TOOL_CONFIG}"
    "reward.reward_manager.name=arena"
    "reward.num_workers=4"
    "+reward.reward_kwargs.topology=seeded_single_elimination"
    "+reward.reward_kwargs.anchor=greedy"
    "${ARENA_JUDGE_OPTIONS[@]}"
    "trainer.nnodes=${NNODES}"
    "trainer.n_gpus_per_node=${GPUS_PER_NODE}"
    "trainer.project_name=verl_arena"
    "trainer.experiment_name=deep_research_n${N}"
    "trainer.logger=[console]"
    "trainer.total_epochs=2"
)
arena_submit "${OVERRIDES[@]}" "$@"
