#!/usr/bin/env bash
# The judge inside the slime job: slime serves a frozen judge model beside the policy (--sglang-config), and
# verl-arena's hooks send every judge request to that model's router (arena_judge endpoints: [{hosted: slime:judge}]).
# No API key and no judge fleet outside the job. The travel setting of recipes/slime_travel.sh otherwise.
#
# GPU layout: the policy trains and rolls out colocated on the actor GPUs (NNODES x GPUS_PER_NODE, Megatron and the
# policy's SGLang engines taking turns); the judge has JUDGE_GPUS GPUs of its own beyond them (--rollout-num-gpus is
# the actor GPUs plus JUDGE_GPUS), in engines of JUDGE_TP GPUs, never offloaded: it answers while the policy
# generates and idles while it trains. The Ray cluster needs NNODES x GPUS_PER_NODE + JUDGE_GPUS GPUs (two 8-GPU nodes
# by default: one trains and rolls out, one judges).
#
#   SLIME_DIR=/root/slime HF_CHECKPOINT=/models/Qwen3-8B REF_LOAD=/models/Qwen3-8B_torch_dist \
#   JUDGE_MODEL=/models/Qwen3-30B-A3B-Instruct-2507 JUDGE_GPUS=8 \
#   PROMPT_DATA=/data/travel/train.jsonl EVAL_DATA=/data/travel/test.jsonl SAVE_DIR=/shared/ckpt/travel \
#   bash recipes/slime_in_cluster.sh
#
# Writes two files slime's driver reads (on a disk the node running the job sees): SGLANG_CONFIG (the models slime
# serves, default ${SAVE_DIR}/sglang.yaml) and ARENA_CONFIG (the arena_* options, default ${SAVE_DIR}/verl_arena.yaml).
# DRY_RUN=1 prints both and the job instead of writing and submitting them. Extra arguments are appended to slime's.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SLIME_DIR="${SLIME_DIR:-/root/slime}"
SLIME_MODEL="${SLIME_MODEL:-qwen3-8B}"
MEGATRON_DIR="${MEGATRON_DIR:-/root/Megatron-LM}"
HF_CHECKPOINT="${HF_CHECKPOINT:-/root/Qwen3-8B}"
REF_LOAD="${REF_LOAD:-/root/Qwen3-8B_torch_dist}"
SAVE_DIR="${SAVE_DIR:-/root/checkpoints/slime_in_cluster}"
PROMPT_DATA="${PROMPT_DATA:-${HOME}/data/travel/train.jsonl}"
EVAL_DATA="${EVAL_DATA:-${HOME}/data/travel/test.jsonl}"
SGLANG_CONFIG="${SGLANG_CONFIG:-${SAVE_DIR}/sglang.yaml}"
ARENA_CONFIG="${ARENA_CONFIG:-${SAVE_DIR}/verl_arena.yaml}"
TOPOLOGY="${TOPOLOGY:-seeded_single_elimination}"
N="${N:-16}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-8}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
NNODES="${NNODES:-1}"
ROLLOUT_TP="${ROLLOUT_TP:-2}"
# the judge: a frozen checkpoint, its GPUs, its engines' tensor parallelism, context window and memory share
JUDGE_MODEL="${JUDGE_MODEL:-/root/Qwen3-30B-A3B-Instruct-2507}"
JUDGE_GPUS="${JUDGE_GPUS:-8}"
JUDGE_TP="${JUDGE_TP:-4}"
JUDGE_CONTEXT="${JUDGE_CONTEXT:-32768}"
JUDGE_MEM="${JUDGE_MEM:-0.85}"
# a judge the job serves needs no API key: nothing goes to the job's runtime environment
JUDGE_KEY_ENVS=""

ACTOR_GPUS=$(( NNODES * GPUS_PER_NODE ))
ROLLOUT_GPUS=$(( ACTOR_GPUS + JUDGE_GPUS ))
if (( JUDGE_TP < 1 || JUDGE_GPUS < 1 || JUDGE_GPUS % JUDGE_TP != 0 )); then
    echo "JUDGE_GPUS=${JUDGE_GPUS} must be a positive multiple of JUDGE_TP=${JUDGE_TP}" >&2
    exit 1
fi

# --sglang-config: the policy first (its router is the one slime generates with and pushes weights to), then the
# frozen judge (update_weights: false) with its own router. Overrides are SGLang server arguments for the judge alone.
sglang_models() {
    ACTOR_GPUS="${ACTOR_GPUS}" JUDGE_MODEL="${JUDGE_MODEL}" JUDGE_GPUS="${JUDGE_GPUS}" JUDGE_TP="${JUDGE_TP}" \
    JUDGE_CONTEXT="${JUDGE_CONTEXT}" JUDGE_MEM="${JUDGE_MEM}" python3 - <<'PY'
import os
import yaml

env = os.environ
models = {
    "sglang": [
        {
            "name": "actor",
            "update_weights": True,
            "server_groups": [{"worker_type": "regular", "num_gpus": int(env["ACTOR_GPUS"])}],
        },
        {
            "name": "judge",
            "model_path": env["JUDGE_MODEL"],
            "update_weights": False,
            "num_gpus_per_engine": int(env["JUDGE_TP"]),
            "server_groups": [{
                "worker_type": "regular",
                "num_gpus": int(env["JUDGE_GPUS"]),
                # the judge's window (verl-arena sizes its prompts to it) and its GPUs' memory for the KV cache; the
                # prefix (radix) cache SGLang keeps by default serves the shared head of a group's judge prompts
                "overrides": {
                    "context_length": int(env["JUDGE_CONTEXT"]),
                    "mem_fraction_static": float(env["JUDGE_MEM"]),
                },
            }],
        },
    ]
}
print(yaml.safe_dump(models, sort_keys=False), end="")
PY
}

