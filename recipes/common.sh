#!/usr/bin/env bash
# Shared pieces of the verl-arena recipes: dry runs, the judge options, the job submission.
# Sourced by the recipe scripts; not meant to be run on its own.
#
# Every command that changes something goes through arena_run, so DRY_RUN=1 prints it instead. A dry run is also a
# check: the trainer's overrides go through `verl-arena check` (verl's own config, every arena option, "did you mean"
# for a misspelt key) and a mistake exits 2; the trainer command is printed so that it can be pasted. API keys are
# passed to the job through Ray's runtime environment (env_vars), read from the variables named in JUDGE_KEY_ENVS; a
# dry run prints *** in their place.

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
JUDGE_KEY_ENVS="${JUDGE_KEY_ENVS-DASHSCOPE_API_KEY}"  # set and empty: no key (a self-hosted judge)
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

# The runtime environment of the job: the judge keys (values from this shell), logging, JOB_PYTHONPATH if set, and
# the variables named in JOB_ENV_NAMES (comma-separated; their values from this shell, not masked).
arena_runtime_env() {
    JUDGE_KEY_ENVS="${JUDGE_KEY_ENVS}" DRY_RUN="${DRY_RUN}" JOB_PYTHONPATH="${JOB_PYTHONPATH:-}" \
        JOB_ENV_NAMES="${JOB_ENV_NAMES:-}" python3 - <<'PY'
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
env.update({n: os.environ.get(n, "") for n in os.environ.get("JOB_ENV_NAMES", "").split(",") if n})
print(json.dumps({"env_vars": env}))
PY
}

# arena_check OVERRIDE...: validate verl trainer overrides offline with `verl-arena check`; exits 2 on a mistake.
arena_check() {
    if ! command -v verl-arena >/dev/null 2>&1; then
        echo "cannot check the overrides: verl-arena is not installed here (pip install verl-arena)" >&2
        exit 2
    fi
    if ! verl-arena check -- "$@" >&2; then
        echo "the trainer's overrides are invalid (see above): nothing was run" >&2
        exit 2
    fi
}

# arena_check_slime OPTIONS: validate a slime recipe's arena_* options (YAML) with verl-arena's slime adapter; exits 2
# naming the key on a mistake.
arena_check_slime() {
    printf '%s\n' "$1" | python3 -c '
import sys, types, yaml
from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import arena_config
try:
    arena_config(types.SimpleNamespace(**yaml.safe_load(sys.stdin)))
except ConfigError as exc:
    sys.exit(f"the arena options are invalid, nothing was run: {exc}")' || exit 2
}

# arena_quote WORD: WORD as the shell reads it back (single-quoted unless it needs no quoting).
arena_quote() {
    if [[ "$1" =~ ^[A-Za-z0-9_./:=+@%,-]+$ ]]; then printf '%s' "$1"; else printf '%s' "${1@Q}"; fi
}

# arena_print_command HEAD WORD...: the command, ready to paste: its first HEAD words on one line, then one word a
# line, joined by line continuations.
arena_print_command() {
    local head="$1" index=0 word
    shift
    for word in "$@"; do
        index=$((index + 1))
        if (( index > head )); then printf ' \\\n    '; elif (( index > 1 )); then printf ' '; fi
        arena_quote "${word}"
    done
    printf '\n'
}

# arena_ray_auth: Ray's token authentication, the same on every node and client. With RAY_AUTH_MODE unset, export
# RAY_AUTH_MODE=token when a token is found (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token): `ray start --head`
# turns it on by itself then, but `ray start --address` and `ray job submit` do not, and the head turns them away.
arena_ray_auth() {
    if [[ -z "${RAY_AUTH_MODE:-}" ]] && [[ -n "${RAY_AUTH_TOKEN:-}" || -n "${RAY_AUTH_TOKEN_PATH:-}" \
        || -s "${HOME:-}/.ray/auth_token" ]]; then
        export RAY_AUTH_MODE=token
    fi
}

# arena_submit OVERRIDE...: run verl's trainer on the cluster at RAY_ADDRESS with the given overrides (DRY_RUN=1: check
# them and print the command).
arena_submit() {
    local address="${RAY_ADDRESS:-http://127.0.0.1:8265}"
    local runtime_env
    runtime_env="$(arena_runtime_env)"
    local submit=(ray job submit --address "${address}" --runtime-env-json "${runtime_env}")
    if [[ -n "${SUBMISSION_ID:-}" ]]; then submit+=(--submission-id "${SUBMISSION_ID}"); fi
    submit+=(-- python3 -m verl.trainer.main_ppo)
    arena_ray_auth
    if [[ "${DRY_RUN}" == "1" ]]; then
        arena_check "$@"
        arena_print_command "${#submit[@]}" "${submit[@]}" "$@"
        return 0
    fi
    "${submit[@]}" "$@"
}

# arena_wait_ready WHAT PID URL_FILE HEALTH LOG: wait until the server PID started (it prints its base URL to URL_FILE
# once listening) answers a GET of URL/HEALTH; sets ARENA_READY_URL. Exits 1 naming WHAT, with the end of its LOG, if it
# exits first or READY_TIMEOUT_S (600) pass: a slow machine only waits longer.
arena_wait_ready() {
    local what="$1" pid="$2" url_file="$3" health="$4" log="$5" url=""
    local probe='import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)'
    local deadline=$((SECONDS + ${READY_TIMEOUT_S:-600}))
    while (( SECONDS < deadline )); do
        if ! kill -0 "${pid}" 2>/dev/null; then
            echo "${what} exited before it answered (its log: ${log}):" >&2
            tail -n 5 "${log}" >&2 || true
            exit 1
        fi
        url="$(head -n 1 "${url_file}" 2>/dev/null || true)"
        if [[ -n "${url}" ]] && python3 -c "${probe}" "${url}${health}" 2>/dev/null; then
            # shellcheck disable=SC2034  # read by the recipe that sourced this file
            ARENA_READY_URL="${url}"
            return 0
        fi
        sleep 0.5
    done
    echo "${what} did not answer ${url:-(no URL yet)}${health} within ${READY_TIMEOUT_S:-600} s (its log: ${log})" >&2
    exit 1
}

# arena_follow_trainer PID LOG: print each training step's key metrics as the trainer PID (a child of this shell,
# writing LOG) ends it; at the trainer's first error, name it and stop the trainer. Sets ARENA_TRAINER_STATUS: the
# trainer's exit status, non-zero if it was stopped. A trainer that fails without a traceback gets its log's last lines.
arena_follow_trainer() {
    local pid="$1" log="$2" followed=0
    verl-arena follow "${log}" --pid "${pid}" || followed=$?
    if (( followed != 0 )); then
        local _
        for _ in $(seq 60); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.5; done  # it may be on its way out
        if kill -0 "${pid}" 2>/dev/null; then
            echo "stopping the trainer at its first error (the whole log: ${log})" >&2
            kill -TERM "${pid}" 2>/dev/null || true
            for _ in $(seq 60); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.5; done
            kill -KILL "${pid}" 2>/dev/null || true
        fi
    fi
    ARENA_TRAINER_STATUS=0
    wait "${pid}" || ARENA_TRAINER_STATUS=$?
    if (( ARENA_TRAINER_STATUS == 0 && followed != 0 )); then ARENA_TRAINER_STATUS=1; fi
    if (( ARENA_TRAINER_STATUS != 0 && followed == 0 )); then
        echo "the trainer failed (exit ${ARENA_TRAINER_STATUS}); the end of ${log}:" >&2
        tail -n 15 "${log}" >&2 || true
    fi
}
