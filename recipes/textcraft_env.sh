#!/usr/bin/env bash
# Agents in an environment: the bundled TextCraft server (AgentGym protocol) and verl with the arena_env_agent loop.
# Each rollout plays one episode (create, reset to the row's task, model turns and env steps, close); the tournament
# judges what the agent did, and the episode's verifiable outcome combines with it (ENV_REWARD: success_first,
# tournament or weighted).
#
#   MODEL=/models/Qwen3-8B bash recipes/textcraft_env.sh             # the env server here, verl on the cluster
#   ENV_URL=http://10.0.0.7:36001 bash recipes/textcraft_env.sh      # a server already running (one per node, or a pool)
#   CPU=1 bash recipes/textcraft_env.sh                              # two steps on this machine's CPU (cpu_smoke.sh)
#
# DRY_RUN=1 checks the overrides (verl-arena check; a mistake exits 2) and prints what would run. Extra arguments are
# passed to the trainer as overrides. CPU=1 waits for the environment server by a health request (READY_TIMEOUT_S).
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORKDIR="${WORKDIR:-/tmp/verl_arena_textcraft}"
TASKS="${TASKS:-${ROOT}/examples/textcraft_tasks.jsonl}"
ENV_URL="${ENV_URL:-}"
ENV_PORT="${ENV_PORT:-36001}"
ENV_REWARD="${ENV_REWARD:-success_first}"
MAX_TURNS="${MAX_TURNS:-12}"
CPU="${CPU:-0}"

env_pid=""
# shellcheck disable=SC2329  # called by the EXIT trap
cleanup() { if [[ -n "${env_pid}" ]]; then kill "${env_pid}" 2>/dev/null || true; fi; }
trap cleanup EXIT
arena_run mkdir -p "${WORKDIR}"
if [[ -z "${ENV_URL}" ]]; then
    if [[ "${DRY_RUN}" == "1" ]]; then
        arena_run verl-arena env-server textcraft --host 0.0.0.0 --port "${ENV_PORT}"
        ENV_URL="http://127.0.0.1:${ENV_PORT}"
    else
        # on the CPU: loopback and any free port; for a cluster: every interface, reached at this node's address
        host=0.0.0.0 port="${ENV_PORT}"
        if [[ "${CPU}" == "1" ]]; then host=127.0.0.1 port=0; fi
        verl-arena env-server textcraft --host "${host}" --port "${port}" > "${WORKDIR}/env_server.url" \
            2> "${WORKDIR}/env_server.log" &
        env_pid=$!
        arena_wait_ready "the environment server" "${env_pid}" "${WORKDIR}/env_server.url" /health \
            "${WORKDIR}/env_server.log"
        ENV_URL="${ARENA_READY_URL}"
        if [[ "${CPU}" != "1" ]]; then ENV_URL="http://$(hostname -I | awk '{print $1}'):${ENV_PORT}"; fi
    fi
fi

ENV_OPTIONS=(
    "+reward.reward_kwargs.env={url: '${ENV_URL}', adapter: textcraft, max_turns: ${MAX_TURNS}}"
    "+reward.reward_kwargs.env_reward=${ENV_REWARD}"
)
if [[ "${CPU}" == "1" ]]; then
    WORKDIR="${WORKDIR}" TASKS="${TASKS}" AGENT=arena_env_agent PROMPT_LENGTH=1024 RESPONSE_LENGTH=256 \
        DRY_RUN="${DRY_RUN}" bash "${ROOT}/recipes/cpu_smoke.sh" "${ENV_OPTIONS[@]}" "$@"
    exit $?
fi

MODEL="${MODEL:-Qwen/Qwen3-8B}"
NNODES="${NNODES:-1}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
N="${N:-8}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-16}"
arena_run verl-arena prepare "${TASKS}" -o "${WORKDIR}/data"
arena_judge_options generic en
OVERRIDES=(
    "algorithm.adv_estimator=tournament"
    "data.train_files=${WORKDIR}/data/train.parquet"
    "data.val_files=${WORKDIR}/data/val.parquet"
    "data.train_batch_size=${PROMPTS_PER_STEP}"
    "data.max_prompt_length=2048"
    "data.max_response_length=8192"
    "data.return_raw_chat=True"
    "actor_rollout_ref.model.path=${MODEL}"
    "actor_rollout_ref.actor.optim.lr=1e-6"
    "actor_rollout_ref.actor.ppo_mini_batch_size=${PROMPTS_PER_STEP}"
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1"
    "actor_rollout_ref.actor.use_kl_loss=False"
    "actor_rollout_ref.rollout.name=vllm"
    "actor_rollout_ref.rollout.n=${N}"
    "actor_rollout_ref.rollout.tensor_model_parallel_size=2"
    "actor_rollout_ref.rollout.agent.default_agent_loop=arena_env_agent"
    "reward.reward_manager.name=arena"
    "reward.num_workers=8"
    "+reward.reward_kwargs.topology=seeded_single_elimination"
    "+reward.reward_kwargs.horizon.turns=[4,8,${MAX_TURNS}]"
    "+reward.reward_kwargs.horizon.steps_per_phase=40"
    "${ENV_OPTIONS[@]}"
    "${ARENA_JUDGE_OPTIONS[@]}"
    "trainer.nnodes=${NNODES}"
    "trainer.n_gpus_per_node=${GPUS_PER_NODE}"
    "trainer.project_name=verl_arena"
    "trainer.experiment_name=textcraft_n${N}"
    "trainer.logger=[console]"
    "trainer.total_epochs=5"
    "trainer.test_freq=20"
    "trainer.save_freq=50"
)
arena_submit "${OVERRIDES[@]}" "$@"
