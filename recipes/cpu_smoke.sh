#!/usr/bin/env bash
# Two real training steps of verl's trainer on this machine's CPU, with the arena reward manager and the tournament
# estimator: check a recipe's arena options and a judge configuration on a laptop before spending GPU hours.
#
#   bash recipes/cpu_smoke.sh                                  # the built-in mock judge on loopback
#   JUDGE_CONFIG=judge.yaml bash recipes/cpu_smoke.sh          # your judge (its key variables set in this shell)
#   TOPOLOGY=multi_round bash recipes/cpu_smoke.sh +reward.reward_kwargs.tournament.repeats=2
#   HOSTED_JUDGE=lexical bash recipes/cpu_smoke.sh             # the judge hosted by verl itself (see below)
#   REWARD=rule bash recipes/cpu_smoke.sh                      # the same run with a rule-based reward, no arena
#
# It builds a tiny random Qwen2 offline (verl-arena tiny-model), turns TASKS into verl's parquet files (verl-arena
# prepare), and runs python -m verl.trainer.main_ppo with VERL_PLATFORM=cpu and the transformers rollout. Extra
# arguments are passed to the trainer as overrides. Everything lands in WORKDIR: the model, the data, the trainer's
# log (train.log), every judged group (judgments.jsonl: verl-arena replay reads it) and the rollouts
# (rollouts/*.jsonl). About 1-2 minutes on 2 cores. It waits for the mock judge by a health request (READY_TIMEOUT_S,
# 600), prints each training step's key metrics as the step ends, stops the trainer at its first error with that
# error's line, and exits non-zero on any failure.
# DRY_RUN=1 checks the trainer's overrides (verl-arena check; a mistake exits 2) and prints the trainer command ready
# to paste instead of running anything. MOCK_LATENCY sets the built-in mock judge's seconds per request (0.01).
#
# POLL_S=0.05 makes verl's trainer look for finished rollouts every POLL_S seconds instead of its fixed 2 s (a custom
# sampler, verl_arena.integrations.verl.fine_poll): step times then show differences below 2 s.
#
# REWARD=rule runs the same recipe without the arena: verl's naive reward manager, a rule-based reward that waits
# MOCK_LATENCY per rollout (verl_arena.bench.rule_reward) and GRPO advantages. verl-arena bench step compares the two.
#
# SUBMIT=1 runs the same trainer as a job on the running Ray cluster at RAY_ADDRESS (default http://127.0.0.1:8265),
# submitted with `ray job submit` the way the GPU recipes submit theirs (common.sh: arena_submit; SUBMISSION_ID names
# the job, and the job is stopped if this script stops first): a rehearsal of a cluster run on CPUs. The nodes give Ray
# the logical GPUs and CPUs the trainer asks for (bash recipes/cluster.sh head --num-cpus 8, GPUS_PER_NODE=1), the
# CPU platform reaches every process through the job's runtime environment, and the judge must answer every node:
# the built-in mock judge listens on this machine's loopback (a cluster on one machine), JUDGE_CONFIG a judge of your
# own (name its key variables in JUDGE_KEY_ENVS). The log, the judgments and the rollouts land in WORKDIR as before.
#
# HOSTED_JUDGE=model|lexical: no judge outside the job. verl hosts the judge as its reward model
# (reward.reward_model.enable=True, a standalone pool of one logical GPU, the transformers rollout serving an
# OpenAI-compatible chat endpoint behind verl's router) and the arena judge is {hosted: verl}. "model" serves a second
# tiny random model (its verdicts are noise: groups are voided and counted; the check that stops a job whose judge
# gives no verdict, judge.competence_check, is off for it); "lexical" marks that model so its replica answers with the
# lexical mock judge (verdicts parse, rewards mean something).
#
# TRAINER_MODE=separate_async: verl's fully asynchronous trainer. A standalone transformers server (one more logical
# GPU) generates the next step's groups while the trainer trains on the last ones, and takes each step's weights through
# Ray's object store (actor_rollout_ref.rollout.checkpoint_engine.backend=object_store, the CPU's stand-in for NCCL).
set -euo pipefail
JUDGE_KEY_ENVS="${JUDGE_KEY_ENVS-}"  # the mock judge needs no key (SUBMIT=1 with JUDGE_CONFIG: name its key variables)
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORKDIR="${WORKDIR:-/tmp/verl_arena_cpu_smoke}"
TASKS="${TASKS:-${ROOT}/examples/travel_tasks.jsonl}"
TOPOLOGY="${TOPOLOGY:-seeded_single_elimination}"
AGENT="${AGENT:-arena_single_turn_agent}"
N="${N:-3}"                  # rollouts per prompt (>= 3: a random model's greedy anchor often says nothing)
PROMPTS="${PROMPTS:-2}"      # prompts per step
STEPS="${STEPS:-2}"
JUDGE_CONFIG="${JUDGE_CONFIG:-}"
HOSTED_JUDGE="${HOSTED_JUDGE:-}"
MOCK_LATENCY="${MOCK_LATENCY:-0.01}"
REWARD="${REWARD:-arena}"
SUBMIT="${SUBMIT:-0}"
TRAINER_MODE="${TRAINER_MODE:-sync}"
case "${TRAINER_MODE}" in
    sync) ROLLOUT_PROCESSES=0 ;;
    separate_async) ROLLOUT_PROCESSES=1 ;;
    *) echo "TRAINER_MODE must be sync or separate_async, not '${TRAINER_MODE}'" >&2; exit 2 ;;
