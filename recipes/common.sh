#!/usr/bin/env bash
# Shared pieces of the verl-arena recipes: dry runs, the judge options, the job submission.
# Sourced by the recipe scripts; not meant to be run on its own.
#
# Every command that changes something goes through arena_run, so DRY_RUN=1 prints it instead. API keys are passed to
# the job through Ray's runtime environment (env_vars), read from the variables named in JUDGE_KEY_ENVS; a dry run
# prints *** in their place.

set -euo pipefail

DRY_RUN="${DRY_RUN:-0}"

arena_run() {
    if [[ "${DRY_RUN}" == "1" ]]; then
        printf '[dry-run]'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# The judge: one OpenAI-compatible endpoint list, as a Hydra list of mappings. Defaults to Qwen3-Max on DashScope;
# for a self-hosted fleet, paste what judge_fleet.sh prints into JUDGE_ENDPOINTS.
# (the default sits in its own variable: a "}" inside ${VAR:-default} would end the expansion early)
DEFAULT_JUDGE_ENDPOINTS="[{base_url:'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',model:qwen3-max,api_key_env:DASHSCOPE_API_KEY,max_concurrency:64}]"
JUDGE_ENDPOINTS="${JUDGE_ENDPOINTS:-${DEFAULT_JUDGE_ENDPOINTS}}"
JUDGE_KEY_ENVS="${JUDGE_KEY_ENVS:-DASHSCOPE_API_KEY}"
JUDGE_RPM="${JUDGE_RPM:-600}"
JUDGE_TPM="${JUDGE_TPM:-1000000}"
JUDGE_CONCURRENCY="${JUDGE_CONCURRENCY:-128}"
JUDGE_CACHE="${JUDGE_CACHE:-/tmp/verl_arena_verdicts.sqlite}"

# arena_judge_options TEMPLATE LANGUAGE: the +reward.reward_kwargs.judge.* overrides
arena_judge_options() {
    local template="$1" language="$2"
    # shellcheck disable=SC2034  # read by the recipe that sourced this file
    ARENA_JUDGE_OPTIONS=(
        "+reward.reward_kwargs.judge.endpoints=${JUDGE_ENDPOINTS}"
        "+reward.reward_kwargs.judge.template=${template}"
        "+reward.reward_kwargs.judge.language=${language}"
        "+reward.reward_kwargs.judge.max_concurrency=${JUDGE_CONCURRENCY}"
        "+reward.reward_kwargs.judge.rpm=${JUDGE_RPM}"
        "+reward.reward_kwargs.judge.tpm=${JUDGE_TPM}"
        "+reward.reward_kwargs.judge.cache_path=${JUDGE_CACHE}"
    )
}

# The runtime environment of the job: the judge keys (values from this shell), logging, and JOB_PYTHONPATH if set.
arena_runtime_env() {
    JUDGE_KEY_ENVS="${JUDGE_KEY_ENVS}" DRY_RUN="${DRY_RUN}" JOB_PYTHONPATH="${JOB_PYTHONPATH:-}" python3 - <<'PY'
import json, os, sys
names = [n for n in os.environ.get("JUDGE_KEY_ENVS", "").split(",") if n]
missing = [n for n in names if not os.environ.get(n)]
dry = os.environ.get("DRY_RUN") == "1"
if missing and not dry:
    sys.exit(f"set {', '.join(missing)} (the judge's API key) before submitting")
env = {n: ("***" if dry else os.environ[n]) for n in names if os.environ.get(n) or dry}
env.update({"VERL_LOGGING_LEVEL": "INFO", "TOKENIZERS_PARALLELISM": "true", "NCCL_DEBUG": "WARN"})
if os.environ.get("JOB_PYTHONPATH"):
    env["PYTHONPATH"] = os.environ["JOB_PYTHONPATH"]
print(json.dumps({"env_vars": env}))
PY
}

# arena_submit OVERRIDE...: run verl's trainer on the cluster at RAY_ADDRESS with the given overrides.
arena_submit() {
    local address="${RAY_ADDRESS:-http://127.0.0.1:8265}"
    local runtime_env
    runtime_env="$(arena_runtime_env)"
    if [[ "${DRY_RUN}" == "1" ]]; then
        echo "[dry-run] ray job submit --address ${address} --runtime-env-json '${runtime_env}' -- python3 -m verl.trainer.main_ppo \\"
        local override
        for override in "$@"; do
            echo "    ${override}"
        done
        return 0
    fi
    ray job submit --address "${address}" --runtime-env-json "${runtime_env}" -- python3 -m verl.trainer.main_ppo "$@"
}
