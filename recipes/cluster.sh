#!/usr/bin/env bash
# Start the Ray cluster verl-arena trains on: one head node and any number of worker nodes.
#
#   bash recipes/cluster.sh head                 # on the head node; prints the address workers join
#   bash recipes/cluster.sh worker HEAD_IP:6379  # on every other node
#   bash recipes/cluster.sh stop                 # on any node
#
# Every node needs verl and verl-arena installed in the same Python environment (pip install verl-arena); the plugin
# is found through its entry point. DRY_RUN=1 prints the commands instead of running them.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RAY_PORT="${RAY_PORT:-6379}"
DASHBOARD_PORT="${DASHBOARD_PORT:-8265}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"

case "${1:-}" in
    head)
        arena_run ray start --head --port "${RAY_PORT}" --dashboard-host 0.0.0.0 --dashboard-port "${DASHBOARD_PORT}" \
            --num-gpus "${GPUS_PER_NODE}"
        echo "workers join with: bash recipes/cluster.sh worker $(hostname -I 2>/dev/null | awk '{print $1}'):${RAY_PORT}"
        echo "jobs are submitted to: http://127.0.0.1:${DASHBOARD_PORT} (RAY_ADDRESS)"
        ;;
    worker)
        [[ -n "${2:-}" ]] || { echo "usage: $0 worker HEAD_IP:PORT" >&2; exit 2; }
        arena_run ray start --address "$2" --num-gpus "${GPUS_PER_NODE}"
        ;;
    stop)
        arena_run ray stop
        ;;
    *)
        echo "usage: $0 head | worker HEAD_IP:PORT | stop" >&2
        exit 2
        ;;
esac
