#!/usr/bin/env bash
# Open-ended writing RL without tools, judged with the writing rubric. Defaults to Tournament-GRPO's binary
# multi-round tournament (G=2, K_win=1, K_final=1, M=4 repeats: 4 x 7 = 28 group judgments per group of 8) with
# min-max rewards, so the advantage estimator normalises like GRPO; set TOPOLOGY=seeded_single_elimination for
# ArenaRL's choice.
#
#   MODEL=/models/Qwen3-8B TRAIN_FILES=... VAL_FILES=... bash recipes/writing.sh
#
# Judge cost per step: 16 prompts x 28 requests = 448 requests (no order swapping for group judgments).
# DRY_RUN=1 checks the overrides (verl-arena check; a mistake exits 2) and prints the job instead of submitting it.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MODEL="${MODEL:-Qwen/Qwen3-8B}"
TRAIN_FILES="${TRAIN_FILES:-${HOME}/data/writing/train.parquet}"
VAL_FILES="${VAL_FILES:-${HOME}/data/writing/test.parquet}"
NNODES="${NNODES:-1}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
N="${N:-8}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-16}"
TOPOLOGY="${TOPOLOGY:-multi_round}"

arena_judge_options writing "${JUDGE_LANGUAGE:-en}"
if [[ "${TOPOLOGY}" == "multi_round" ]]; then
    TOURNAMENT=(
        "+reward.reward_kwargs.tournament.group_size=2"
        "+reward.reward_kwargs.tournament.winners_per_group=1"
        "+reward.reward_kwargs.tournament.final_size=1"
        "+reward.reward_kwargs.tournament.repeats=4"
        "+algorithm.tournament.normalize=grpo"
    )
else
    TOURNAMENT=("+algorithm.tournament.normalize=rank")
fi
OVERRIDES=(
    "algorithm.adv_estimator=tournament"
    "data.train_files=${TRAIN_FILES}"
    "data.val_files=${VAL_FILES}"
    "data.train_batch_size=${PROMPTS_PER_STEP}"
    "data.max_prompt_length=2048"
    "data.max_response_length=8192"
    "data.return_raw_chat=True"
    "actor_rollout_ref.model.path=${MODEL}"
    "actor_rollout_ref.actor.optim.lr=1e-6"
    "actor_rollout_ref.actor.ppo_mini_batch_size=${PROMPTS_PER_STEP}"
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2"
    "actor_rollout_ref.rollout.name=vllm"
    "actor_rollout_ref.rollout.n=${N}"
    "actor_rollout_ref.rollout.temperature=1.0"
    "actor_rollout_ref.rollout.agent.default_agent_loop=arena_single_turn_agent"
    "reward.reward_manager.name=arena"
    "reward.num_workers=4"
    "+reward.reward_kwargs.topology=${TOPOLOGY}"
    "${TOURNAMENT[@]}"
    "${ARENA_JUDGE_OPTIONS[@]}"
    "trainer.nnodes=${NNODES}"
    "trainer.n_gpus_per_node=${GPUS_PER_NODE}"
    "trainer.project_name=verl_arena"
    "trainer.experiment_name=writing_${TOPOLOGY}_n${N}"
    "trainer.logger=[console]"
    "trainer.total_epochs=2"
)
arena_submit "${OVERRIDES[@]}" "$@"