esac
case "${HOSTED_JUDGE}" in
    ""|model|lexical) ;;
    *) echo "HOSTED_JUDGE must be empty, model or lexical, not '${HOSTED_JUDGE}'" >&2; exit 2 ;;
esac
case "${SUBMIT}" in
    0|1) ;;
    *) echo "SUBMIT must be 0 or 1, not '${SUBMIT}'" >&2; exit 2 ;;
esac
case "${REWARD}" in
    arena|rule) ;;
    *) echo "REWARD must be arena or rule, not '${REWARD}'" >&2; exit 2 ;;
esac
if [[ "${REWARD}" == "rule" && ( -n "${HOSTED_JUDGE}" || -n "${JUDGE_CONFIG}" ) ]]; then
    echo "REWARD=rule has no judge: HOSTED_JUDGE and JUDGE_CONFIG do not apply" >&2
    exit 2
fi

arena_run mkdir -p "${WORKDIR}"
arena_run verl-arena tiny-model "${WORKDIR}/model"
arena_run verl-arena prepare "${TASKS}" -o "${WORKDIR}/data"

mock_pid=""
job_running=""
# shellcheck disable=SC2329  # called by the EXIT trap
cleanup() {
    if [[ -n "${job_running}" ]]; then
        ray job stop --address "${RAY_ADDRESS:-http://127.0.0.1:8265}" --no-wait "${SUBMISSION_ID}" >/dev/null 2>&1 || true
    fi
    if [[ -n "${mock_pid}" ]]; then kill "${mock_pid}" 2>/dev/null || true; fi
}
trap cleanup EXIT
JUDGE_PROCESSES=0
if [[ "${REWARD}" == "rule" ]]; then
    JUDGE=()
elif [[ -n "${HOSTED_JUDGE}" ]]; then
    lexical=()
    if [[ "${HOSTED_JUDGE}" == "lexical" ]]; then lexical=(--lexical-judge); fi
    arena_run verl-arena tiny-model "${WORKDIR}/judge_model" --seed 1 --context 16384 "${lexical[@]}"
    JUDGE_PROCESSES=1
    JUDGE=(
        "+reward.reward_kwargs.judge.endpoints=[{hosted: verl}]"
        "reward.reward_model.enable=True"
        "reward.reward_model.enable_resource_pool=True"
        "reward.reward_model.model_path=${WORKDIR}/judge_model"
        "reward.reward_model.rollout.temperature=0"
        "reward.reward_model.rollout.free_cache_engine=False"
        "reward.custom_reward_function.path=pkg://verl_arena.integrations.verl.reward_function"
        "reward.custom_reward_function.name=compute_score"
    )
    if [[ "${HOSTED_JUDGE}" == "model" ]]; then  # noise by design: the run shows how the arena counts a judge that
        JUDGE+=("+reward.reward_kwargs.judge.competence_check=false")  # cannot judge, so it must not stop at start
    fi
    if [[ -n "${JUDGE_CONFIG}" ]]; then
        echo "HOSTED_JUDGE and JUDGE_CONFIG exclude each other: the hosted judge is the endpoint" >&2
        exit 2
    fi
