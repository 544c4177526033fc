#!/usr/bin/env bash
# Start the Ray cluster verl-arena trains on: one head node and any number of worker nodes.
#
#   bash recipes/cluster.sh head                 # on the head node; prints the address workers join
#   bash recipes/cluster.sh worker HEAD_IP:6379  # on every other node
#   bash recipes/cluster.sh stop                 # on any node: every Ray process on it
#
# Every node needs verl and verl-arena installed in the same Python environment (pip install verl-arena); the plugin
# is found through its entry point. Extra arguments after `head` / `worker HEAD_IP:PORT` go to `ray start` as they are
# (`--resources '{"judge_node": 1}'`, `--num-cpus 32`, ports). DRY_RUN=1 prints the commands instead of running them.
#
# Token authentication: a node started with a token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token, which
# a local `ray.init()` creates) only lets nodes and clients with the same token in. Ray's `ray start --head` turns it
# on by itself when it finds a token but `ray start --address` does not, so a worker would be turned away: this script
# sets RAY_AUTH_MODE=token on every node (and the recipes on `ray job submit`) whenever a token is found and
# RAY_AUTH_MODE is unset. Give every node the head's token (copy ~/.ray/auth_token, or set RAY_AUTH_TOKEN).
#
# RAY_TEMP_DIR puts a node's sessions, logs and sockets there instead of /tmp/ray; `stop` with RAY_TEMP_DIR stops only
# the Ray processes of the nodes started with it (and their workers), leaving other Ray instances on the machine
# alone. Several nodes of one cluster may share it: that is how two nodes run on one machine (tests/e2e/
# test_cluster_recipe.py: a head and a worker on loopback, each with its own ports).
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
arena_ray_auth

RAY_PORT="${RAY_PORT:-6379}"
DASHBOARD_PORT="${DASHBOARD_PORT:-8265}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
RAY_TEMP_DIR="${RAY_TEMP_DIR:-}"
TEMP_DIR=()
if [[ -n "${RAY_TEMP_DIR}" ]]; then TEMP_DIR=(--temp-dir "${RAY_TEMP_DIR}"); fi

# stop_temp_dir DIR: stop the Ray processes whose command line names DIR, with their children (the workers, whose
# command lines are rewritten to ray::...): SIGTERM, then SIGKILL to those still running after 10 s; the GCS last.
stop_temp_dir() {
    python3 - "$1" <<'PY'
import sys
import psutil
directory = sys.argv[1].rstrip("/")
me = psutil.Process()
spared = {me.pid, *(p.pid for p in me.parents())}  # this script and the shells that called it
found = {}
for process in psutil.process_iter(["cmdline"]):
    words = process.info["cmdline"] or []
    if process.pid in spared:
        continue
    if any(directory + "/" in word or word.endswith("=" + directory) or word == directory for word in words[1:]):
        for member in [process, *process.children(recursive=True)]:
            if member.pid not in spared:
                found[member.pid] = member


def stop(processes, grace_s):
    for process in processes:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(processes, timeout=grace_s)
    for process in alive:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=5)
    return alive


def is_gcs(process):
    try:
        return process.name() == "gcs_server"
    except psutil.NoSuchProcess:
        return False


# the GCS last: a raylet told to stop says goodbye to it, and waits for it while it is there
alive = stop([p for p in found.values() if not is_gcs(p)], 10) + stop([p for p in found.values() if is_gcs(p)], 10)
print(f"stopped {len(found)} Ray processes of {directory} ({len(alive)} killed)")
PY
}

case "${1:-}" in
    head)
        shift
        arena_run ray start --head --port "${RAY_PORT}" --dashboard-host 0.0.0.0 --dashboard-port "${DASHBOARD_PORT}" \
            --num-gpus "${GPUS_PER_NODE}" "${TEMP_DIR[@]}" "$@"
        echo "workers join with: bash recipes/cluster.sh worker $(hostname -I 2>/dev/null | awk '{print $1}'):${RAY_PORT}"
        echo "jobs are submitted to: http://127.0.0.1:${DASHBOARD_PORT} (RAY_ADDRESS)"
        if [[ "${RAY_AUTH_MODE:-}" == "token" ]]; then
            echo "token authentication is on: every worker and client needs this node's token (~/.ray/auth_token)"
        fi
        ;;
    worker)
        [[ -n "${2:-}" ]] || { echo "usage: $0 worker HEAD_IP:PORT [RAY_START_ARG...]" >&2; exit 2; }
        head_address="$2"
        shift 2
        arena_run ray start --address "${head_address}" --num-gpus "${GPUS_PER_NODE}" "${TEMP_DIR[@]}" "$@"
        ;;
    stop)
        if [[ -n "${RAY_TEMP_DIR}" ]]; then
            if [[ "${DRY_RUN}" == "1" ]]; then
                echo "[dry-run] stop the Ray processes of ${RAY_TEMP_DIR}"
            else
                stop_temp_dir "${RAY_TEMP_DIR}"
            fi
        else
            arena_run ray stop
        fi
        ;;
    *)
        echo "usage: $0 head [RAY_START_ARG...] | worker HEAD_IP:PORT [RAY_START_ARG...] | stop" >&2
        exit 2
        ;;
esac
