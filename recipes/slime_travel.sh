#!/usr/bin/env bash
# Travel-planning RL with slime and verl-arena: tournament rewards through slime's plugin flags, no fork of slime.
# Qwen3-8B on Megatron, 16 rollouts of each of 8 prompts per rollout step, seeded single elimination with the
# group's greedy rollout as anchor, the travel rubric in Chinese; evaluation every 20 steps as a win rate against the
# reference plans in the eval data's label column.
#
#   SLIME_DIR=/root/slime HF_CHECKPOINT=/models/Qwen3-8B REF_LOAD=/models/Qwen3-8B_torch_dist \
#   PROMPT_DATA=/data/travel/train.jsonl EVAL_DATA=/data/travel/test.jsonl SAVE_DIR=/shared/ckpt/travel \
#   bash recipes/slime_travel.sh
#
# The verl-arena options go to slime as arena_* keys of --custom-config-path (written to ARENA_CONFIG, default
# ${SAVE_DIR}/verl_arena.yaml: slime's driver reads it on the node that runs the job). The judge endpoints, keys and
# limits are the same variables as the verl recipes' (see recipes/README.md). DRY_RUN=1 prints the options file and the
# job instead of writing and submitting them. Extra arguments are appended to slime's.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SLIME_DIR="${SLIME_DIR:-/root/slime}"
SLIME_MODEL="${SLIME_MODEL:-qwen3-8B}"
MEGATRON_DIR="${MEGATRON_DIR:-/root/Megatron-LM}"
HF_CHECKPOINT="${HF_CHECKPOINT:-/root/Qwen3-8B}"
REF_LOAD="${REF_LOAD:-/root/Qwen3-8B_torch_dist}"
SAVE_DIR="${SAVE_DIR:-/root/checkpoints/slime_travel}"
PROMPT_DATA="${PROMPT_DATA:-${HOME}/data/travel/train.jsonl}"
EVAL_DATA="${EVAL_DATA:-${HOME}/data/travel/test.jsonl}"
ARENA_CONFIG="${ARENA_CONFIG:-${SAVE_DIR}/verl_arena.yaml}"
TOPOLOGY="${TOPOLOGY:-seeded_single_elimination}"
N="${N:-16}"
PROMPTS_PER_STEP="${PROMPTS_PER_STEP:-8}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
NNODES="${NNODES:-1}"

# The arena_* options: the judge as in the verl recipes (JUDGE_ENDPOINTS is the same Hydra list), the tournament, the
# greedy anchor, and the judgment log next to the checkpoints.
arena_slime_options() {
    JUDGE_ENDPOINTS="${JUDGE_ENDPOINTS}" JUDGE_RPM="${JUDGE_RPM}" JUDGE_TPM="${JUDGE_TPM}" \
    JUDGE_CONCURRENCY="${JUDGE_CONCURRENCY}" JUDGE_CACHE="${JUDGE_CACHE}" TOPOLOGY="${TOPOLOGY}" \
    SAVE_DIR="${SAVE_DIR}" python3 - <<'PY'
import os
import yaml
from hydra.core.override_parser.overrides_parser import OverridesParser

endpoints = OverridesParser.create().parse_override("e=" + os.environ["JUDGE_ENDPOINTS"]).value()
options = {
    "arena_judge": {
        "endpoints": endpoints,
        "template": "travel",
        "language": "zh",
        "max_concurrency": int(os.environ["JUDGE_CONCURRENCY"]),
        "rpm": int(os.environ["JUDGE_RPM"]),
        "tpm": int(os.environ["JUDGE_TPM"]),
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

OPTIONS="$(arena_slime_options)"
arena_check_slime "${OPTIONS}"
if [[ "${DRY_RUN}" == "1" ]]; then
    echo "[dry-run] write ${ARENA_CONFIG}:"
    printf '%s\n' "${OPTIONS}" | sed 's/^/    /'
else
    mkdir -p "$(dirname "${ARENA_CONFIG}")"
    printf '%s\n' "${OPTIONS}" > "${ARENA_CONFIG}"
fi

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
    --rollout-num-gpus-per-engine 2
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