elif [[ -n "${JUDGE_CONFIG}" ]]; then
    judge_lines="$(python3 -c '
import sys
from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.config import judge_overrides
from verl_arena.judges.loading import read_judge_file
try:
    print("\n".join(judge_overrides(read_judge_file(sys.argv[1]))))
except ConfigError as exc:
    sys.exit(f"JUDGE_CONFIG={sys.argv[1]}: {exc}")' "${JUDGE_CONFIG}")" || exit 2
    mapfile -t JUDGE <<< "${judge_lines}"
elif [[ "${DRY_RUN}" == "1" ]]; then
    JUDGE=("+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:PORT/v1', model: mock}]")
else
    verl-arena mock-judge --latency "${MOCK_LATENCY}" > "${WORKDIR}/mock_judge.url" 2> "${WORKDIR}/mock_judge.log" &
    mock_pid=$!
    arena_wait_ready "the mock judge" "${mock_pid}" "${WORKDIR}/mock_judge.url" /models "${WORKDIR}/mock_judge.log"
    JUDGE=("+reward.reward_kwargs.judge.endpoints=[{base_url: '${ARENA_READY_URL}', model: mock}]")
fi
mapfile -t CPU < <(python3 -c 'import sys; from verl_arena.integrations.verl.cpu.overrides import cpu_overrides
judge, rollout, submit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
print("\n".join(cpu_overrides(judge_processes=judge, rollout_processes=rollout, local_ray=submit == "0")))' \
    "${JUDGE_PROCESSES}" "${ROLLOUT_PROCESSES}" "${SUBMIT}" 2>/dev/null)

ASYNC=()
if [[ "${TRAINER_MODE}" == "separate_async" ]]; then
    # one PPO mini-batch a step (train_batch_size = parameter_sync_step x ppo_mini_batch_size), one batch ahead
    ASYNC=(
        "trainer.v1.trainer_mode=separate_async"
        "trainer.v1.separate_async.parameter_sync_step=1"
        "trainer.v1.separate_async.num_warmup_batches=1"
    )
fi

if [[ "${REWARD}" == "rule" ]]; then
    REWARD_OPTIONS=(
        "algorithm.adv_estimator=grpo"
        "reward.reward_manager.name=naive"
        "reward.custom_reward_function.path=pkg://verl_arena.bench.rule_reward"
        "reward.custom_reward_function.name=compute_score"
        "+reward.custom_reward_function.reward_kwargs.latency_s=${MOCK_LATENCY}"
    )
else
    REWARD_OPTIONS=(
        "algorithm.adv_estimator=tournament"
        "reward.reward_manager.name=arena"
        "${JUDGE[@]}"
        "+reward.reward_kwargs.topology=${TOPOLOGY}"
        "+reward.reward_kwargs.judge_deadline_s=${JUDGE_DEADLINE:-900}"
        "+reward.reward_kwargs.judgment_log=${WORKDIR}/judgments.jsonl"
    )
fi

POLL=()
if [[ -n "${POLL_S:-}" ]]; then
    POLL=(
        "trainer.v1.sampler.custom_sampler.path=pkg://verl_arena.integrations.verl.fine_poll"
        "trainer.v1.sampler.custom_sampler.name=FinePollReplayBuffer"
        "+trainer.v1.sampler.sampler_kwargs.poll_interval=${POLL_S}"
        "+trainer.v1.sampler.sampler_kwargs.train_batch_size=${PROMPTS}"
    )
fi

OVERRIDES=(
    "${CPU[@]}"
    "${ASYNC[@]}"
    "${POLL[@]}"
    "${REWARD_OPTIONS[@]}"
    "reward.num_workers=1"
    "actor_rollout_ref.rollout.agent.default_agent_loop=${AGENT}"
    "actor_rollout_ref.model.path=${WORKDIR}/model"
    "actor_rollout_ref.rollout.n=${N}"
    "actor_rollout_ref.actor.ppo_mini_batch_size=${PROMPTS}"
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=${PROMPTS}"
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=${PROMPTS}"
    "actor_rollout_ref.actor.use_kl_loss=False"
    "data.train_files=${WORKDIR}/data/train.parquet"
    "data.val_files=${WORKDIR}/data/val.parquet"
    "data.train_batch_size=${PROMPTS}"
    "data.max_prompt_length=${PROMPT_LENGTH:-256}"
    "data.max_response_length=${RESPONSE_LENGTH:-24}"
    "data.return_raw_chat=True"
    "trainer.total_training_steps=${STEPS}"
    "trainer.val_before_train=False"
    "trainer.test_freq=${STEPS}"
    "trainer.save_freq=-1"
    "trainer.logger=[console]"
    "trainer.rollout_data_dir=${WORKDIR}/rollouts"
    "trainer.project_name=verl_arena"
    "trainer.experiment_name=cpu_smoke"
    "hydra.run.dir=${WORKDIR}/hydra"
)

if [[ "${SUBMIT}" == "1" ]]; then
    # what the trainer's processes need on every node, through the job's runtime environment
    export VERL_PLATFORM=cpu WANDB_MODE=disabled TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
    export JOB_ENV_NAMES="VERL_PLATFORM,WANDB_MODE,TOKENIZERS_PARALLELISM,HF_HUB_OFFLINE${JOB_ENV_NAMES:+,${JOB_ENV_NAMES}}"
    export SUBMISSION_ID="${SUBMISSION_ID:-verl_arena_cpu_smoke_$(date +%s)_$$}"
    arena_ray_auth
    if [[ "${DRY_RUN}" == "1" ]]; then
        arena_submit "${OVERRIDES[@]}" "$@"
        exit 0
    fi
fi
TRAINER=(python3 -m verl.trainer.main_ppo "${OVERRIDES[@]}" "$@")
if [[ "${DRY_RUN}" == "1" ]]; then
    arena_check "${OVERRIDES[@]}" "$@"
    arena_print_command 4 VERL_PLATFORM=cpu "${TRAINER[@]}"
    exit 0
fi
rm -rf "${WORKDIR}/judgments.jsonl" "${WORKDIR}/rollouts" "${WORKDIR}/train.log"
if [[ "${SUBMIT}" == "1" ]]; then
    job_running=1
    arena_submit "${OVERRIDES[@]}" "$@" > "${WORKDIR}/train.log" 2>&1 &
    trainer_pid=$!
    echo "job ${SUBMISSION_ID} submitted to ${RAY_ADDRESS:-http://127.0.0.1:8265}; its log: ${WORKDIR}/train.log"
else
    # OMP_NUM_THREADS: Ray gives a worker one thread unless told; the actor trains while the rollout waits, so each
    # may use every core
    OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}" \
        VERL_PLATFORM=cpu WANDB_MODE=disabled TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 \
        "${TRAINER[@]}" > "${WORKDIR}/train.log" 2>&1 &
    trainer_pid=$!
    echo "trainer started (pid ${trainer_pid}); its log: ${WORKDIR}/train.log"
fi
arena_follow_trainer "${trainer_pid}" "${WORKDIR}/train.log"
status=${ARENA_TRAINER_STATUS}
if (( status == 0 )); then job_running=""; fi
echo "trainer exited with ${status}; log ${WORKDIR}/train.log, judgments ${WORKDIR}/judgments.jsonl"
exit "${status}"
