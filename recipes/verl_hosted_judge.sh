#!/usr/bin/env bash
# The travel setting with the judge hosted by the training job itself: no API, no judge fleet to run beside it.
# verl starts the judge model as its reward model on a pool of its own (standalone mode: rollouts stream to the
# judge as they finish), replicas of its vLLM server behind its router, and the arena judge is {hosted: verl}.
#
#   MODEL=/models/Qwen3-8B JUDGE_MODEL=/models/Qwen3-32B NNODES=2 JUDGE_NNODES=1 bash recipes/verl_hosted_judge.sh
#
# GPUs: the trainer's NNODES x GPUS_PER_NODE plus the judge's JUDGE_NNODES x JUDGE_GPUS_PER_NODE, all in the Ray
# cluster (JUDGE_TP GPUs per judge replica). The judge keeps its GPUs for the whole run; it does not sleep between
# steps (colocated mode, where it would, is refused: verl scores colocated batches from rows without group ids).
# Sampling at temperature 0 and prefix caching on: a tournament's requests share their instructions, query and
# rubric, which the replicas then prefill once per group.
# DRY_RUN=1 checks the overrides (verl-arena check; a mistake exits 2) and prints the job instead of submitting it.
# Extra arguments are passed to the trainer as overrides.
set -euo pipefail

JUDGE_MODEL="${JUDGE_MODEL:-Qwen/Qwen3-32B}"
JUDGE_NNODES="${JUDGE_NNODES:-1}"
JUDGE_GPUS_PER_NODE="${JUDGE_GPUS_PER_NODE:-8}"
JUDGE_TP="${JUDGE_TP:-4}"                             # GPUs per judge replica: 8 GPUs of TP 4 are 2 replicas
JUDGE_MAX_MODEL_LEN="${JUDGE_MAX_MODEL_LEN:-32768}"   # the judge's context: prompts are budgeted to fit it
JUDGE_MAX_SEQS="${JUDGE_MAX_SEQS:-256}"

# the judge options of travel_agent.sh: the hosted endpoint, no key, no provider rate limits
export JUDGE_ENDPOINTS="[{hosted:verl,max_concurrency:${JUDGE_MAX_SEQS}}]"
export JUDGE_KEY_ENVS="" JUDGE_RPM=null JUDGE_TPM=null

exec bash "$(dirname "${BASH_SOURCE[0]}")/travel_agent.sh" \
    "reward.reward_model.enable=True" \
    "reward.reward_model.enable_resource_pool=True" \
    "reward.reward_model.nnodes=${JUDGE_NNODES}" \
    "reward.reward_model.n_gpus_per_node=${JUDGE_GPUS_PER_NODE}" \
    "reward.reward_model.model_path=${JUDGE_MODEL}" \
    "reward.reward_model.rollout.name=vllm" \
    "reward.reward_model.rollout.tensor_model_parallel_size=${JUDGE_TP}" \
    "reward.reward_model.rollout.gpu_memory_utilization=0.85" \
    "reward.reward_model.rollout.max_model_len=${JUDGE_MAX_MODEL_LEN}" \
    "reward.reward_model.rollout.max_num_seqs=${JUDGE_MAX_SEQS}" \
    "reward.reward_model.rollout.enable_prefix_caching=True" \
    "reward.reward_model.rollout.free_cache_engine=False" \
    "reward.reward_model.rollout.temperature=0" \
    "reward.custom_reward_function.path=pkg://verl_arena.integrations.verl.reward_function" \
    "reward.custom_reward_function.name=compute_score" \
    "+reward.reward_kwargs.judge.extra_body={chat_template_kwargs: {enable_thinking: false}}" \
    "$@"
