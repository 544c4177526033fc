#!/usr/bin/env bash
# Start self-hosted vLLM judge servers across nodes and print the endpoint list for JUDGE_ENDPOINTS.
#
#   JUDGE_MODEL=/models/Qwen3-235B-A22B-Instruct JUDGE_HOSTS="10.0.0.11 10.0.0.12" JUDGE_TP=8 \
#       bash recipes/judge_fleet.sh
#   export JUDGE_ENDPOINTS="$(bash recipes/judge_fleet.sh endpoints)" JUDGE_KEY_ENVS=""
#
# Each host gets one server per JUDGE_TP GPUs (JUDGE_GPUS_PER_HOST / JUDGE_TP servers), on ports 8000, 8001, ...,
# started over ssh with nohup (process id in /tmp/verl_arena_judge_PORT.pid); the script waits for every /health and
# prints the endpoints as a Hydra list. "bash recipes/judge_fleet.sh stop" stops exactly those processes. DRY_RUN=1 prints the ssh commands instead of running them.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

JUDGE_MODEL="${JUDGE_MODEL:-Qwen/Qwen3-235B-A22B-Instruct-2507}"
JUDGE_SERVED_NAME="${JUDGE_SERVED_NAME:-judge}"
JUDGE_HOSTS="${JUDGE_HOSTS:-127.0.0.1}"
JUDGE_GPUS_PER_HOST="${JUDGE_GPUS_PER_HOST:-8}"
JUDGE_TP="${JUDGE_TP:-8}"
JUDGE_PORT="${JUDGE_PORT:-8000}"
JUDGE_MAX_SEQS="${JUDGE_MAX_SEQS:-256}"
VLLM_ARGS="${VLLM_ARGS:---max-model-len 32768 --enable-prefix-caching --reasoning-parser qwen3}"

servers_per_host=$(( JUDGE_GPUS_PER_HOST / JUDGE_TP ))
if (( servers_per_host < 1 )); then
    echo "JUDGE_TP (${JUDGE_TP}) is larger than JUDGE_GPUS_PER_HOST (${JUDGE_GPUS_PER_HOST})" >&2
    exit 2
fi

endpoints() {
    local list="" host i
    for host in ${JUDGE_HOSTS}; do
        for (( i = 0; i < servers_per_host; i++ )); do
            list+="${list:+,}{base_url:'http://${host}:$(( JUDGE_PORT + i ))/v1',model:${JUDGE_SERVED_NAME},max_concurrency:${JUDGE_MAX_SEQS}}"
        done
    done
    echo "[${list}]"
}

start() {
    local host i gpus first
    for host in ${JUDGE_HOSTS}; do
        for (( i = 0; i < servers_per_host; i++ )); do
            first=$(( i * JUDGE_TP ))
            gpus="$(seq -s, "${first}" $(( first + JUDGE_TP - 1 )))"
            arena_run ssh "${host}" "CUDA_VISIBLE_DEVICES=${gpus} nohup vllm serve ${JUDGE_MODEL} \
--served-model-name ${JUDGE_SERVED_NAME} --port $(( JUDGE_PORT + i )) --tensor-parallel-size ${JUDGE_TP} \
--max-num-seqs ${JUDGE_MAX_SEQS} ${VLLM_ARGS} > /tmp/verl_arena_judge_$(( JUDGE_PORT + i )).log 2>&1 & \
echo \$! > /tmp/verl_arena_judge_$(( JUDGE_PORT + i )).pid"
        done
    done
    wait_healthy
    endpoints
}

wait_healthy() {
    local host i url
    for host in ${JUDGE_HOSTS}; do
        for (( i = 0; i < servers_per_host; i++ )); do
            url="http://${host}:$(( JUDGE_PORT + i ))/health"
            if [[ "${DRY_RUN}" == "1" ]]; then
                echo "[dry-run] wait for ${url}" >&2
                continue
            fi
            until curl -sf "${url}" > /dev/null; do sleep 10; done
            echo "up: ${url}" >&2
        done
    done
}

# stops the servers this script started, by the process ids it wrote next to their logs (vLLM stops its workers)
stop() {
    local host i pidfile
    for host in ${JUDGE_HOSTS}; do
        for (( i = 0; i < servers_per_host; i++ )); do
            pidfile="/tmp/verl_arena_judge_$(( JUDGE_PORT + i )).pid"
            arena_run ssh "${host}" "if [ -f ${pidfile} ]; then kill \$(cat ${pidfile}) 2>/dev/null; rm -f ${pidfile}; fi"
        done
    done
}

case "${1:-start}" in
    start) start ;;
    endpoints) endpoints ;;
    stop) stop ;;
    *) echo "usage: $0 [start | endpoints | stop]" >&2; exit 2 ;;
esac
