# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench learning``: does a real policy learn from the arena? SmolLM2-135M in verl's real trainer on the
CPU, the arena against a shuffled control and a pointwise judge score, on a held-out gold score."""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.extras import needing, write_plot
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the benches this module adds, each with the line `verl-arena bench --help` shows for it
SUMMARIES = {
    "learning": "a learning curve with a real policy: SmolLM2-135M in verl's trainer on the CPU, the arena against "
    "shuffled rewards and a pointwise judge, on a held-out gold score (30 minutes short, hours full)",
}

#: options that override a preset's value, by the settings field they set
_OVERRIDES = (
    "arms",
    "seeds",
    "steps",
    "eval_every",
    "n",
    "prompts",
    "response_length",
    "lr",
    "train_tasks",
    "held_out",
    "judge_noise",
    "judge_specifics",
    "eval_samples",
    "pointwise_k",
    "topology",
)


def _settings(args: argparse.Namespace) -> Any:
    from verl_arena.bench.learning import PRESETS

    given = {name: getattr(args, name) for name in _OVERRIDES if getattr(args, name) is not None}
    for name in ("arms", "seeds"):
        if name in given:
            given[name] = tuple(given[name])
    return replace(PRESETS[args.setting], **given)


def _learning(args: argparse.Namespace) -> int:
    from verl_arena.bench.learning import run_learning_bench
    from verl_arena.bench.learning_report import learning_report, markdown_table, plot_learning
    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.cpu.real_model import ModelUnavailable, build_real_model

    settings = _settings(args)
    try:
        settings.check()
        if args.resume and not args.workdir:
            raise ConfigError("--resume reads the runs finished in --workdir: name it")
        model = Path(args.model) if args.model else build_real_model()
        workdir = args.workdir or tempfile.mkdtemp(prefix="verl_arena_bench_learning_")
        runs = run_learning_bench(
            settings,
            model=model,
            workdir=workdir,
            recipe=args.recipe,
            timeout_s=args.timeout,
            progress=progress.say(args),
            resume=args.resume,
        )
    except (ConfigError, ModelUnavailable) as exc:
        print(f"verl-arena bench learning: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"verl-arena bench learning: a run did not train: {exc}", file=sys.stderr)
        return 1
    report = learning_report(settings, runs)
    if args.output:
        Path(args.output).write_text(markdown_table(report) + "\n")
    write_plot(args.plot, lambda path: plot_learning(report, path))
    if args.json:
        print_json(report.to_dict())
    else:
        print(markdown_table(report))
    return 0


def _register_learning(sub: Any) -> None:
    from verl_arena.bench import learning
    from verl_arena.core.topologies import TOPOLOGIES

    parser = sub.add_parser(
        "learning",
        help=SUMMARIES["learning"],
        description=learning.__doc__.split("\n\n", 1)[1] if learning.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--setting",
        choices=list(learning.PRESETS),
        default="short",
        help="full (3 seeds x 30 steps: hours), short (1 seed x 6 steps: about 30 minutes), smoke (2 steps, N=2, "
        "32 tokens); the options below override it (short)",
    )
    parser.add_argument("--arms", nargs="+", choices=list(learning.ARMS), help="arms to train (all three)")
    parser.add_argument("--seeds", nargs="+", type=int, help="one run per arm and seed")
    parser.add_argument("--steps", type=int, help="training steps per run")
    parser.add_argument("--eval-every", type=int, help="answer the held-out tasks every this many steps (and at 0)")
    parser.add_argument("--n", type=int, help="rollouts per prompt")
    parser.add_argument("--prompts", type=int, help="prompts per step")
    parser.add_argument("--response-length", type=int, help="tokens per rollout and per held-out answer")
    parser.add_argument("--lr", type=float, help="the actor's learning rate (1e-5)")
    parser.add_argument("--train-tasks", type=int, help="generated training tasks")
    parser.add_argument("--held-out", type=int, help="generated held-out tasks, from cities no training task names")
    parser.add_argument("--judge-noise", type=float, help="the training judge's noise: SD added to each score (0.1)")
    parser.add_argument(
        "--judge-specifics",
        type=float,
        help="the share of the training judge's score that a plan's times and amounts make (0.3)",
    )
    parser.add_argument(
        "--eval-samples", type=int, help="answers sampled (temperature 1) per held-out task at each evaluation (4)"
    )
    parser.add_argument(
        "--pointwise-k",
        type=int,
        help="judge scores averaged per rollout in the pointwise arm (12: the arena's judge tokens at N=4)",
    )
    parser.add_argument("--topology", choices=TOPOLOGIES.names(), help="the arena's topology (its default)")
    parser.add_argument("--model", help="the policy's transformers directory (default: verl-arena real-model's)")
    parser.add_argument("--workdir", help="where each run's files go (default: a temporary folder)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="read the runs already finished in --workdir (same settings and model) instead of training them again",
    )
    parser.add_argument("--recipe", help="the CPU recipe (default: recipes/cpu_smoke.sh of this checkout)")
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds one trainer run may take (7200)")
    parser.add_argument(
        "--plot", type=needing("matplotlib", "plot"), help="write the learning curves to this PNG (needs matplotlib)"
    )
    parser.add_argument("--output", help="write the markdown table to this file")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_learning)


def register(sub: Any) -> None:
    """Add ``learning`` to the ``bench`` group's sub-parsers."""
    _register_learning(sub)