# The arena_* options: the judge slime hosts, greedy like every verl-arena judge (temperature 0 is the default),
# no request or token limits (no provider to protect: SGLang batches what it is sent), the judgment log beside the
# checkpoints.
arena_slime_options() {
    JUDGE_CONCURRENCY="${JUDGE_CONCURRENCY}" JUDGE_CACHE="${JUDGE_CACHE}" TOPOLOGY="${TOPOLOGY}" \
    SAVE_DIR="${SAVE_DIR}" python3 - <<'PY'
import os
import yaml

options = {
    "arena_judge": {
        "endpoints": [{"hosted": "slime:judge"}],
        "template": "travel",
        "language": "zh",
        "max_concurrency": int(os.environ["JUDGE_CONCURRENCY"]),
        "cache_path": os.environ["JUDGE_CACHE"],
    },
    "arena_topology": os.environ["TOPOLOGY"],
    "arena_anchor": "greedy",
    "arena_judge_deadline_s": 900,
    "arena_judgment_log": os.path.join(os.environ["SAVE_DIR"], "judgments.jsonl"),
}
print(yaml.safe_dump(options, sort_keys=False), end="")
PY
}

# write_file PATH CONTENT: writes it, or prints it on a dry run
write_file() {
    if [[ "${DRY_RUN}" == "1" ]]; then
        echo "[dry-run] write $1:"
        printf '%s\n' "$2" | sed 's/^/    /'
    else
        mkdir -p "$(dirname "$1")"
        printf '%s\n' "$2" > "$1"
    fi
}

write_file "${SGLANG_CONFIG}" "$(sglang_models)"
ARENA_OPTIONS="$(arena_slime_options)"
arena_check_slime "${ARENA_OPTIONS}"
write_file "${ARENA_CONFIG}" "${ARENA_OPTIONS}"

# slime's model architecture flags (MODEL_ARGS) come from its own scripts/models/<model>.sh
MODEL_SCRIPT="${SLIME_DIR}/scripts/models/${SLIME_MODEL}.sh"
if [[ -f "${MODEL_SCRIPT}" ]]; then
    # shellcheck disable=SC1090  # slime's file, chosen at run time
    source "${MODEL_SCRIPT}"
elif [[ "${DRY_RUN}" == "1" ]]; then
    MODEL_ARGS=("<MODEL_ARGS from ${MODEL_SCRIPT}>")
else
    echo "no ${MODEL_SCRIPT}: set SLIME_DIR to your slime checkout and SLIME_MODEL to one of its scripts/models" >&2
    exit 1
fi

ARENA_ARGS=(
    --group-rm --custom-rm-path verl_arena.slime.group_rm
    --custom-reward-post-process-path verl_arena.slime.reward_post_process
    --custom-generate-function-path verl_arena.slime.generate
    --custom-rollout-log-function-path verl_arena.slime.log_rollout
    --eval-function-path verl_arena.slime.eval_rollout
    --custom-config-path "${ARENA_CONFIG}"
)
SLIME_ARGS=(
    --hf-checkpoint "${HF_CHECKPOINT}" --ref-load "${REF_LOAD}" --load "${SAVE_DIR}" --save "${SAVE_DIR}"
    --save-interval 50
    --prompt-data "${PROMPT_DATA}" --input-key prompt --label-key label --metadata-key metadata
    --apply-chat-template --rollout-shuffle
    --num-rollout 300 --rollout-batch-size "${PROMPTS_PER_STEP}" --n-samples-per-prompt "${N}"
    --global-batch-size "$(( PROMPTS_PER_STEP * N ))"
    --rollout-max-response-len 8192 --rollout-temperature 0.8
    --eval-interval 20 --eval-prompt-data travel "${EVAL_DATA}" --n-samples-per-eval-prompt 1
    --eval-max-response-len 8192 --eval-temperature 0
    --advantage-estimator grpo --eps-clip 0.2 --eps-clip-high 0.28
    --use-dynamic-batch-size --max-tokens-per-gpu 16384
    --actor-num-nodes "${NNODES}" --actor-num-gpus-per-node "${GPUS_PER_NODE}" --colocate
    # the policy's engines on the actor GPUs, the judge's beyond them (slime checks the file's GPUs add up to this)
    --rollout-num-gpus "${ROLLOUT_GPUS}" --rollout-num-gpus-per-engine "${ROLLOUT_TP}"
    --sglang-config "${SGLANG_CONFIG}"
    # Megatron's own flags
    --tensor-model-parallel-size 2 --sequence-parallel --pipeline-model-parallel-size 1
    --optimizer adam --lr 1e-6 --lr-decay-style constant --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.98
)

# the rewards are advantages already (verl_arena.slime.reward_post_process): slime's grpo estimator uses them as is
JOB_PYTHONPATH="${MEGATRON_DIR}"
export JOB_PYTHONPATH
address="${RAY_ADDRESS:-http://127.0.0.1:8265}"
runtime_env="$(arena_runtime_env)"
arena_run ray job submit --address "${address}" --runtime-env-json "${runtime_env}" -- \
    python3 "${SLIME_DIR}/train.py" "${MODEL_ARGS[@]}" "${SLIME_ARGS[@]}" "${ARENA_ARGS[@]}" "$@"
